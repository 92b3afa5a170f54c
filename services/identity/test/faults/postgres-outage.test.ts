import { ErrorCodes, OAuthErrorBodySchema, RoTokenResponseSchema } from '@smsauth/contracts';
import { startTcpProxy, type TcpProxy } from '@smsauth/test-support';
import pg from 'pg';
import type { Response } from 'supertest';
import { DatabaseUnavailableError } from '../../src/store/availability';
import { KeyRing } from '../../src/domain/tokens/key-ring';
import { openStore } from '../../src/store';
import { createSecretCipher } from '../../src/store/secret-cipher';
import { openSqlClient } from '../../src/store/sql-client';
import { describeWithPostgres, dropSchema, uniqueSchema, testStoreOptions } from '../helpers';
import { FlowHarness, type LoginSetup } from '../passwordless/flow-harness';

const UNAVAILABLE = {
  error: ErrorCodes.SERVICE_UNAVAILABLE,
  error_description: 'The service is temporarily unavailable. Please try again shortly.',
};

/** Polls `check` until it returns true; fails with `what` after `timeoutMs`. */
async function eventually(what: string, check: () => Promise<boolean> | boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`timed out waiting until ${what}`);
}

/** A 503 that tells the caller to retry, in the contracts error shape, with no driver text in it. */
function expectUnavailable(res: Response): void {
  expect(res.status).toBe(503);
  expect(OAuthErrorBodySchema.parse(res.body)).toEqual(UNAVAILABLE);
  expect(res.headers['retry-after']).toBe('5');
  expect(res.text).not.toMatch(/ECONN|terminated|pg|postgres|select|insert|stack|at /i);
}

interface Row {
  [column: string]: unknown;
}

/** Reads the schema straight from PostgreSQL, bypassing the proxy and the service. */
async function snapshot(databaseUrl: string, schema: string, phones: string[]): Promise<{ users: Row[]; codes: Row[]; keys: Row[] }> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(`SET search_path TO ${schema}`);
    const users = await client.query('SELECT * FROM users ORDER BY user_id');
    const codes = await client.query('SELECT * FROM one_time_codes WHERE phone_number = ANY($1) ORDER BY phone_number', [phones]);
    const keys = await client.query('SELECT kid, state, public_jwk, private_key, current_since, current_until FROM signing_keys ORDER BY kid');
    return { users: users.rows, codes: codes.rows, keys: keys.rows };
  } finally {
    await client.end();
  }
}

/**
 * Requests that keep the service busy (reads, single-statement writes, transactions) until
 * stopped, recording every status. Each uses a caller of its own, so limits never interfere.
 */
function startLoad(h: FlowHarness, setup: LoginSetup, workers = 4) {
  const statuses: Array<{ kind: string; status: number; body: unknown }> = [];
  let running = true;
  const requests = [
    async () => ({ kind: 'start', res: await h.start({ client_id: setup.clientId, connection: setup.connection, phone_number: h.caller().phone, send: 'code' }) }),
    async () => ({ kind: 'ro', res: await h.ro(setup, h.caller(), '000000') }),
    async () => ({ kind: 'users', res: await h.management('get', '/users') }),
    async () => ({ kind: 'create-client', res: await h.management('post', '/clients', { name: 'Load', app_type: 'native' }) }),
  ];
  const loops = Array.from({ length: workers }, async (_, worker) => {
    for (let i = worker; running; i += 1) {
      try {
        const { kind, res } = await requests[i % requests.length]!();
        statuses.push({ kind, status: res.status, body: res.body });
      } catch (err) {
        statuses.push({ kind: 'transport', status: 0, body: String(err) });
      }
    }
  });
  return {
    statuses,
    count: (predicate: (s: { status: number }) => boolean) => statuses.filter(predicate).length,
    async stop() {
      running = false;
      await Promise.all(loops);
    },
  };
}

describeWithPostgres('identity during a PostgreSQL outage (faults)', (databaseUrl) => {
  const schema = uniqueSchema('outage');
  let proxy: TcpProxy;
  let h: FlowHarness;

  /** Through the proxy, and named, so the test can find (and terminate) exactly its own backends. */
  const serviceDatabaseUrl = () => {
    const url = new URL(proxy.proxiedUrl(databaseUrl));
    url.searchParams.set('application_name', schema);
    return url.toString();
  };

  beforeAll(async () => {
    const target = new URL(databaseUrl);
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    h = await FlowHarness.start(
      { TRUST_PROXY: 'true', PASSWORDLESS_START_LIMIT_PER_IP_PER_HOUR: '100000', PASSWORDLESS_START_LIMIT_PER_PHONE_PER_HOUR: '1000' },
      { database: { name: 'PostgreSQL', env: { DATABASE_URL: serviceDatabaseUrl() }, schema } },
    );
  });
  afterAll(async () => {
    await h?.close();
    await proxy?.close();
    await dropSchema(databaseUrl, schema);
  });

  it('answers 503 while PostgreSQL is cut under load, recovers by itself, and loses nothing committed before', async () => {
    // Committed before the outage: a user with tokens, a pending code, a rotated key pair.
    const setup = await h.loginSetup();
    const loggedIn = h.caller();
    const login = await h.ro(setup, loggedIn, await h.sendCode(setup, loggedIn));
    expect(login.status).toBe(200);
    const { id_token: idTokenBefore } = RoTokenResponseSchema.parse(login.body);
    expect((await h.management('post', '/keys/signing/rotate')).status).toBe(201);
    const pending = h.caller();
    const pendingCode = await h.sendCode(setup, pending);
    const before = await snapshot(databaseUrl, schema, [loggedIn.phone, pending.phone]);
    expect(before.users).toHaveLength(1);
    expect(before.codes).toHaveLength(2);
    expect(before.keys.map((k) => k.state).sort()).toEqual(['current', 'next', 'previous']);

    const load = startLoad(h, setup);
    try {
      await eventually('the load is running', () => load.count((s) => s.status < 500 && s.status > 0) >= 20);

      await proxy.cut();
      const down = await h.http().get('/readyz');
      expect(down.status).toBe(503);
      expect(down.body).toMatchObject({ status: 'not_ready', checks: { database: expect.stringMatching(/^database unavailable: /) } });
      await eventually('the load meets the outage', () => load.count((s) => s.status === 503) >= 8);

      // Every kind of call answers the same clear 503 while the database is away.
      const who = h.caller();
      expectUnavailable(await h.start({ client_id: setup.clientId, connection: setup.connection, phone_number: who.phone, send: 'code' }));
      expectUnavailable(await h.ro(setup, pending, '123456'));
      expectUnavailable(await h.management('get', '/users'));
      expectUnavailable(await h.management('post', '/clients', { name: 'During outage', app_type: 'native' }));
      expectUnavailable(await h.http().post('/oauth/token').send({ grant_type: 'client_credentials', client_id: 'test-admin', client_secret: 'x'.repeat(40), audience: 'http://identity.test/api/v2/' }));

      await proxy.restore();
      await eventually('readiness recovers', async () => (await h.http().get('/readyz')).status === 200);
      const servedAfter = load.statuses.length;
      await eventually('the load is served again', () => load.statuses.slice(servedAfter).filter((s) => s.status < 500).length >= 20);
    } finally {
      await proxy.restore().catch(() => undefined);
      await load.stop();
    }

    // Under load, each call either did its job or answered 503: never a 500, never a dropped socket.
    const expected: Record<string, number[]> = { start: [200, 503], ro: [401, 503], users: [200, 503], 'create-client': [201, 503] };
    const unexpected = load.statuses.filter((s) => !expected[s.kind]?.includes(s.status));
    expect(unexpected).toEqual([]);
    for (const s of load.statuses.filter((x) => x.status === 503)) expect(s.body).toEqual(UNAVAILABLE);

    // Nothing committed before the cut was lost or changed.
    const after = await snapshot(databaseUrl, schema, [loggedIn.phone, pending.phone]);
    expect(after.users).toEqual(before.users);
    expect(after.codes).toEqual(before.codes);
    expect(after.keys).toEqual(before.keys);

    // And the service works on without a restart: the pending code, the old token, a new login.
    const exchanged = await h.ro(setup, pending, pendingCode);
    expect(exchanged.status).toBe(200);
    await h.verifyWithJwks(RoTokenResponseSchema.parse(exchanged.body).id_token!, setup.clientId);
    await h.verifyWithJwks(idTokenBefore!, setup.clientId);
    const fresh = h.caller();
    expect((await h.ro(setup, fresh, await h.sendCode(setup, fresh))).status).toBe(200);
  });

  it('shows the hosted login a 503 page, not the generic failure, while PostgreSQL is cut', async () => {
    const callback = 'https://app.example.com/callback';
    const created = await h.management('post', '/clients', {
      name: 'Outage SPA',
      app_type: 'spa',
      callbacks: [callback],
      grant_types: ['http://auth0.com/oauth/grant-type/passwordless/otp'],
    });
    expect(created.status).toBe(201);
    const query = { client_id: created.body.client_id, redirect_uri: callback, response_type: 'token', state: 's' };
    await proxy.cut();
    try {
      const res = await h.http().get('/authorize').query(query);
      expect(res.status).toBe(503);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.headers['retry-after']).toBe('5');
      expect(res.text).toContain('Temporarily unavailable');
      expect(res.text).not.toMatch(/ECONN|terminated|postgres/i);
    } finally {
      await proxy.restore();
    }
    // Back to what this request gets normally (the client has no SMS connection: an error redirect).
    await eventually('the request is answered again', async () => (await h.http().get('/authorize').query(query)).status === 302);
  });

  it('keeps publishing and signing with the keys it holds when a periodic key reload meets the outage', async () => {
    const opened = await openStore(serviceDatabaseUrl(), createSecretCipher(undefined), {
      schema,
      ...testStoreOptions,
    });
    const realNow = Date.now.bind(Date);
    const clock = { now: () => new Date(realNow()) };
    try {
      const ring = await KeyRing.open(opened.store, clock);
      const before = await ring.jwks();
      const signingKid = ring.currentKey().kid;
      await proxy.cut();
      // 31 s later the ring considers its keys stale and tries the database, which is away.
      const later = jest.spyOn(Date, 'now').mockImplementation(() => realNow() + 31_000);
      try {
        expect(await ring.jwks()).toEqual(before);
        expect(ring.currentKey().kid).toBe(signingKid);
      } finally {
        later.mockRestore();
        await proxy.restore();
      }
      // Once the database answers, the next reload after the retry interval succeeds again.
      expect(await ring.jwks()).toEqual(before);
    } finally {
      await opened.close();
    }
  });

  it('fails readiness while PostgreSQL hangs, and carries on when it answers again', async () => {
    expect((await h.http().get('/readyz')).status).toBe(200);
    proxy.pause();
    try {
      // The readiness check gives up after its own 2 s timeout instead of hanging the probe.
      const down = await h.http().get('/readyz');
      expect(down.status).toBe(503);
      expect(down.body.checks.database).toMatch(/timed out/);
    } finally {
      await proxy.restore();
    }
    await eventually('readiness recovers', async () => (await h.http().get('/readyz')).status === 200);
    expect((await h.management('get', '/users')).status).toBe(200);
  });

  it('turns a connection lost in the middle of a transaction into a 503 and rolls it back', async () => {
    const sql = await openSqlClient(proxy.proxiedUrl(databaseUrl), { schema });
    try {
      await sql.exec('CREATE TABLE IF NOT EXISTS outage_probe (id integer PRIMARY KEY)');
      const attempt = sql.transaction(async (tx) => {
        await tx.query('INSERT INTO outage_probe (id) VALUES (1)');
        await proxy.cut();
        // Let the reset reach the idle-in-transaction connection before the next statement.
        await new Promise((resolve) => setTimeout(resolve, 100));
        await tx.query('INSERT INTO outage_probe (id) VALUES (2)');
      });
      await expect(attempt).rejects.toBeInstanceOf(DatabaseUnavailableError);
      await expect(sql.query('SELECT 1')).rejects.toBeInstanceOf(DatabaseUnavailableError);
      await proxy.restore();
      const { rows } = await sql.query('SELECT id FROM outage_probe');
      expect(rows).toEqual([]);
    } finally {
      await proxy.restore();
      await sql.close();
    }
  });

  it('rides out a server-side termination of its connections under load (57P01, as in a PostgreSQL restart) with no error to a caller beyond a retry the same sweep terminates', async () => {
    const setup = await h.loginSetup();
    const load = startLoad(h, setup);
    const admin = new pg.Client({ connectionString: databaseUrl });
    await admin.connect();
    try {
      await eventually('the load is running', () => load.count((s) => s.status > 0 && s.status < 500) >= 20);
      for (let round = 0; round < 3; round += 1) {
        const served = load.statuses.length;
        const { rows } = await admin.query<{ terminated: boolean }>(
          'SELECT pg_terminate_backend(pid) AS terminated FROM pg_stat_activity WHERE application_name = $1',
          [schema],
        );
        expect(rows.length).toBeGreaterThan(0);
        await eventually('the load goes on after the termination', () => load.statuses.length >= served + 10);
      }
    } finally {
      await admin.end();
      await load.stop();
    }
    // What was in flight ran again on a fresh connection: every call did its job, with one
    // exception, most likely (not proven) a call whose retry lands on a connection the same sweep also terminates (one
    // opened while pg_terminate_backend walked pg_stat_activity) is retried only once, and
    // answers 503. Seen once in a loaded full run; at most one such call per termination round.
    const expected: Record<string, number[]> = { start: [200], ro: [401], users: [200], 'create-client': [201] };
    const unexpected = load.statuses.filter((s) => !expected[s.kind]?.includes(s.status));
    expect(unexpected.filter((s) => s.status !== 503)).toEqual([]);
    expect(unexpected.length).toBeLessThanOrEqual(3);
    expect((await h.http().get('/readyz')).status).toBe(200);
  });
});
