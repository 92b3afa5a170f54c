import { createPublicKey } from 'node:crypto';
import jwt from 'jsonwebtoken';
import request from 'supertest';
import { rsaThumbprint } from '../src/domain/tokens/key-material';
import { adminToken, startTestIdentity, type TestIdentity } from './helpers';

describe('signing keys, JWKS and rotation', () => {
  let identity: TestIdentity;
  let auth: { authorization: string };
  const jwks = async () => (await request(identity.app).get('/.well-known/jwks.json')).body.keys as Array<Record<string, string>>;
  const listKeys = async () => (await request(identity.app).get('/api/v2/keys/signing').set(auth)).body as Array<Record<string, unknown>>;
  const kidOf = (token: string) => jwt.decode(token, { complete: true })!.header.kid!;

  beforeAll(async () => {
    identity = await startTestIdentity();
  });
  // A fresh token per test: a token from two rotations back is (rightly) no longer accepted.
  beforeEach(async () => {
    auth = { authorization: `Bearer ${await adminToken(identity.app)}` };
  });
  afterAll(() => identity.close());

  it('publishes only public RSA keys with their RFC 7638 thumbprint as kid, cacheably', async () => {
    const res = await request(identity.app).get('/.well-known/jwks.json');
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toMatch(/^public, max-age=\d+$/);
    expect(res.body.keys).toHaveLength(1);
    const [key] = res.body.keys;
    expect(Object.keys(key).sort()).toEqual(['alg', 'e', 'kid', 'kty', 'n', 'use']);
    expect(key).toMatchObject({ kty: 'RSA', use: 'sig', alg: 'RS256', e: 'AQAB' });
    expect(key.kid).toBe(rsaThumbprint(key));
    expect(Buffer.from(key.n, 'base64url').length * 8).toBe(2048);
  });

  it('lists keys without private material', async () => {
    const res = await request(identity.app).get('/api/v2/keys/signing').set(auth);
    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      {
        kid: expect.any(String),
        alg: 'RS256',
        created_at: expect.any(String),
        current_since: expect.any(String),
        current_until: null,
        current: true,
        previous: false,
        revoked: false,
        revoked_at: null,
      },
    ]);
    expect(JSON.stringify(res.body)).not.toMatch(/PRIVATE|"d"/);
  });

  it('rotates: the new key signs, the old one stays published and its tokens keep working', async () => {
    const oldToken = await adminToken(identity.app);
    const oldKid = kidOf(oldToken);
    const rotated = await request(identity.app).post('/api/v2/keys/signing/rotate').set(auth);
    expect(rotated.status).toBe(201);
    expect(rotated.body).toMatchObject({ current: true, previous: false });
    expect(rotated.body.kid).not.toBe(oldKid);

    expect((await jwks()).map((k) => k.kid).sort()).toEqual([oldKid, rotated.body.kid].sort());
    const newToken = await adminToken(identity.app);
    expect(kidOf(newToken)).toBe(rotated.body.kid);
    expect((await request(identity.app).get('/api/v2/clients').set('authorization', `Bearer ${oldToken}`)).status).toBe(200);

    const oldJwk = (await jwks()).find((k) => k.kid === oldKid)!;
    expect(() => jwt.verify(oldToken, createPublicKey({ key: oldJwk, format: 'jwk' }), { algorithms: ['RS256'] })).not.toThrow();
    const old = (await listKeys()).find((k) => k.kid === oldKid);
    expect(old).toMatchObject({ current: false, previous: true, revoked: false, current_until: expect.any(String) });
  });

  it('unpublishes the key two rotations back, and refuses the tokens it signed', async () => {
    const before = (await jwks()).map((k) => k.kid);
    const tokenOfPrevious = await adminToken(identity.app);
    await request(identity.app).post('/api/v2/keys/signing/rotate').set(auth).expect(201);
    const rotated = await request(identity.app).post('/api/v2/keys/signing/rotate').set(auth);
    const after = (await jwks()).map((k) => k.kid);
    expect(after).toHaveLength(2);
    expect(after).toContain(rotated.body.kid);
    expect(before.filter((kid) => after.includes(kid))).toHaveLength(0);
    expect((await request(identity.app).get('/api/v2/clients').set('authorization', `Bearer ${tokenOfPrevious}`)).status).toBe(401);
  });

  it('revokes the previous key: gone from JWKS, its tokens refused', async () => {
    const tokenOfCurrent = await adminToken(identity.app);
    await request(identity.app).post('/api/v2/keys/signing/rotate').set(auth).expect(201);
    const previousKid = kidOf(tokenOfCurrent);
    const res = await request(identity.app).put(`/api/v2/keys/signing/${previousKid}/revoke`).set(auth);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ kid: previousKid, revoked: true, previous: false, revoked_at: expect.any(String) });
    expect((await jwks()).map((k) => k.kid)).not.toContain(previousKid);
    expect((await request(identity.app).get('/api/v2/clients').set('authorization', `Bearer ${tokenOfCurrent}`)).status).toBe(401);
  });

  it('refuses to revoke the current key with 409', async () => {
    const current = (await listKeys()).find((k) => k.current)!;
    const res = await request(identity.app).put(`/api/v2/keys/signing/${String(current.kid)}/revoke`).set(auth);
    expect(res.status).toBe(409);
    expect((await jwks()).map((k) => k.kid)).toContain(current.kid);
  });

  it('answers 404 for an unknown kid', async () => {
    expect((await request(identity.app).put('/api/v2/keys/signing/nope/revoke').set(auth)).status).toBe(404);
    expect((await request(identity.app).get('/api/v2/keys/signing/nope').set(auth)).status).toBe(404);
  });
});
