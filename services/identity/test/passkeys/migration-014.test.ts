import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { migrate } from '../../src/store/migrate';
import { migrations } from '../../src/store/migrations';
import { openSqlClient } from '../../src/store/sql-client';
import { adminToken, describeWithPostgres, dropSchema, quietMigrationContext, startTestIdentity, uniqueSchema } from '../helpers';

const OPTIONS = {
  name: 'sms',
  strategy: 'sms',
  provider: 'sms_gateway',
  gateway_url: 'http://127.0.0.1:4100/deliver',
  syntax: 'md_with_macros',
  template: 'Your code is @@password@@',
  totp: { time_step: 300, length: 6 },
  brute_force_protection: true,
  disable_signup: false,
  forward_req_info: false,
};

function migrationSuite(database: () => { databaseUrl: string; schema?: string }) {
  it('turns passkeys off for connections stored before it, while a connection created afterwards has them on', async () => {
    const { databaseUrl, schema } = database();
    const sql = await openSqlClient(databaseUrl, { schema });
    try {
      await migrate(sql, schema, migrations.filter((m) => m.version < 14), quietMigrationContext);
      await sql.query('INSERT INTO connections (id, name, strategy, options) VALUES ($1, $2, $3, $4::jsonb)', ['con_old', 'sms', 'sms', JSON.stringify(OPTIONS)]);
    } finally {
      await sql.close();
    }
    const identity = await startTestIdentity({ DATABASE_URL: databaseUrl }, { schema });
    try {
      const auth = { authorization: `Bearer ${await adminToken(identity.app)}` };
      const old = await request(identity.app).get('/api/v2/connections/con_old').set(auth);
      expect(old.body.options.passkeys).toEqual({ enabled: false, offer_after_sms_logins: 3, user_verification: 'required' });
      const created = await request(identity.app)
        .post('/api/v2/connections')
        .set(auth)
        .send({ name: 'sms-new', strategy: 'sms', options: { gateway_url: 'http://127.0.0.1:4100/deliver', template: 'Your code is @@password@@' } });
      expect(created.status).toBe(201);
      expect(created.body.options.passkeys).toEqual({ enabled: true, offer_after_sms_logins: 3, user_verification: 'required' });
      // A PATCH changes one field and keeps the others; a bad value is a 400 naming it.
      const patched = await request(identity.app).patch('/api/v2/connections/con_old').set(auth).send({ options: { passkeys: { enabled: true } } });
      expect(patched.body.options.passkeys).toEqual({ enabled: true, offer_after_sms_logins: 3, user_verification: 'required' });
      const bad = await request(identity.app).patch('/api/v2/connections/con_old').set(auth).send({ options: { passkeys: { user_verification: 'discouraged' } } });
      expect(bad.status).toBe(400);
      expect(JSON.stringify(bad.body)).toContain('options.passkeys.user_verification');
    } finally {
      await identity.close();
    }
  });
}

describe('migration 14 (passkeys) on a PGlite database', () => {
  const dir = mkdtempSync(join(tmpdir(), 'identity-migration-14-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  migrationSuite(() => ({ databaseUrl: `pglite:${join(dir, 'db')}` }));
});

describeWithPostgres('migration 14 (passkeys) on a PostgreSQL database', (databaseUrl) => {
  const schema = uniqueSchema('migration14');
  afterAll(() => dropSchema(databaseUrl, schema));
  migrationSuite(() => ({ databaseUrl, schema }));
});
