import { createPublicKey } from 'node:crypto';
import jwt from 'jsonwebtoken';

/** Verifies an RS256 token with the key the identity service publishes at its JWKS. */
export async function verifyWithJwks(authUrl: string, token: string, audience: string): Promise<jwt.JwtPayload> {
  const decoded = jwt.decode(token, { complete: true });
  if (!decoded) throw new Error('not a JWT');
  const response = await fetch(`${authUrl}/.well-known/jwks.json`);
  const { keys } = (await response.json()) as { keys: Array<{ kid: string }> };
  const jwk = keys.find((k) => k.kid === decoded.header.kid);
  if (!jwk) throw new Error(`kid ${decoded.header.kid} is not in the JWKS`);
  return jwt.verify(token, createPublicKey({ key: jwk, format: 'jwk' }), {
    algorithms: ['RS256'],
    issuer: `${authUrl}/`,
    audience,
  }) as jwt.JwtPayload;
}
