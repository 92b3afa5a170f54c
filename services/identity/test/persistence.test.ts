import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import request from 'supertest';
import { adminToken, describeWithPostgres, dropSchema, startTestIdentity, uniqueSchema } from './helpers';

const run = promisify(execFile);

/** Start, issue a token, stop; start again on the same database: everything is still there. */
function restartSuite(database: () => { env: Record<string, string>; schema?: string }) {
  it('keeps keys, clients and connections across a restart; tokens issued before still verify', async () => {
    const { env, schema } = database();
    const first = await startTestIdentity(env, { schema });
    let token: string;
    let kids: string[];
    let connectionId: string;
    try {
      token = await adminToken(first.app);
      kids = (await first.keyRing.jwks()).keys.map((k) => k.kid);
      const auth = { authorization: `Bearer ${token}` };
      const created = await request(first.app)
        .post('/api/v2/connections')
        .set(auth)
        .send({ options: { name: 'persisted', strategy: 'sms', provider: 'sms_gateway', gateway_url: 'http://gw.test/x', template: '@@password@@', gateway_authentication: { method: 'bearer', subject: 's', audience: 'a', secret: 'persisted-secret' } } });
      expect(created.status).toBe(201);
      connectionId = created.body.id;
    } finally {
      await first.close();
    }

    const second = await startTestIdentity(env, { schema });
    try {
      expect((await second.keyRing.jwks()).keys.map((k) => k.kid)).toEqual(kids);
      const res = await request(second.app).get(`/api/v2/connections/${connectionId}`).set('authorization', `Bearer ${token}`);
      expect(res.status).toBe(200);
      expect(res.body.name).toBe('persisted');
      expect((await second.store.connections.findById(connectionId))!.options.gateway_authentication!.secret).toBe('persisted-secret');
      expect(second.printed).toEqual([]);
    } finally {
      await second.close();
    }
  });
}

describe('persistence in a PGlite directory', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'identity-pglite-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  restartSuite(() => ({ env: { DATABASE_URL: `pglite:${join(dir, 'db')}`, KEY_ENCRYPTION_SECRET: 'p'.repeat(40) } }));

  it('starts on a copy of the directory taken while stopped (the embedded database\'s backup, docs/backups.md), with the same keys', async () => {
    const env = { KEY_ENCRYPTION_SECRET: 'p'.repeat(40) };
    const original = await startTestIdentity({ ...env, DATABASE_URL: `pglite:${join(dir, 'db')}` });
    const kids = (await original.keyRing.jwks()).keys.map((k) => k.kid);
    await original.close();
    await run('cp', ['-a', join(dir, 'db'), join(dir, 'db-backup')]);
    const copy = await startTestIdentity({ ...env, DATABASE_URL: `pglite:${join(dir, 'db-backup')}` });
    try {
      expect((await copy.keyRing.jwks()).keys.map((k) => k.kid)).toEqual(kids);
      expect((await copy.store.connections.findByName('persisted'))?.options.gateway_authentication?.secret).toBe('persisted-secret');
    } finally {
      await copy.close();
    }
  });

  it('prints generated admin credentials on the first start only', async () => {
    const env = { DATABASE_URL: `pglite:${join(dir, 'generated')}`, ADMIN_CLIENT_ID: '', ADMIN_CLIENT_SECRET: '' };
    const first = await startTestIdentity(env);
    await first.close();
    const second = await startTestIdentity(env);
    await second.close();
    expect(first.printed).toHaveLength(1);
    expect(second.printed).toEqual([]);
  });

  it('refuses to start when KEY_ENCRYPTION_SECRET differs from the one the keys were sealed with', async () => {
    const env = { DATABASE_URL: `pglite:${join(dir, 'db')}`, KEY_ENCRYPTION_SECRET: 'q'.repeat(40) };
    await expect(startTestIdentity(env)).rejects.toThrow(/KEY_ENCRYPTION_SECRET differs/);
  });

  it('refuses to start when a gateway secret was sealed with another KEY_ENCRYPTION_SECRET, also when the signing keys predate the secret', async () => {
    const DATABASE_URL = `pglite:${join(dir, 'keys-before-secret')}`;
    // Keys made without KEY_ENCRYPTION_SECRET stay unsealed, so they open with any secret.
    await (await startTestIdentity({ DATABASE_URL })).close();
    const sealing = await startTestIdentity({ DATABASE_URL, KEY_ENCRYPTION_SECRET: 'p'.repeat(40) });
    try {
      const created = await request(sealing.app)
        .post('/api/v2/connections')
        .set('authorization', `Bearer ${await adminToken(sealing.app)}`)
        .send({ options: { name: 'sealed', strategy: 'sms', provider: 'sms_gateway', gateway_url: 'http://gw.test/x', template: '@@password@@', gateway_authentication: { method: 'bearer', subject: 's', audience: 'a', secret: 'sealed-gateway-secret' } } });
      expect(created.status).toBe(201);
    } finally {
      await sealing.close();
    }
    await expect(startTestIdentity({ DATABASE_URL, KEY_ENCRYPTION_SECRET: 'q'.repeat(40) })).rejects.toThrow(
      'a stored secret cannot be decrypted: KEY_ENCRYPTION_SECRET differs from the one it was sealed with',
    );
    await expect(startTestIdentity({ DATABASE_URL })).rejects.toThrow('a stored secret is encrypted but KEY_ENCRYPTION_SECRET is not set');
  });
});

describeWithPostgres('persistence in PostgreSQL', (databaseUrl) => {
  const schema = uniqueSchema('persist');
  afterAll(() => dropSchema(databaseUrl, schema));
  restartSuite(() => ({ env: { DATABASE_URL: databaseUrl, KEY_ENCRYPTION_SECRET: 'p'.repeat(40) }, schema }));
});
