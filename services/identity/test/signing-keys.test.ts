import { createHash, createPublicKey, X509Certificate } from 'node:crypto';
import jwt from 'jsonwebtoken';
import request from 'supertest';
import { rsaThumbprint } from '../src/domain/tokens/key-material';
import { adminToken, describeWithPostgres, dropSchema, startTestIdentity, TestClock, uniqueSchema, type TestIdentity } from './helpers';

interface Jwk {
  kty: string;
  n: string;
  e: string;
  kid: string;
  use: string;
  alg: string;
  x5c: string[];
  x5t: string;
}

describe('signing keys, JWKS and rotation', () => {
  let identity: TestIdentity;
  let auth: { authorization: string };
  const jwks = async () => (await request(identity.app).get('/.well-known/jwks.json')).body.keys as Jwk[];
  const listKeys = async () => (await request(identity.app).get('/api/v2/keys/signing').set(auth)).body as Array<Record<string, unknown>>;
  const stateOf = (keys: Array<Record<string, unknown>>, kid: string) => {
    const key = keys.find((k) => k.kid === kid)!;
    return (['current', 'next', 'previous', 'revoked'] as const).filter((state) => key[state]);
  };
  const verifyWith = (token: string, key: Jwk) =>
    jwt.verify(token, createPublicKey({ key: { kty: key.kty, n: key.n, e: key.e }, format: 'jwk' }), { algorithms: ['RS256'] });

  beforeAll(async () => {
    identity = await startTestIdentity();
  });
  // A fresh token per test: a token from two rotations back is (rightly) no longer accepted.
  beforeEach(async () => {
    auth = { authorization: `Bearer ${await adminToken(identity.app)}` };
  });
  afterAll(() => identity.close());

  it('publishes the current and the next key, current first, with their RFC 7638 thumbprint as kid, cacheably', async () => {
    const res = await request(identity.app).get('/.well-known/jwks.json');
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toMatch(/^public, max-age=\d+$/);
    expect(res.body.keys).toHaveLength(2);
    const [current, next] = res.body.keys as Jwk[];
    expect(kidOf(await adminToken(identity.app))).toBe(current!.kid);
    expect(next!.kid).not.toBe(current!.kid);
    for (const key of [current!, next!]) {
      expect(Object.keys(key).sort()).toEqual(['alg', 'e', 'kid', 'kty', 'n', 'use', 'x5c', 'x5t']);
      expect(key).toMatchObject({ kty: 'RSA', use: 'sig', alg: 'RS256', e: 'AQAB' });
      expect(key.kid).toBe(rsaThumbprint({ kty: 'RSA', n: key.n, e: key.e }));
      expect(Buffer.from(key.n, 'base64url').length * 8).toBe(2048);
    }
  });

  it('gives each JWKS entry x5c, a certificate of that very key, and x5t, its SHA-1 thumbprint', async () => {
    for (const key of await jwks()) {
      expect(key.x5c).toHaveLength(1);
      const der = Buffer.from(key.x5c[0]!, 'base64');
      const cert = new X509Certificate(der);
      expect(cert.publicKey.export({ format: 'jwk' })).toEqual({ kty: 'RSA', n: key.n, e: key.e });
      // Self-signed: the certificate verifies with its own key, and names the service's host.
      expect(cert.verify(cert.publicKey)).toBe(true);
      expect(cert.subject).toBe('CN=identity.test');
      expect(key.x5t).toBe(createHash('sha1').update(der).digest('base64url'));
    }
  });

  it('lists key records with their PEM certificate, fingerprints and state, and without private material', async () => {
    const res = await request(identity.app).get('/api/v2/keys/signing').set(auth);
    expect(res.status).toBe(200);
    const [current, next] = (await jwks()).map((k) => k.kid);
    expect(res.body).toHaveLength(2);
    const record = res.body.find((k: { kid: string }) => k.kid === current);
    expect(record).toEqual({
      kid: current,
      alg: 'RS256',
      cert: expect.stringMatching(/^-----BEGIN CERTIFICATE-----\r?\n[\s\S]+-----END CERTIFICATE-----\r?\n?$/),
      fingerprint: expect.stringMatching(/^([0-9A-F]{2}:){19}[0-9A-F]{2}$/),
      thumbprint: expect.stringMatching(/^[0-9A-F]{40}$/),
      created_at: expect.any(String),
      current_since: expect.any(String),
      current_until: null,
      current: true,
      next: false,
      previous: false,
      revoked: false,
      revoked_at: null,
    });
    const cert = new X509Certificate(record.cert);
    expect(record.fingerprint).toBe(cert.fingerprint);
    expect(record.thumbprint).toBe(cert.fingerprint.replaceAll(':', ''));
    expect(stateOf(res.body, next!)).toEqual(['next']);
    expect(res.body.find((k: { kid: string }) => k.kid === next).current_since).toBeNull();
    expect(JSON.stringify(res.body)).not.toMatch(/PRIVATE|"d"/);
    expect((await request(identity.app).get(`/api/v2/keys/signing/${next}`).set(auth)).body).toMatchObject({ kid: next, next: true });
  });

  it('rotates: the next key signs, a JWKS fetched before the rotation verifies its tokens, and rotate answers the new next key', async () => {
    const jwksBefore = await jwks();
    const [oldCurrent, oldNext] = jwksBefore.map((k) => k.kid);
    const oldToken = await adminToken(identity.app);
    expect(kidOf(oldToken)).toBe(oldCurrent);

    const rotated = await request(identity.app).post('/api/v2/keys/signing/rotate').set(auth);
    expect(rotated.status).toBe(201);
    expect(Object.keys(rotated.body).sort()).toEqual(['cert', 'kid']);
    const newNext = rotated.body.kid as string;
    expect([oldCurrent, oldNext]).not.toContain(newNext);
    const records = await listKeys();
    expect(stateOf(records, newNext)).toEqual(['next']);
    expect(records.find((k) => k.kid === newNext)!.cert).toBe(rotated.body.cert);
    expect(stateOf(records, oldNext!)).toEqual(['current']);
    expect(stateOf(records, oldCurrent!)).toEqual(['previous']);
    expect(records.find((k) => k.kid === oldCurrent)).toMatchObject({ current_until: expect.any(String) });

    // The point of publishing the next key: the relying party needs no refetch.
    const newToken = await adminToken(identity.app);
    expect(kidOf(newToken)).toBe(oldNext);
    const keyHeldBefore = jwksBefore.find((k) => k.kid === kidOf(newToken))!;
    expect(() => verifyWith(newToken, keyHeldBefore)).not.toThrow();

    expect((await jwks()).map((k) => k.kid)).toEqual([oldNext, newNext, oldCurrent]);
    expect((await request(identity.app).get('/api/v2/clients').set('authorization', `Bearer ${oldToken}`)).status).toBe(200);
    expect((await request(identity.app).get('/api/v2/clients').set('authorization', `Bearer ${newToken}`)).status).toBe(200);
  });

  it('unpublishes the key two rotations back, and refuses the tokens it signed', async () => {
    const before = (await jwks()).map((k) => k.kid);
    const tokenOfCurrent = await adminToken(identity.app);
    await request(identity.app).post('/api/v2/keys/signing/rotate').set(auth).expect(201);
    await request(identity.app).post('/api/v2/keys/signing/rotate').set(auth).expect(201);
    const after = (await jwks()).map((k) => k.kid);
    expect(after).toHaveLength(3);
    expect(after).not.toContain(kidOf(tokenOfCurrent));
    expect(before.filter((kid) => after.includes(kid))).toHaveLength(1);
    expect((await request(identity.app).get('/api/v2/clients').set('authorization', `Bearer ${tokenOfCurrent}`)).status).toBe(401);
  });

  it('revokes the previous key: gone from JWKS, its tokens refused, current and next still published', async () => {
    const tokenOfCurrent = await adminToken(identity.app);
    await request(identity.app).post('/api/v2/keys/signing/rotate').set(auth).expect(201);
    const previousKid = kidOf(tokenOfCurrent);
    const res = await request(identity.app).put(`/api/v2/keys/signing/${previousKid}/revoke`).set(auth);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ kid: previousKid, cert: expect.any(String), revoked: true, previous: false, revoked_at: expect.any(String) });
    const published = await jwks();
    expect(published.map((k) => k.kid)).not.toContain(previousKid);
    expect(published).toHaveLength(2);
    expect((await request(identity.app).get('/api/v2/clients').set('authorization', `Bearer ${tokenOfCurrent}`)).status).toBe(401);
  });

  it('refuses to revoke the current or the next key with 409', async () => {
    const keys = await listKeys();
    for (const key of [keys.find((k) => k.current)!, keys.find((k) => k.next)!]) {
      const res = await request(identity.app).put(`/api/v2/keys/signing/${String(key.kid)}/revoke`).set(auth);
      expect(res.status).toBe(409);
      expect((await jwks()).map((k) => k.kid)).toContain(key.kid);
    }
  });

  it('gives a key stored without a certificate (by an instance older than migration 6, mid-deploy) one when it is read', async () => {
    const [current] = (await jwks()).map((k) => k.kid);
    await identity.sql.query('UPDATE signing_keys SET cert = NULL WHERE kid = $1', [current]);
    const record = (await request(identity.app).get(`/api/v2/keys/signing/${current}`).set(auth)).body;
    const cert = new X509Certificate(record.cert);
    expect(cert.publicKey.export({ format: 'jwk' })).toEqual(
      (({ kty, n, e }) => ({ kty, n, e }))((await jwks()).find((k) => k.kid === current)!),
    );
    const { rows } = await identity.sql.query<{ cert: string | null }>('SELECT cert FROM signing_keys WHERE kid = $1', [current]);
    expect(rows[0]!.cert).toBe(record.cert);
  });

  it('answers 404 for an unknown kid', async () => {
    expect((await request(identity.app).put('/api/v2/keys/signing/nope/revoke').set(auth)).status).toBe(404);
    expect((await request(identity.app).get('/api/v2/keys/signing/nope').set(auth)).status).toBe(404);
  });
});

describeWithPostgres('signing keys across replicas', (databaseUrl) => {
  const schema = uniqueSchema('replicas');
  afterAll(() => dropSchema(databaseUrl, schema));

  it('a replica that has not reloaded its keys accepts, and already publishes, the key of tokens another replica signs after rotating', async () => {
    // One frozen clock: neither replica's periodic reload comes due during the test.
    const clock = new TestClock();
    const env = { DATABASE_URL: databaseUrl };
    const a = await startTestIdentity(env, { schema, clock });
    const b = await startTestIdentity(env, { schema, clock });
    try {
      const jwksOf = async (replica: TestIdentity) => (await request(replica.app).get('/.well-known/jwks.json')).body.keys as Jwk[];
      const heldByB = await jwksOf(b);
      const auth = { authorization: `Bearer ${await adminToken(a.app)}` };
      await request(a.app).post('/api/v2/keys/signing/rotate').set(auth).expect(201);
      const token = await adminToken(a.app);
      expect(heldByB.map((k) => k.kid)).toContain(kidOf(token));
      expect((await request(b.app).get('/api/v2/clients').set('authorization', `Bearer ${token}`)).status).toBe(200);
      // B still signs with its current key, which A publishes as previous: both directions verify.
      const tokenOfB = await adminToken(b.app);
      expect((await jwksOf(a)).map((k) => k.kid)).toContain(kidOf(tokenOfB));
      expect((await request(a.app).get('/api/v2/clients').set('authorization', `Bearer ${tokenOfB}`)).status).toBe(200);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});

function kidOf(token: string): string {
  return jwt.decode(token, { complete: true })!.header.kid!;
}
