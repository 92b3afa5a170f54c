import { createRemoteJWKSet, jwtVerify } from 'jose';
import { compat, randomPhone } from '../src/fixtures';
import { machineAccessToken, signInWithAuthJs } from '../src/sdk';

// jose: the JWKS fetched from the issuer's https URL verifies our tokens.

const jwks = createRemoteJWKSet(new URL(`https://${compat.domain}/.well-known/jwks.json`));

describe('jose createRemoteJWKSet + jwtVerify', () => {
  it('verifies the ID token of an SMS sign-in', async () => {
    const phone = randomPhone();
    const tokens = await signInWithAuthJs(phone, 'openid phone');
    const { payload, protectedHeader } = await jwtVerify(tokens.idToken!, jwks, { issuer: compat.issuer, audience: compat.app.clientId, algorithms: ['RS256'] });
    expect(protectedHeader.kid).toEqual(expect.any(String));
    expect(payload).toMatchObject({ phone_number: phone, sub: expect.any(String) });
  });

  it('verifies an access token for the API', async () => {
    const { payload } = await jwtVerify(await machineAccessToken(), jwks, { issuer: compat.issuer, audience: compat.apiAudience, algorithms: ['RS256'] });
    expect(payload.sub).toBe(`${compat.m2m.clientId}@clients`);
  });
});
