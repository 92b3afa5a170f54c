import { createPublicKey } from 'node:crypto';
import jwt from 'jsonwebtoken';
import request from 'supertest';
import { adminToken, AUTH_URL, MANAGEMENT_AUDIENCE, startTestIdentity, type TestIdentity } from './helpers';

interface Jwk {
  kty: string;
  n: string;
  e: string;
  kid: string;
}

/** The parts of a compact JWS, decoded; the signature left as text. */
function partsOf(token: string): { header: Record<string, unknown>; payload: Record<string, unknown>; signature: string } {
  const [header, payload, signature] = token.split('.');
  const json = (segment: string | undefined) => JSON.parse(Buffer.from(segment!, 'base64url').toString('utf8')) as Record<string, unknown>;
  return { header: json(header), payload: json(payload), signature: signature! };
}

describe('the token signer (RS256 on the thread pool, compact serialisation of its own)', () => {
  let identity: TestIdentity;
  const jwks = async () => (await request(identity.app).get('/.well-known/jwks.json')).body.keys as Jwk[];
  const publicKeyOf = (key: Jwk) => createPublicKey({ key: { kty: key.kty, n: key.n, e: key.e }, format: 'jwk' });

  beforeAll(async () => {
    identity = await startTestIdentity();
  });
  afterAll(() => identity.close());

  it('issues a token whose header is exactly alg, typ and the current kid, and whose signature the published key verifies', async () => {
    const token = await adminToken(identity.app);
    const { header, payload, signature } = partsOf(token);
    const [current] = await jwks();
    expect(header).toEqual({ alg: 'RS256', typ: 'JWT', kid: current!.kid });
    expect(Object.keys(header)).toEqual(['alg', 'typ', 'kid']);
    // 2048-bit RSA: 256 bytes of signature, base64url without padding.
    expect(signature).toMatch(/^[A-Za-z0-9_-]{342}$/);
    const verified = jwt.verify(token, publicKeyOf(current!), { algorithms: ['RS256'], issuer: `${AUTH_URL}/`, audience: MANAGEMENT_AUDIENCE });
    expect(verified).toMatchObject({ iss: `${AUTH_URL}/`, aud: MANAGEMENT_AUDIENCE, gty: 'client-credentials' });
    expect((payload.exp as number) - (payload.iat as number)).toBe(86_400);
  });

  it('signs many tokens in parallel, each with its own valid signature over its own claims', async () => {
    const tokens = await Promise.all(Array.from({ length: 40 }, (_, i) => adminToken(identity.app, i % 2 ? 'read:users' : 'read:clients')));
    const [current] = await jwks();
    for (const [i, token] of tokens.entries()) {
      const verified = jwt.verify(token, publicKeyOf(current!), { algorithms: ['RS256'] }) as jwt.JwtPayload;
      expect(verified.scope).toBe(i % 2 ? 'read:users' : 'read:clients');
    }
  });

  it('refuses a token whose payload was swapped under another token\'s signature', async () => {
    const users = partsOf(await adminToken(identity.app, 'read:users'));
    const forged = (await adminToken(identity.app, 'read:clients')).split('.');
    const [current] = await jwks();
    const tampered = `${forged[0]}.${Buffer.from(JSON.stringify(users.payload)).toString('base64url')}.${forged[2]}`;
    expect(() => jwt.verify(tampered, publicKeyOf(current!), { algorithms: ['RS256'] })).toThrow('invalid signature');
    const res = await request(identity.app).get('/api/v2/users').set({ authorization: `Bearer ${tampered}` });
    expect(res.status).toBe(401);
  });

  it('takes the new kid into the header once a rotation makes the next key current', async () => {
    const auth = { authorization: `Bearer ${await adminToken(identity.app)}` };
    const before = partsOf(await adminToken(identity.app)).header.kid;
    expect((await request(identity.app).post('/api/v2/keys/signing/rotate').set(auth)).status).toBe(201);
    const token = await adminToken(identity.app);
    const [current] = await jwks();
    expect(current!.kid).not.toBe(before);
    expect(partsOf(token).header).toEqual({ alg: 'RS256', typ: 'JWT', kid: current!.kid });
    expect(() => jwt.verify(token, publicKeyOf(current!), { algorithms: ['RS256'] })).not.toThrow();
  });
});
