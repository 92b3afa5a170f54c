import { X509Certificate } from 'node:crypto';
import { detachedKeyPair } from '@smsauth/test-support';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import jwt from 'jsonwebtoken';
import request from 'supertest';
import { rsaThumbprint } from '../src/domain/tokens/key-material';
import { createSecretCipher } from '../src/store/secret-cipher';
import { migrate } from '../src/store/migrate';
import { migrations } from '../src/store/migrations';
import { openSqlClient } from '../src/store/sql-client';
import { ADMIN_CLIENT_ID, AUTH_URL, describeWithPostgres, dropSchema, MANAGEMENT_AUDIENCE, startTestIdentity, uniqueSchema } from './helpers';

const KEY_ENCRYPTION_SECRET = 'u'.repeat(40);

/**
 * A database as the service left it before migration 6: one current signing key, no next
 * key, no certificates, and a token that key signed. Returns that token and the key's kid.
 */
async function databaseBeforeMigration6(databaseUrl: string, schema: string | undefined): Promise<{ token: string; kid: string }> {
  const sql = await openSqlClient(databaseUrl, { schema });
  try {
    await migrate(sql, schema, migrations.filter((m) => m.version < 6));
    const { publicKey, privateKey } = detachedKeyPair('rsa', { modulusLength: 2048 });
    const jwk = publicKey.export({ format: 'jwk' });
    const kid = rsaThumbprint({ kty: 'RSA', n: jwk.n!, e: jwk.e! });
    const pem = privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
    const sealed = createSecretCipher(KEY_ENCRYPTION_SECRET).seal(pem, `signing_key:${kid}`);
    await sql.query(
      `INSERT INTO signing_keys (kid, alg, public_jwk, private_key, state, created_at, current_since)
       VALUES ($1, 'RS256', $2::jsonb, $3, 'current', now(), now())`,
      [kid, JSON.stringify({ kty: 'RSA', n: jwk.n, e: jwk.e }), sealed],
    );
    const token = jwt.sign(
      { sub: `${ADMIN_CLIENT_ID}@clients`, aud: MANAGEMENT_AUDIENCE, azp: ADMIN_CLIENT_ID, scope: 'read:clients read:signing_keys', gty: 'client-credentials' },
      privateKey,
      { algorithm: 'RS256', keyid: kid, issuer: `${AUTH_URL}/`, expiresIn: 3600 },
    );
    return { token, kid };
  } finally {
    await sql.close();
  }
}

function upgradeSuite(database: () => { databaseUrl: string; schema?: string }) {
  it('gives an existing database a next key and certificates at start, and keeps its tokens verifying', async () => {
    const { databaseUrl, schema } = database();
    const { token, kid } = await databaseBeforeMigration6(databaseUrl, schema);
    const identity = await startTestIdentity({ DATABASE_URL: databaseUrl, KEY_ENCRYPTION_SECRET }, { schema });
    try {
      const keys = (await request(identity.app).get('/.well-known/jwks.json')).body.keys as Array<{ kid: string; n: string; x5c: string[] }>;
      expect(keys).toHaveLength(2);
      expect(keys[0]!.kid).toBe(kid);
      for (const key of keys) {
        const cert = new X509Certificate(Buffer.from(key.x5c[0]!, 'base64'));
        expect(cert.publicKey.export({ format: 'jwk' }).n).toBe(key.n);
      }
      const auth = { authorization: `Bearer ${token}` };
      expect((await request(identity.app).get('/api/v2/clients').set(auth)).status).toBe(200);
      const records = (await request(identity.app).get('/api/v2/keys/signing').set(auth)).body as Array<{ kid: string; current: boolean; next: boolean; cert: string }>;
      expect(records.find((k) => k.kid === kid)).toMatchObject({ current: true, next: false, cert: expect.stringContaining('BEGIN CERTIFICATE') });
      expect(records.filter((k) => k.next)).toHaveLength(1);
      // New tokens are still signed by the key the relying parties already hold.
      const fresh = (await request(identity.app).post('/oauth/token').send({
        grant_type: 'client_credentials', client_id: ADMIN_CLIENT_ID, client_secret: identity.config.ADMIN_CLIENT_SECRET, audience: MANAGEMENT_AUDIENCE,
      })).body.access_token as string;
      expect(jwt.decode(fresh, { complete: true })!.header.kid).toBe(kid);
    } finally {
      await identity.close();
    }
  });
}

describe('upgrading a PGlite database to next keys and certificates', () => {
  const dir = mkdtempSync(join(tmpdir(), 'identity-upgrade-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  upgradeSuite(() => ({ databaseUrl: `pglite:${join(dir, 'db')}` }));
});

describeWithPostgres('upgrading a PostgreSQL database to next keys and certificates', (databaseUrl) => {
  const schema = uniqueSchema('upgrade');
  afterAll(() => dropSchema(databaseUrl, schema));
  upgradeSuite(() => ({ databaseUrl, schema }));
});
