import { createSecretCipher } from '../src/store/secret-cipher';
import { generateSigningKey } from '../src/domain/tokens/key-material';
import { openStore, MissingReferenceError, UniqueViolationError, type OpenedStore } from '../src/store';
import { migrate } from '../src/store/migrate';
import { migrations } from '../src/store/migrations';
import { dropSchema, TEST_DATABASE_URL, uniqueSchema, testStoreOptions } from './helpers';

const KEY = 'k'.repeat(40);

interface Driver {
  name: string;
  url: string;
  schema: string;
}

const drivers: Driver[] = [{ name: 'PGlite', url: 'memory://', schema: 'public' }];
if (TEST_DATABASE_URL) drivers.push({ name: 'PostgreSQL', url: TEST_DATABASE_URL, schema: uniqueSchema('store_test') });
else console.warn('SKIPPED: the store suite on PostgreSQL needs TEST_DATABASE_URL; running it on PGlite only');

const options = (overrides: Record<string, unknown> = {}) => ({
  name: 'sms',
  strategy: 'sms' as const,
  provider: 'sms_gateway' as const,
  gateway_url: 'http://gateway.test/deliver',
  syntax: 'md_with_macros' as const,
  template: 'Code @@password@@',
  totp: { time_step: 300, length: 6 },
  brute_force_protection: true,
  disable_signup: false,
  forward_req_info: false as const,
  ...overrides,
});

const client = (id: string) => ({
  client_id: id,
  name: id,
  app_type: 'native' as const,
  callbacks: [],
  allowed_origins: [],
  grant_types: [],
  default_audience: null,
  secret_hash: null,
  system_role: null,
});

describe.each(drivers)('identity store on $name', (driver) => {
  let opened: OpenedStore;
  beforeAll(async () => {
    opened = await openStore(driver.url, createSecretCipher(KEY), {
      schema: driver.schema,
      ...testStoreOptions,
    });
  });
  afterAll(async () => {
    await opened.close();
    if (driver.name === 'PostgreSQL') await dropSchema(driver.url, driver.schema);
  });

  it('records applied migrations and applies nothing twice', async () => {
    const { rows } = await opened.sql.query<{ version: number }>('SELECT version FROM schema_migrations');
    expect(rows.map((r) => r.version).sort((x, y) => x - y)).toEqual(migrations.map((m) => m.version));
    expect(await migrate(opened.sql, driver.schema)).toEqual([]);
  });

  it('creates every table, including those of the passwordless flow', async () => {
    const { rows } = await opened.sql.query<{ table_name: string }>(
      'SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()',
    );
    expect(rows.map((r) => r.table_name)).toEqual(
      expect.arrayContaining([
        'clients', 'connections', 'connection_clients', 'resource_servers', 'client_grants', 'users', 'signing_keys',
        'one_time_codes', 'login_failures_by_ip', 'login_failures_by_phone', 'rate_limit_counters', 'refresh_tokens', 'access_tokens',
      ]),
    );
  });

  it('stores clients and refuses a duplicate client_id', async () => {
    await opened.store.clients.insert(client('c1'));
    expect(await opened.store.clients.findById('c1')).toMatchObject({ client_id: 'c1', app_type: 'native', grant_types: [] });
    await expect(opened.store.clients.insert(client('c1'))).rejects.toBeInstanceOf(UniqueViolationError);
  });

  it('keeps enabled_clients in order and drops a deleted client from them', async () => {
    await opened.store.clients.insert(client('c2'));
    await opened.store.clients.insert(client('c3'));
    const created = await opened.store.transaction((tx) =>
      tx.connections.insert({ id: 'con_1', options: options({ name: 'ordered' }), enabled_clients: ['c3', 'c2'] }),
    );
    expect(created.enabled_clients).toEqual(['c3', 'c2']);
    await opened.store.clients.delete('c3');
    expect((await opened.store.connections.findByName('ordered'))!.enabled_clients).toEqual(['c2']);
  });

  it('refuses enabled_clients naming a missing client', async () => {
    await expect(
      opened.store.transaction((tx) => tx.connections.insert({ id: 'con_x', options: options({ name: 'dangling' }), enabled_clients: ['nope'] })),
    ).rejects.toBeInstanceOf(MissingReferenceError);
    expect(await opened.store.connections.findByName('dangling')).toBeUndefined();
  });

  it('seals the gateway secret at rest and opens it on read', async () => {
    const gateway_authentication = { method: 'bearer' as const, subject: 's', audience: 'a', secret: 'gateway-secret-value', secret_base64_encoded: false };
    await opened.store.transaction((tx) =>
      tx.connections.insert({ id: 'con_2', options: options({ name: 'sealed', gateway_authentication }), enabled_clients: [] }),
    );
    const { rows } = await opened.sql.query<Record<string, unknown>>("SELECT * FROM connections WHERE id = 'con_2'");
    expect(JSON.stringify(rows)).not.toContain('gateway-secret-value');
    expect((await opened.store.connections.findById('con_2'))!.options.gateway_authentication!.secret).toBe('gateway-secret-value');
  });

  it('keeps signing keys encrypted at rest and walks them next -> current -> previous -> retired', async () => {
    const at = new Date('2030-01-01T00:00:00Z');
    const [first, second, third, fourth] = await Promise.all([1, 2, 3, 4].map(() => generateSigningKey('keys.example.com', at)));
    expect(await opened.store.transaction((tx) => tx.signingKeys.insertIfNone(first!, 'current', at))).toBe(true);
    expect(await opened.store.transaction((tx) => tx.signingKeys.insertIfNone(second!, 'current', at))).toBe(false);
    expect(await opened.store.transaction((tx) => tx.signingKeys.rotate(second!, at))).toBe(false);
    expect(await opened.store.transaction((tx) => tx.signingKeys.insertIfNone(second!, 'next', at))).toBe(true);
    expect(await opened.store.transaction((tx) => tx.signingKeys.rotate(third!, at))).toBe(true);
    expect(await opened.store.transaction((tx) => tx.signingKeys.rotate(fourth!, at))).toBe(true);
    const states = Object.fromEntries((await opened.store.signingKeys.list()).map((k) => [k.kid, k.state]));
    expect(states).toEqual({ [first!.kid]: 'retired', [second!.kid]: 'previous', [third!.kid]: 'current', [fourth!.kid]: 'next' });
    expect((await opened.store.signingKeys.findByKid(third!.kid))!.private_key).toBe(third!.private_key);
    expect((await opened.store.signingKeys.findByKid(fourth!.kid))!.cert).toBe(fourth!.cert);
    const { rows } = await opened.sql.query<{ private_key: string }>('SELECT private_key FROM signing_keys');
    for (const row of rows) expect(row.private_key).not.toContain('PRIVATE KEY');
    expect(await opened.store.transaction((tx) => tx.signingKeys.revoke(third!.kid, at))).toBe('current');
    expect(await opened.store.transaction((tx) => tx.signingKeys.revoke(fourth!.kid, at))).toBe('next');
    expect((await opened.store.signingKeys.findByKid(third!.kid))!.state).toBe('current');
    expect((await opened.store.signingKeys.findByKid(fourth!.kid))!.state).toBe('next');
  });

  it('counts rate-limit hits per window, restarting in a new window, without losing parallel hits', async () => {
    const hour = new Date('2030-01-01T10:00:00Z');
    const counts = await Promise.all(Array.from({ length: 20 }, () => opened.store.rateLimits.hit('ip:1', hour)));
    expect([...counts].sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(await opened.store.rateLimits.hit('ip:1', new Date('2030-01-01T11:00:00Z'))).toBe(1);
    // A straggler from the old window counts in the current one instead of resetting it.
    expect(await opened.store.rateLimits.hit('ip:1', hour)).toBe(2);
  });

  it('creates one user on parallel first logins and counts each login', async () => {
    const at = new Date('2030-01-01T00:00:00Z');
    await Promise.all(
      ['sms|a', 'sms|b', 'sms|c'].map((user_id) => opened.store.users.recordLogin({ user_id, connection_id: 'con_1', phone_number: '+14155559001', at })),
    );
    const users = await opened.store.users.list({ where: { field: 'phone_number', equals: '+14155559001' }, offset: 0, limit: 10 });
    expect(users).toHaveLength(1);
    expect(users[0]).toMatchObject({ phone_verified: true, logins_count: 3, connection_name: 'ordered' });
    expect(await opened.store.users.list({ where: { field: 'phone_number', pattern: ['', '5559001', ''] }, offset: 0, limit: 10 })).toHaveLength(1);
    expect(await opened.store.users.list({ where: { field: 'phone_number', pattern: ['', '%', ''] }, offset: 0, limit: 10 })).toHaveLength(0);
  });

  it('lists and clears brute-force blocks of a number', async () => {
    const now = new Date('2030-01-01T00:00:00Z');
    await opened.sql.query(
      `INSERT INTO login_failures_by_ip (phone_number, ip, failures, blocked_until) VALUES
       ('+14155559002', '203.0.113.1', 10, '2030-01-02T00:00:00Z'), ('+14155559002', '203.0.113.2', 3, NULL)`,
    );
    await opened.sql.query("INSERT INTO login_failures_by_phone (phone_number, consecutive_failures, locked_at) VALUES ('+14155559002', 100, now())");
    expect(await opened.store.userBlocks.list('+14155559002', now)).toEqual([
      { phone_number: '+14155559002' },
      { phone_number: '+14155559002', ip: '203.0.113.1' },
    ]);
    await opened.store.userBlocks.clear('+14155559002');
    expect(await opened.store.userBlocks.list('+14155559002', now)).toEqual([]);
    const { rows } = await opened.sql.query("SELECT * FROM login_failures_by_ip WHERE phone_number = '+14155559002'");
    expect(rows).toEqual([]);
  });

  it('rolls a transaction back when it throws', async () => {
    await expect(
      opened.store.transaction(async (tx) => {
        await tx.clients.insert(client('rolled-back'));
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await opened.store.clients.findById('rolled-back')).toBeUndefined();
  });

  it('cascades a resource server identifier to its grants and deletes them with it', async () => {
    await opened.store.resourceServers.insert({ id: 'rs_1', name: 'api', identifier: 'https://api', signing_alg: 'RS256', token_lifetime: 60, scopes: [], is_system: true });
    await opened.store.clientGrants.insert({ id: 'cgr_1', client_id: 'c1', audience: 'https://api', scope: [] });
    await opened.store.resourceServers.upsertSystem({ id: 'rs_ignored', name: 'Auth0 Management API', identifier: 'https://api2', signing_alg: 'RS256', token_lifetime: 60, scopes: [], is_system: true });
    expect((await opened.store.clientGrants.findById('cgr_1'))!.audience).toBe('https://api2');
    // Every start names it as the service does now (releases before issue 43 called it "Management API").
    expect((await opened.store.resourceServers.findById('rs_1'))!.name).toBe('Auth0 Management API');
    await opened.store.resourceServers.delete('rs_1');
    expect(await opened.store.clientGrants.findById('cgr_1')).toBeUndefined();
  });

  it('loads the client, the API and their grant in one lookup, each missing part undefined', async () => {
    await opened.store.clients.insert(client('m2m'));
    const scopes = [{ value: 'read:x', description: 'read' }];
    await opened.store.resourceServers.insert({ id: 'rs_ctx', name: 'ctx', identifier: 'https://ctx', signing_alg: 'RS256', token_lifetime: 90, scopes, is_system: false });
    await opened.store.resourceServers.insert({ id: 'rs_other', name: 'other', identifier: 'https://other', signing_alg: 'RS256', token_lifetime: 60, scopes: [], is_system: false });
    await opened.store.clientGrants.insert({ id: 'cgr_ctx', client_id: 'm2m', audience: 'https://ctx', scope: ['read:x'] });

    const full = await opened.store.clientGrants.findClientCredentialsContext('m2m', 'https://ctx');
    expect(full.client).toEqual(await opened.store.clients.findById('m2m'));
    expect(full.api).toEqual(await opened.store.resourceServers.findByIdentifier('https://ctx'));
    expect(full.grant).toEqual(await opened.store.clientGrants.findById('cgr_ctx'));
    expect(full.client!.created_at).toBeInstanceOf(Date);

    const noGrant = await opened.store.clientGrants.findClientCredentialsContext('m2m', 'https://other');
    expect([noGrant.client?.client_id, noGrant.api?.identifier, noGrant.grant]).toEqual(['m2m', 'https://other', undefined]);
    const noApi = await opened.store.clientGrants.findClientCredentialsContext('m2m', 'https://nowhere');
    expect([noApi.client?.client_id, noApi.api, noApi.grant]).toEqual(['m2m', undefined, undefined]);
    const noClient = await opened.store.clientGrants.findClientCredentialsContext('ghost', 'https://ctx');
    expect([noClient.client, noClient.api?.identifier, noClient.grant]).toEqual([undefined, 'https://ctx', undefined]);
  });

  it('counts the second rate-limit key only while the first is within its limit', async () => {
    const hour = new Date('2030-01-01T10:00:00Z');
    const hits = [];
    for (let i = 0; i < 4; i += 1) hits.push(await opened.store.rateLimits.hitGuarded({ key: 'g:ip', limit: 2 }, 'g:phone', hour));
    expect(hits).toEqual([
      { first: 1, second: 1 },
      { first: 2, second: 2 },
      { first: 3, second: null },
      { first: 4, second: null },
    ]);
    // The refused hits left the second counter where it was.
    expect(await opened.store.rateLimits.hit('g:phone', hour)).toBe(3);
    const parallel = await Promise.all(Array.from({ length: 12 }, () => opened.store.rateLimits.hitGuarded({ key: 'g:ip2', limit: 100 }, 'g:phone2', hour)));
    expect(parallel.map((h) => h.first).sort((a, b) => a - b)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
    expect(parallel.map((h) => h.second).sort((a, b) => a! - b!)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
  });

  describe('passwordless login statements', () => {
    const at = new Date('2030-01-01T00:00:00Z');
    const phone = '+14155559009';
    const code = (request_id: string) => ({
      connection_id: 'con_pl',
      phone_number: phone,
      request_id,
      client_id: 'pl_app',
      auth_params: {},
      secret: 'ab'.repeat(20),
      issued_at: at,
      expires_at: new Date(at.getTime() + 300_000),
      time_step: 300,
      digits: 6,
    });
    const failures = async () => {
      const { rows } = await opened.sql.query<{ n: string }>(
        `SELECT (SELECT count(*) FROM login_failures_by_ip WHERE phone_number = $1) + (SELECT count(*) FROM login_failures_by_phone WHERE phone_number = $1) AS n`,
        [phone],
      );
      return Number(rows[0]!.n);
    };

    beforeAll(async () => {
      await opened.store.clients.insert(client('pl_app'));
      await opened.store.transaction((tx) => tx.connections.insert({ id: 'con_pl', options: options({ name: 'pl' }), enabled_clients: ['pl_app'] }));
    });

    it('reads the client, the connection, the user and the failure counters together, each missing part undefined', async () => {
      const empty = await opened.store.passwordlessLogins.exchangeContext('pl_app', 'pl', phone, '203.0.113.9');
      expect(empty.client).toEqual(await opened.store.clients.findById('pl_app'));
      expect(empty.connection).toEqual(await opened.store.connections.findByName('pl'));
      expect(empty.user).toBeUndefined();
      expect(empty.bruteForce).toEqual({ ipFailures: 0, ipLastFailureAt: null, phoneConsecutiveFailures: 0 });

      await opened.store.users.recordLogin({ user_id: 'sms|pl', connection_id: 'con_pl', phone_number: phone, at });
      await opened.store.loginFailures.recordFailure({ phoneNumber: phone, ip: '203.0.113.9', at, countIp: true }, { threshold: 10, blockSeconds: 900, consecutiveFailuresLock: 100 });
      const full = await opened.store.passwordlessLogins.exchangeContext('pl_app', 'pl', phone, '203.0.113.9');
      expect(full.user).toEqual(await opened.store.users.findByPhone('con_pl', phone));
      expect(full.user!.last_login).toBeInstanceOf(Date);
      expect(full.bruteForce).toEqual({ ipFailures: 1, ipLastFailureAt: at, phoneConsecutiveFailures: 1 });

      const start = await opened.store.passwordlessLogins.startContext('ghost', 'nowhere', phone);
      expect(start).toEqual({ client: undefined, connection: undefined, user: undefined });
      const otherConnection = await opened.store.passwordlessLogins.startContext('pl_app', 'ordered', phone);
      expect([otherConnection.client?.client_id, otherConnection.connection?.name, otherConnection.user]).toEqual(['pl_app', 'ordered', undefined]);
    });

    it('completes a login once however many right guesses race, clearing the counters and counting the login', async () => {
      await opened.store.codes.issue(code('req_race'));
      expect(await failures()).toBe(2);
      const before = (await opened.store.users.findByPhone('con_pl', phone))!.logins_count;
      const results = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          opened.store.passwordlessLogins.consumeCodeAndRecordLogin(code('req_race'), { newUserId: `sms|race${i}`, ip: '203.0.113.9', at, maxAttempts: 3 }),
        ),
      );
      const winners = results.filter((u) => u !== undefined);
      expect(winners).toHaveLength(1);
      expect(winners[0]).toMatchObject({ user_id: 'sms|pl', connection_name: 'pl', phone_verified: true, logins_count: before + 1 });
      expect(await failures()).toBe(0);
      expect((await opened.store.codes.find('con_pl', phone))!.used).toBe(true);
    });

    it('changes nothing when the code was replaced, used or has expired', async () => {
      await opened.store.codes.issue(code('req_new'));
      await opened.store.loginFailures.recordFailure({ phoneNumber: phone, ip: '203.0.113.9', at, countIp: true }, { threshold: 10, blockSeconds: 900, consecutiveFailuresLock: 100 });
      const replaced = await opened.store.passwordlessLogins.consumeCodeAndRecordLogin(code('req_old'), { newUserId: 'sms|x', ip: '203.0.113.9', at, maxAttempts: 3 });
      const expired = await opened.store.passwordlessLogins.consumeCodeAndRecordLogin(code('req_new'), { newUserId: 'sms|x', ip: '203.0.113.9', at: new Date(at.getTime() + 300_000), maxAttempts: 3 });
      expect([replaced, expired]).toEqual([undefined, undefined]);
      expect(await failures()).toBe(2);
      expect((await opened.store.codes.find('con_pl', phone))!.used).toBe(false);
    });

    it('creates the user on a first login', async () => {
      const newcomer = '+14155559010';
      await opened.store.codes.issue({ ...code('req_first'), phone_number: newcomer });
      const user = await opened.store.passwordlessLogins.consumeCodeAndRecordLogin({ connection_id: 'con_pl', phone_number: newcomer, request_id: 'req_first' }, { newUserId: 'sms|first', ip: '203.0.113.9', at, maxAttempts: 3 });
      expect(user).toEqual({
        user_id: 'sms|first', connection_id: 'con_pl', connection_name: 'pl', phone_number: newcomer, phone_verified: true,
        created_at: at, updated_at: at, last_login: at, logins_count: 1, blocked: false, user_metadata: {}, app_metadata: {},
      });
    });
  });
});
