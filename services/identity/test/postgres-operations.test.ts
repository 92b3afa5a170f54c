import { startTcpProxy } from '@smsauth/test-support';
import request from 'supertest';
import { openSqlClient } from '../src/store/sql-client';
import { migrate } from '../src/store/migrate';
import { migrations } from '../src/store/migrations';
import { phoneNumberMigrationContext } from '../src/domain/phone/stored-numbers';
import { describeWithPostgres, dropSchema, startTestIdentity, uniqueSchema } from './helpers';

describeWithPostgres('identity on PostgreSQL: concurrent starts and outages', (databaseUrl) => {
  const schemas: string[] = [];
  afterAll(async () => {
    for (const schema of schemas) await dropSchema(databaseUrl, schema);
  });

  it('lets two instances migrate one schema at the same moment, each migration applied once', async () => {
    const schema = uniqueSchema('migrate');
    schemas.push(schema);
    const [a, b] = await Promise.all([openSqlClient(databaseUrl, { schema }), openSqlClient(databaseUrl, { schema })]);
    try {
      const context = phoneNumberMigrationContext({ info: () => undefined, warn: () => undefined });
      const applied = await Promise.all([migrate(a!, schema, migrations, context), migrate(b!, schema, migrations, context)]);
      const versions = migrations.map((m) => m.version);
      expect(applied.flat()).toEqual(versions);
      const { rows } = await a!.query<{ version: number }>('SELECT version FROM schema_migrations');
      expect(rows.map((r) => r.version).sort((x, y) => x - y)).toEqual(versions);
    } finally {
      await Promise.all([a!.close(), b!.close()]);
    }
  });

  it('starts two instances on a fresh schema together: one current and one next signing key, one generated admin', async () => {
    const schema = uniqueSchema('twostart');
    schemas.push(schema);
    const env = { DATABASE_URL: databaseUrl, ADMIN_CLIENT_ID: '', ADMIN_CLIENT_SECRET: '' };
    const [a, b] = await Promise.all([startTestIdentity(env, { schema }), startTestIdentity(env, { schema })]);
    try {
      expect(a.printed.length + b.printed.length).toBe(1);
      expect((await a.keyRing.jwks()).keys).toEqual((await b.keyRing.jwks()).keys);
      expect((await a.store.signingKeys.list()).map((k) => k.state).sort()).toEqual(['current', 'next']);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('fails readiness while the database is unreachable and recovers by itself when it returns', async () => {
    const schema = uniqueSchema('ready');
    schemas.push(schema);
    const target = new URL(databaseUrl);
    const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    const identity = await startTestIdentity({ DATABASE_URL: proxy.proxiedUrl(databaseUrl) }, { schema });
    try {
      expect((await request(identity.app).get('/readyz')).status).toBe(200);
      await proxy.cut();
      const down = await request(identity.app).get('/readyz');
      expect(down.status).toBe(503);
      expect(down.body.status).toBe('not_ready');
      expect(down.body.checks.database).not.toBe('ok');
      await proxy.restore();
      const up = await request(identity.app).get('/readyz');
      expect(up.status).toBe(200);
      expect(up.body.checks).toEqual({ database: 'ok' });
      expect((await request(identity.app).get('/.well-known/jwks.json')).status).toBe(200);
    } finally {
      await identity.close();
      await proxy.close();
    }
  });

  it('fails readiness when nothing listens where the database should be', async () => {
    const schema = uniqueSchema('ready2');
    schemas.push(schema);
    const target = new URL(databaseUrl);
    const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    const identity = await startTestIdentity({ DATABASE_URL: proxy.proxiedUrl(databaseUrl) }, { schema });
    await proxy.close();
    try {
      const res = await request(identity.app).get('/readyz');
      expect(res.status).toBe(503);
    } finally {
      await identity.close();
    }
  });
});
