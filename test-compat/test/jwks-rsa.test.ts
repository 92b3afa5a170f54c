import { decodeProtectedHeader } from 'jose';
import { JwksClient } from 'jwks-rsa';
import { compat } from '../src/fixtures';
import { machineAccessToken } from '../src/sdk';

// jwks-rsa, as Auth0's node quickstarts use it to verify tokens with jsonwebtoken.

const jwksClient = new JwksClient({ jwksUri: `https://${compat.domain}/.well-known/jwks.json` });

describe('jwks-rsa JwksClient', () => {
  it('gets the signing key of a token by its kid', async () => {
    const { kid } = decodeProtectedHeader(await machineAccessToken());
    const key = await jwksClient.getSigningKey(kid);
    expect(key.kid).toBe(kid);
    expect(key.getPublicKey()).toMatch(/^-----BEGIN PUBLIC KEY-----/);
  });

  it('finds the current and the next signing key in the JWKS, so a key is known before it signs', async () => {
    const keys = await jwksClient.getSigningKeys();
    expect(keys.length).toBeGreaterThanOrEqual(2);
    expect(new Set(keys.map((k) => k.kid)).size).toBe(keys.length);
  });
});
