import {
  checkpointPageSchema,
  ClientGrantRecordSchema,
  ClientRecordSchema,
  ConnectionRecordSchema,
  offsetEnvelopeSchema,
  ResourceServerRecordSchema,
  UserRecordSchema,
} from '@smsauth/contracts';
import request from 'supertest';
import { adminToken, connectionBody, dropSchema, startTestIdentity, TEST_DATABASE_URL, uniqueSchema, type TestIdentity } from './helpers';

interface Driver {
  name: string;
  env: Record<string, string>;
  schema?: string;
}

const drivers: Driver[] = [{ name: 'PGlite', env: {} }];
if (TEST_DATABASE_URL) drivers.push({ name: 'PostgreSQL', env: { DATABASE_URL: TEST_DATABASE_URL }, schema: uniqueSchema('lists') });
else console.warn('SKIPPED: the management list suite on PostgreSQL needs TEST_DATABASE_URL; running it on PGlite only');

type Row = Record<string, unknown>;

/** 30 users: three share each creation time (so user_id must break ties); every third logged in again later. */
const USERS = Array.from({ length: 30 }, (_, i) => ({
  user_id: `sms|u${String(i).padStart(2, '0')}`,
  phone_number: `+1415555${String(1000 + i)}`,
  created: new Date(Date.UTC(2030, 0, 1, 0, Math.floor(i / 3))),
}));

describe.each(drivers)('management lists over HTTP on $name', (driver) => {
  let identity: TestIdentity;
  let auth: { authorization: string };
  let connectionId: string;
  const get = (path: string) => request(identity.app).get(`/api/v2${path}`).set(auth);
  const ids = (rows: Row[], key = 'user_id') => rows.map((r) => r[key]);

  beforeAll(async () => {
    identity = await startTestIdentity(driver.env, { schema: driver.schema });
    auth = { authorization: `Bearer ${await adminToken(identity.app)}` };
    const created = await request(identity.app).post('/api/v2/connections').set(auth).send(connectionBody({ name: 'sms' }));
    connectionId = created.body.id;
    for (const name of ['sms-b', 'sms-c', 'sms-d', 'sms-e']) {
      expect((await request(identity.app).post('/api/v2/connections').set(auth).send(connectionBody({ name }))).status).toBe(201);
    }
    for (const user of USERS) {
      await identity.store.users.recordLogin({ user_id: user.user_id, connection_id: connectionId, phone_number: user.phone_number, at: user.created });
    }
    for (const [i, user] of USERS.entries()) {
      if (i % 3 !== 0) continue;
      const at = new Date(Date.UTC(2030, 5, 1, 0, 30 - i));
      await identity.store.users.recordLogin({ user_id: user.user_id, connection_id: connectionId, phone_number: user.phone_number, at });
    }
    for (let i = 0; i < 6; i += 1) {
      const client = await request(identity.app).post('/api/v2/clients').set(auth).send({ name: `App ${i}`, app_type: 'non_interactive' });
      const api = await request(identity.app).post('/api/v2/resource-servers').set(auth).send({ name: `API ${i}`, identifier: `https://api-${i}.test` });
      await request(identity.app).post('/api/v2/client-grants').set(auth).send({ client_id: client.body.client_id, audience: api.body.identifier, scope: [] });
    }
  });
  afterAll(async () => {
    await identity.close();
    if (driver.schema) await dropSchema(TEST_DATABASE_URL!, driver.schema);
  });

  describe('include_totals', () => {
    it.each([
      ['/connections', 'connections'],
      ['/clients', 'clients'],
      ['/resource-servers', 'resource_servers'],
      ['/client-grants', 'client_grants'],
    ])('wraps %s in {start, limit, total, %s} and answers a bare array without it', async (path, plural) => {
      const bare = await get(path);
      expect(bare.status).toBe(200);
      expect(Array.isArray(bare.body)).toBe(true);
      const res = await get(`${path}?include_totals=true`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ start: 0, limit: 50, total: bare.body.length, [plural]: bare.body });
      const second = await get(`${path}?include_totals=true&page=1&per_page=2`);
      expect(second.body).toEqual({ start: 2, limit: 2, total: bare.body.length, [plural]: bare.body.slice(2, 4) });
    });

    it('wraps users in {start, limit, length, total, users}, the total counting every match', async () => {
      const res = await get('/users?include_totals=true&page=2&per_page=4');
      expect(res.status).toBe(200);
      expect(Object.keys(res.body)).toEqual(['start', 'limit', 'length', 'total', 'users']);
      expect(res.body).toMatchObject({ start: 8, limit: 4, length: 4, total: 30 });
      expect(ids(res.body.users)).toEqual(['sms|u08', 'sms|u09', 'sms|u10', 'sms|u11']);
      const filtered = await get(`/users?include_totals=true&q=${encodeURIComponent('phone_number:+1415555100*')}`);
      expect(filtered.body).toMatchObject({ length: 10, total: 10 });
    });

    it('answers in the envelope shapes of @smsauth/contracts, records whole', async () => {
      const strict = <T extends { strict: () => { parse: (v: unknown) => unknown } }>(schema: T, body: unknown) => schema.strict().parse(body);
      strict(offsetEnvelopeSchema('connections', ConnectionRecordSchema.strict()), (await get('/connections?include_totals=true')).body);
      strict(offsetEnvelopeSchema('clients', ClientRecordSchema.strict()), (await get('/clients?include_totals=true')).body);
      strict(offsetEnvelopeSchema('resource_servers', ResourceServerRecordSchema.strict()), (await get('/resource-servers?include_totals=true')).body);
      strict(offsetEnvelopeSchema('client_grants', ClientGrantRecordSchema.strict()), (await get('/client-grants?include_totals=true')).body);
      strict(offsetEnvelopeSchema('users', UserRecordSchema.strict(), true), (await get('/users?include_totals=true')).body);
      strict(checkpointPageSchema('connections', ConnectionRecordSchema.strict()), (await get('/connections?take=2')).body);
      strict(checkpointPageSchema('client_grants', ClientGrantRecordSchema.strict()), (await get('/client-grants?take=2')).body);
    });

    it('answers an empty page past the end with the total', async () => {
      expect((await get('/users?include_totals=true&page=9&per_page=10')).body).toEqual({ start: 90, limit: 10, length: 0, total: 30, users: [] });
    });
  });

  describe('paging', () => {
    it('returns every user exactly once, in creation order with user_id breaking ties, whatever the page size', async () => {
      const all = ids((await get('/users?per_page=100')).body);
      expect(all).toEqual(USERS.map((u) => u.user_id));
      for (const size of [1, 4, 7]) {
        const seen: unknown[] = [];
        for (let page = 0; ; page += 1) {
          const rows = (await get(`/users?per_page=${size}&page=${page}`)).body as Row[];
          seen.push(...ids(rows));
          if (rows.length < size) break;
        }
        expect(seen).toEqual(all);
      }
    });

    it('defaults to 50 per page', async () => {
      const clients = (await get('/clients')).body as Row[];
      expect((await get('/clients?include_totals=true')).body.limit).toBe(50);
      expect(clients.length).toBeLessThanOrEqual(50);
    });

    it('pages clients and APIs the same way: each once, in order', async () => {
      for (const [path, key] of [['/clients', 'client_id'], ['/resource-servers', 'id']] as const) {
        const all = ids((await get(path)).body, key);
        const pages = await Promise.all([0, 1, 2, 3, 4].map((page) => get(`${path}?per_page=2&page=${page}`)));
        expect(pages.flatMap((p) => ids(p.body, key))).toEqual(all);
      }
    });
  });

  describe('checkpoint paging (from / take)', () => {
    /** Follows `next` until it is gone, as the SDKs do. */
    const follow = async (path: string, plural: string, take: number) => {
      const seen: Row[] = [];
      let from: string | undefined;
      for (let calls = 0; calls < 20; calls += 1) {
        const res = await get(`${path}?take=${take}${from ? `&from=${encodeURIComponent(from)}` : ''}`);
        expect(res.status).toBe(200);
        expect(res.body.total).toBeUndefined();
        seen.push(...res.body[plural]);
        from = res.body.next;
        if (!from) return seen;
        expect(res.body[plural]).toHaveLength(take);
      }
      throw new Error('next never ended');
    };

    it('walks connections with next until it is absent: every connection once, in list order', async () => {
      const all = ids((await get('/connections')).body, 'id');
      expect(all).toHaveLength(5);
      expect(ids(await follow('/connections', 'connections', 2), 'id')).toEqual(all);
      expect(ids(await follow('/connections', 'connections', 5), 'id')).toEqual(all);
    });

    it('walks client grants the same way', async () => {
      const all = ids((await get('/client-grants')).body, 'id');
      expect(ids(await follow('/client-grants', 'client_grants', 1), 'id')).toEqual(all);
    });

    it("answers the SDK's own first request (include_totals=true&take=50) with {connections} and no next", async () => {
      const res = await get('/connections?include_totals=true&take=50');
      expect(res.status).toBe(200);
      expect(Object.keys(res.body)).toEqual(['connections']);
      expect(res.body.connections).toHaveLength(5);
      const grants = await get('/client-grants?include_totals=true&take=50');
      expect(Object.keys(grants.body)).toEqual(['client_grants']);
    });

    it('keeps its place when the row it stopped at is deleted', async () => {
      const created = await request(identity.app).post('/api/v2/connections').set(auth).send(connectionBody({ name: 'sms-z1' }));
      await request(identity.app).post('/api/v2/connections').set(auth).send(connectionBody({ name: 'sms-z2' }));
      const first = await get('/connections?take=6');
      expect(ids(first.body.connections, 'name')).toContain('sms-z1');
      await request(identity.app).delete(`/api/v2/connections/${created.body.id}`).set(auth);
      const rest = await get(`/connections?take=6&from=${encodeURIComponent(first.body.next)}`);
      expect(ids(rest.body.connections, 'name')).toEqual(['sms-z2']);
      await request(identity.app).delete(`/api/v2/connections/${ids(rest.body.connections, 'id')[0]}`).set(auth);
    });

    it('refuses a from it did not issue, and from/take mixed with page/per_page, naming the parameter', async () => {
      for (const [query, path] of [
        ['from=not-a-checkpoint', 'from'],
        [`from=${Buffer.from('["yesterday","x"]').toString('base64url')}`, 'from'],
        ['take=10&page=1', 'take'],
        ['from=abc&per_page=5', 'from'],
        ['take=0', 'take'],
        ['take=101', 'take'],
      ]) {
        const res = await get(`/connections?${query}`);
        expect(res.status).toBe(400);
        expect(res.body.details[0].path).toBe(path);
      }
    });
  });

  describe('fields projection', () => {
    it('keeps only the named fields, or drops them with include_fields=false', async () => {
      const kept = (await get('/connections?fields=id,name&include_totals=true')).body.connections as Row[];
      expect(kept.every((c) => Object.keys(c).sort().join() === 'id,name')).toBe(true);
      const dropped = (await get('/connections?fields=options,enabled_clients&include_fields=false')).body as Row[];
      expect(dropped[0]).not.toHaveProperty('options');
      expect(dropped[0]).toHaveProperty('strategy', 'sms');
      expect((await get('/users?fields=user_id&per_page=1')).body).toEqual([{ user_id: 'sms|u00' }]);
      expect(Object.keys((await get('/clients?fields=name,no_such_field')).body[0])).toEqual(['name']);
    });
  });

  describe('connection filters', () => {
    it('filters by name and by strategy, given once, repeated or comma-separated', async () => {
      expect(ids((await get('/connections?name=sms-c')).body, 'name')).toEqual(['sms-c']);
      expect((await get('/connections?strategy=sms')).body).toHaveLength(5);
      expect((await get('/connections?strategy=email&strategy=sms')).body).toHaveLength(5);
      expect((await get('/connections?strategy=email,sms')).body).toHaveLength(5);
      expect((await get('/connections?strategy=email')).body).toEqual([]);
      expect((await get('/connections?strategy=sms&name=sms-b&include_totals=true')).body).toMatchObject({ total: 1 });
    });

    it('filters client grants by client, counting only those', async () => {
      const all = (await get('/client-grants')).body as Row[];
      const clientId = all[all.length - 1]!.client_id as string;
      const res = await get(`/client-grants?client_id=${clientId}&include_totals=true`);
      expect(res.body).toMatchObject({ total: 1, client_grants: [{ client_id: clientId }] });
    });
  });

  describe('client and API filters', () => {
    it('filters clients by app_type, comma-separated or repeated', async () => {
      const all = (await get('/clients')).body as Row[];
      const machines = all.filter((c) => c.app_type === 'non_interactive');
      // The console's client, which every start keeps, is the one SPA.
      const browsers = all.filter((c) => c.app_type === 'spa' || c.app_type === 'native');
      expect(browsers.map((c) => c.name)).toEqual(['Console']);
      expect(ids((await get('/clients?app_type=non_interactive')).body, 'client_id')).toEqual(ids(machines, 'client_id'));
      expect((await get('/clients?app_type=spa,non_interactive&include_totals=true')).body.total).toBe(machines.length + 1);
      expect(ids((await get('/clients?app_type=spa&app_type=native')).body, 'client_id')).toEqual(ids(browsers, 'client_id'));
    });

    it('filters APIs by identifiers, repeated, refusing more than 10', async () => {
      const res = await get('/resource-servers?identifiers=https://api-1.test&identifiers=https://api-3.test&include_totals=true');
      expect(res.body.total).toBe(2);
      expect(ids(res.body.resource_servers, 'identifier')).toEqual(['https://api-1.test', 'https://api-3.test']);
      const eleven = Array.from({ length: 11 }, (_, i) => `identifiers=https://api-${i}.test`).join('&');
      const tooMany = await get(`/resource-servers?${eleven}`);
      expect(tooMany.status).toBe(400);
      expect(tooMany.body.details[0].path).toBe('identifiers');
    });
  });

  describe('users q', () => {
    const search = async (q: string, raw = false) => {
      const res = await get(`/users?per_page=100&q=${raw ? q : encodeURIComponent(q)}`);
      expect(res.status).toBe(200);
      return ids(res.body);
    };

    it('matches phone_number exactly, quoted or not, and with an un-encoded +', async () => {
      expect(await search('phone_number:"+14155551005"')).toEqual(['sms|u05']);
      expect(await search('phone_number:+14155551005')).toEqual(['sms|u05']);
      expect(await search('phone_number:+14155551005', true)).toEqual(['sms|u05']);
      expect(await search('phone_number:"+14155551005"'.replace('+', '%2B').replace(/"/g, '%22'), true)).toEqual(['sms|u05']);
      expect(await search('+1415555102', true)).toEqual(['sms|u20', 'sms|u21', 'sms|u22', 'sms|u23', 'sms|u24', 'sms|u25', 'sms|u26', 'sms|u27', 'sms|u28', 'sms|u29']);
    });

    it('matches user_id and name (an SMS user is named by its number)', async () => {
      expect(await search('user_id:"sms|u07"')).toEqual(['sms|u07']);
      expect(await search('name:"+14155551007"')).toEqual(['sms|u07']);
      expect(await search('user_id:sms|u1*')).toEqual(USERS.slice(10, 20).map((u) => u.user_id));
    });

    it('combines terms with AND, OR and parentheses, AND binding tighter', async () => {
      expect(await search('user_id:"sms|u01" OR user_id:"sms|u02"')).toEqual(['sms|u01', 'sms|u02']);
      expect(await search('user_id:"sms|u01" user_id:"sms|u02"')).toEqual(['sms|u01', 'sms|u02']);
      expect(await search('phone_number:+14155551001 AND user_id:"sms|u01"')).toEqual(['sms|u01']);
      expect(await search('phone_number:+14155551001 AND user_id:"sms|u02"')).toEqual([]);
      expect(await search('user_id:"sms|u03" OR user_id:"sms|u01" AND phone_number:+14155551002')).toEqual(['sms|u03']);
      expect(await search('(user_id:"sms|u03" OR user_id:"sms|u01") AND identities.connection:"sms"')).toEqual(['sms|u01', 'sms|u03']);
      expect(await search('identities.connection:"sms-b"')).toEqual([]);
      expect(await search('phone_verified:true AND user_id:"sms|u04"')).toEqual(['sms|u04']);
    });

    it('treats % and _ in a value as themselves', async () => {
      expect(await search('user_id:sms|u_1*')).toEqual([]);
      expect(await search('%')).toEqual([]);
    });

    it.each([
      ['email:"a@b.test"', 'cannot search on email'],
      ['NOT user_id:"sms|u01"', 'NOT'],
      ['-user_id:"sms|u01"', 'NOT'],
      ['logins_count:[1 TO 5]', 'ranges'],
      ['(user_id:"sms|u01"', 'parentheses'],
      ['user_id:"sms|u01")', 'parentheses'],
      ['user_id:"sms|u01', 'unterminated'],
      ['user_id:"sms|u01" AND', 'ends where a term was expected'],
      ['phone_verified:maybe', 'true or false'],
      ['user_id:', 'needs a value'],
    ])('refuses q=%s with a 400 naming q', async (q, message) => {
      const res = await get(`/users?q=${encodeURIComponent(q)}`);
      expect(res.status).toBe(400);
      expect(res.body.details[0].path).toBe('q');
      expect(res.body.error_description).toContain(message);
    });
  });

  describe('users search_engine, sort, connection', () => {
    it('accepts search_engine=v3 (and v2), refuses v1 naming search_engine', async () => {
      expect((await get('/users?search_engine=v3&q=user_id:%22sms%7Cu01%22')).body).toHaveLength(1);
      expect((await get('/users?search_engine=v2&per_page=1')).status).toBe(200);
      const res = await get('/users?search_engine=v1');
      expect(res.status).toBe(400);
      expect(res.body.details[0].path).toBe('search_engine');
    });

    it('sorts by last_login and phone_number both ways, user_id breaking ties', async () => {
      const byLastLoginDesc = ids((await get('/users?per_page=100&sort=last_login:-1')).body);
      // Logged in again (later, u00 latest) first, then everyone else by their single login time.
      expect(byLastLoginDesc.slice(0, 10)).toEqual(['sms|u00', 'sms|u03', 'sms|u06', 'sms|u09', 'sms|u12', 'sms|u15', 'sms|u18', 'sms|u21', 'sms|u24', 'sms|u27']);
      expect(byLastLoginDesc.slice(10, 12)).toEqual(['sms|u29', 'sms|u28']);
      expect(ids((await get('/users?per_page=100&sort=last_login:1')).body)).toEqual([...byLastLoginDesc].reverse());
      expect(ids((await get('/users?per_page=3&sort=phone_number:-1')).body)).toEqual(['sms|u29', 'sms|u28', 'sms|u27']);
      expect(ids((await get('/users?per_page=3&sort=user_id:1&page=1')).body)).toEqual(['sms|u03', 'sms|u04', 'sms|u05']);
      expect(ids((await get('/users?per_page=2&sort=created_at:-1')).body)).toEqual(['sms|u29', 'sms|u28']);
    });

    it('refuses a sort on a field without an index, or without a direction, naming sort', async () => {
      for (const sort of ['logins_count:1', 'created_at', 'created_at:2', 'name:1']) {
        const res = await get(`/users?sort=${sort}`);
        expect(res.status).toBe(400);
        expect(res.body.details[0].path).toBe('sort');
      }
    });

    it('filters by connection name', async () => {
      expect((await get('/users?connection=sms&include_totals=true')).body.total).toBe(30);
      expect((await get('/users?connection=sms-b')).body).toEqual([]);
    });
  });

  describe("connections in the reference product's shape (stored on this database)", () => {
    it('creates from top-level name and strategy with display_name, metadata, is_domain_connection; PATCH changes them; a disagreement is a 400', async () => {
      const body = connectionBody({ name: 'shape-top' });
      const options = body.options as Record<string, unknown>;
      delete options.name;
      delete options.strategy;
      const created = await request(identity.app)
        .post('/api/v2/connections')
        .set(auth)
        .send({ ...body, name: 'shape-top', strategy: 'sms', display_name: 'Text', metadata: { a: '1' }, is_domain_connection: true });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ name: 'shape-top', strategy: 'sms', display_name: 'Text', metadata: { a: '1' }, is_domain_connection: true });
      const patched = await request(identity.app).patch(`/api/v2/connections/${created.body.id}`).set(auth).send({ display_name: null, metadata: { b: '2' } });
      expect(patched.body).toMatchObject({ metadata: { b: '2' }, is_domain_connection: true });
      expect(patched.body).not.toHaveProperty('display_name');
      expect((await get(`/connections/${created.body.id}`)).body).toEqual(patched.body);
      const disagreeing = await request(identity.app).post('/api/v2/connections').set(auth).send({ ...connectionBody({ name: 'shape-a' }), name: 'shape-b' });
      expect(disagreeing.status).toBe(400);
      expect(disagreeing.body.details[0].path).toBe('name');
      await request(identity.app).delete(`/api/v2/connections/${created.body.id}`).set(auth);
    });
  });

  describe('bad paging values', () => {
    it.each([
      ['/users', 'per_page=0', 'per_page'],
      ['/users', 'per_page=101', 'per_page'],
      ['/users', 'page=-1', 'page'],
      ['/users', 'page=abc', 'page'],
      ['/users', 'page=1.5', 'page'],
      ['/users', 'page=1&page=2', 'page'],
      ['/clients', 'include_totals=yes', 'include_totals'],
      ['/resource-servers', 'per_page=1000', 'per_page'],
      ['/client-grants', 'take=abc', 'take'],
      ['/connections', 'include_fields=maybe', 'include_fields'],
    ])('GET %s?%s is a 400 naming %s', async (path, query, parameter) => {
      const res = await get(`${path}?${query}`);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ error: 'invalid_request', details: [{ path: parameter }] });
      expect(res.body.error_description).toContain(parameter);
    });
  });
});
