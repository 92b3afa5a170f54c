import { decodeProtectedHeader } from 'jose';
import { JwksClient } from 'jwks-rsa';
import { compat } from '../src/fixtures';
import { machineAccessToken, managementClient } from '../src/sdk';

// jwks-rsa, as Auth0's node quickstarts use it to verify tokens with jsonwebtoken.

const jwksUri = `https://${compat.domain}/.well-known/jwks.json`;
const jwksClient = new JwksClient({ jwksUri });
const publishedKids = async () => (await new JwksClient({ jwksUri, cache: false }).getSigningKeys()).map((k) => k.kid);

describe('jwks-rsa JwksClient', () => {
  it('gets the signing key of a token by its kid', async () => {
    const { kid } = decodeProtectedHeader(await machineAccessToken());
    const key = await jwksClient.getSigningKey(kid);
    expect(key.kid).toBe(kid);
    expect(key.getPublicKey()).toMatch(/^-----BEGIN PUBLIC KEY-----/);
  });

  it('finds the current and the next signing key in the JWKS, so a key is known before it signs', async () => {
    const kids = await publishedKids();
    expect(kids.length).toBeGreaterThanOrEqual(2);
    expect(new Set(kids).size).toBe(kids.length);
  });

  it('already holds the key that signs after a rotation through the management API', async () => {
    const before = await publishedKids();
    const rotated = await managementClient().keys.signing.rotate();
    // Auth0 answers the new next key, with its certificate.
    expect(rotated.cert).toMatch(/^-----BEGIN CERTIFICATE-----/);

    const { kid } = decodeProtectedHeader(await machineAccessToken());
    expect(before).toContain(kid);
    expect(kid).not.toBe(rotated.kid);
    expect(await publishedKids()).toEqual(expect.arrayContaining([kid, rotated.kid]));
  });
});
