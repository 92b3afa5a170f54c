import jwt from 'jsonwebtoken';
import pg from 'pg';
import request from 'supertest';
import { createSecretCipher, listenerApplicationName, openStore, type IdentityStore, type OpenedStore } from '../src/store';
import { M2mLookupCache } from '../src/store/m2m-lookup-cache';
import { adminToken, describeWithPostgres, dropSchema, startTestIdentity, uniqueSchema, type TestIdentity, testStoreOptions } from './helpers';

const API = 'https://cached-airport.test';

interface M2mSetup {
  admin: string;
  apiId: string;
  clientId: string;
  clientSecret: string;
  grantId: string;
}

/** An API, a non-interactive client and the grant between them, made through the management API of `identity`. */
async function createM2mSetup(identity: TestIdentity): Promise<M2mSetup> {
  const admin = await adminToken(identity.app);
  const auth = { authorization: `Bearer ${admin}` };
  const api = await request(identity.app)
    .post('/api/v2/resource-servers')
    .set(auth)
    .send({ name: 'Cached API', identifier: API, token_lifetime: 3600, scopes: [{ value: 'read:airports' }] })
    .expect(201);
  const client = await request(identity.app).post('/api/v2/clients').set(auth).send({ name: 'M2M', app_type: 'non_interactive' }).expect(201);
  const grant = await request(identity.app)
    .post('/api/v2/client-grants')
    .set(auth)
    .send({ client_id: client.body.client_id, audience: API, scope: ['read:airports'] })
    .expect(201);
  return { admin, apiId: api.body.id, clientId: client.body.client_id, clientSecret: client.body.client_secret, grantId: grant.body.id };
}

/** Client `m2m` and the API, straight through the store (no grant). */
async function insertClientAndApi(store: IdentityStore): Promise<void> {
  await store.clients.insert({
    client_id: 'm2m',
    name: 'M2M',
    app_type: 'non_interactive',
    callbacks: [],
    allowed_origins: [],
    grant_types: ['client_credentials'],
    default_audience: null,
    secret_hash: null,
    system_role: null,
  });
  await store.resourceServers.insert({ id: 'rs_1', name: 'API', identifier: API, signing_alg: 'RS256', token_lifetime: 3600, scopes: [], is_system: false });
}

function tokenRequest(identity: TestIdentity, clientId: string, clientSecret: string) {
  return request(identity.app).post('/oauth/token').send({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret, audience: API });
}

/** Polls `check` until it holds or `deadlineMs` has passed; returns whether it held. */
async function holdsWithin(deadlineMs: number, check: () => Promise<boolean>): Promise<boolean> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('the client_credentials lookup cache on the embedded database', () => {
  let identity: TestIdentity;
  let setup: M2mSetup;
  beforeAll(async () => {
    identity = await startTestIdentity({ M2M_CACHE_TTL_MS: '60000' });
    setup = await createM2mSetup(identity);
  });
  afterAll(() => identity.close());

  const token = () => tokenRequest(identity, setup.clientId, setup.clientSecret);
  const auth = () => ({ authorization: `Bearer ${setup.admin}` });

  it('gives a changed API lifetime at the next token', async () => {
    expect((await token()).body.expires_in).toBe(3600);
    await request(identity.app).patch(`/api/v2/resource-servers/${setup.apiId}`).set(auth()).send({ token_lifetime: 600 }).expect(200);
    const res = await token();
    expect(res.body.expires_in).toBe(600);
    const claims = jwt.decode(res.body.access_token) as jwt.JwtPayload;
    expect(claims.exp! - claims.iat!).toBe(600);
  });

  it('sees a write made with plain SQL at once (the triggers notify on the one embedded connection)', async () => {
    expect((await token()).body.scope).toBe('read:airports');
    await identity.sql.query(`UPDATE client_grants SET scope = '[]'::jsonb WHERE id = $1`, [setup.grantId]);
    expect((await token()).body.scope).toBe('');
    await identity.sql.query(`UPDATE client_grants SET scope = '["read:airports"]'::jsonb WHERE id = $1`, [setup.grantId]);
    expect((await token()).body.scope).toBe('read:airports');
  });

  it('refuses the old secret as soon as the secret is rotated', async () => {
    expect((await token()).status).toBe(200);
    const rotated = await request(identity.app).post(`/api/v2/clients/${setup.clientId}/rotate-secret`).set(auth()).expect(200);
    expect((await token()).status).toBe(401);
    setup.clientSecret = rotated.body.client_secret;
    expect((await token()).status).toBe(200);
  });

  it('refuses a token as soon as the grant is deleted, and then the client', async () => {
    expect((await token()).status).toBe(200);
    await request(identity.app).delete(`/api/v2/client-grants/${setup.grantId}`).set(auth()).expect(204);
    const refused = await token();
    expect(refused.status).toBe(403);
    expect(refused.body.error).toBe('access_denied');
    await request(identity.app).delete(`/api/v2/clients/${setup.clientId}`).set(auth()).expect(204);
    expect((await token()).status).toBe(401);
  });
});

describe('the client_credentials lookups of a store with the cache', () => {
  let opened: OpenedStore;
  beforeAll(async () => {
    opened = await openStore('memory://', createSecretCipher(undefined), { m2mCacheTtlMs: 60_000, ...testStoreOptions });
  });
  afterAll(() => opened?.close());

  it('keeps a lookup only when the client and the API exist, so random names cannot fill it', async () => {
    const { store } = opened;
    await insertClientAndApi(store);
    expect(opened.m2mCache!.serving).toBe(true);
    await store.clientGrants.findClientCredentialsContext('nobody', API);
    await store.clientGrants.findClientCredentialsContext('m2m', 'https://nowhere.test');
    expect(opened.m2mCache!.size).toBe(0);
    expect((await store.clientGrants.findClientCredentialsContext('m2m', API)).grant).toBeUndefined();
    expect(opened.m2mCache!.size).toBe(1);
    await store.clientGrants.insert({ id: 'cgr_1', client_id: 'm2m', audience: API, scope: [] });
    expect(opened.m2mCache!.size).toBe(0);
    expect((await store.clientGrants.findClientCredentialsContext('m2m', API)).grant?.id).toBe('cgr_1');
  });
});

describe('M2mLookupCache', () => {
  it('serves nothing until its invalidation channel is confirmed, and nothing while it is down', async () => {
    const cache = new M2mLookupCache({ ttlMs: 60_000 });
    let loads = 0;
    const load = async () => ++loads;
    await cache.lookup('k', load);
    await cache.lookup('k', load);
    expect(loads).toBe(2);
    cache.setListening(true);
    await cache.lookup('k', load);
    expect(await cache.lookup('k', load)).toBe(3);
    cache.setListening(false);
    expect(await cache.lookup('k', load)).toBe(4);
  });

  it('does not keep what a read returns when an invalidation came while it was under way', async () => {
    const cache = new M2mLookupCache({ ttlMs: 60_000 });
    cache.setListening(true);
    let release!: (value: string) => void;
    const slowRead = cache.lookup('grant', () => new Promise<string>((resolve) => (release = resolve)));
    cache.invalidate();
    release('read before the write');
    expect(await slowRead).toBe('read before the write');
    expect(await cache.lookup('grant', async () => 'read after the write')).toBe('read after the write');
    expect(cache.size).toBe(1);
  });

  it('serves an entry until its TTL, never longer, and keeps at most maxEntries', async () => {
    let now = 0;
    const cache = new M2mLookupCache({ ttlMs: 1_000, maxEntries: 2, now: () => now });
    cache.setListening(true);
    await cache.lookup('a', async () => 'a1');
    now = 999;
    expect(await cache.lookup('a', async () => 'a2')).toBe('a1');
    now = 1_000;
    expect(await cache.lookup('a', async () => 'a3')).toBe('a3');
    await cache.lookup('b', async () => 'b');
    await cache.lookup('c', async () => 'c');
    expect(cache.size).toBe(2);
    expect(await cache.lookup('a', async () => 'a4')).toBe('a4');
  });

  it('is off with a TTL of 0', async () => {
    const cache = new M2mLookupCache({ ttlMs: 0 });
    cache.setListening(true);
    let loads = 0;
    await cache.lookup('k', async () => ++loads);
    await cache.lookup('k', async () => ++loads);
    expect(loads).toBe(2);
  });
});

describeWithPostgres('the client_credentials lookup cache across instances on PostgreSQL', (databaseUrl) => {
  const schema = uniqueSchema('m2mcache');
  let a: TestIdentity;
  let b: TestIdentity;
  let setup: M2mSetup;
  beforeAll(async () => {
    const env = { DATABASE_URL: databaseUrl, M2M_CACHE_TTL_MS: '60000' };
    a = await startTestIdentity(env, { schema });
    b = await startTestIdentity(env, { schema });
    setup = await createM2mSetup(a);
  });
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await dropSchema(databaseUrl, schema);
  });

  const onB = () => tokenRequest(b, setup.clientId, setup.clientSecret);
  const auth = () => ({ authorization: `Bearer ${setup.admin}` });
  /** B's token answers as `expected` within one second (a warm B first answered otherwise). */
  const bAnswersWithinASecond = (expected: (res: request.Response) => boolean) => holdsWithin(1_000, async () => expected(await onB()));

  it('serves a warm instance from its cache: a write that notifies nobody is not seen there', async () => {
    await a.sql.query('UPDATE resource_servers SET token_lifetime = 3601 WHERE id = $1', [setup.apiId]);
    expect(await bAnswersWithinASecond((res) => res.body.expires_in === 3601)).toBe(true);
    const raw = new pg.Client({ connectionString: databaseUrl, options: `-c search_path=${schema}` });
    await raw.connect();
    // Written as a replica would apply it (no triggers, so no NOTIFY), or as the service does.
    const setScope = async (scope: string, notify: boolean) => {
      await raw.query(`SET session_replication_role = ${notify ? 'origin' : 'replica'}`);
      await raw.query(`UPDATE client_grants SET scope = $2::jsonb WHERE id = $1`, [setup.grantId, scope]);
    };
    try {
      // A cold B reads the database, so B answering 3601 above does not prove that the notifications
      // of the earlier writes have all reached it; one arriving after B's warming read empties the
      // cache (as it must). So each attempt warms B, changes the grant unseen, and asks again: B
      // serving the value it holds is the behaviour under test; a late notification costs an attempt.
      const servedFromCache = await holdsWithin(5_000, async () => {
        expect(await bAnswersWithinASecond((res) => res.body.scope === 'read:airports')).toBe(true);
        await setScope('[]', false);
        const scope = (await onB()).body.scope;
        await setScope('["read:airports"]', true);
        return scope === 'read:airports';
      });
      expect(servedFromCache).toBe(true);
    } finally {
      await raw.end();
    }
  });

  it('gives a changed API lifetime on another instance within one second', async () => {
    expect((await onB()).body.expires_in).toBe(3601);
    await request(a.app).patch(`/api/v2/resource-servers/${setup.apiId}`).set(auth()).send({ token_lifetime: 900 }).expect(200);
    expect(await bAnswersWithinASecond((res) => res.body.expires_in === 900)).toBe(true);
  });

  it('refuses a rotated secret on another instance within one second', async () => {
    expect((await onB()).status).toBe(200);
    const rotated = await request(a.app).post(`/api/v2/clients/${setup.clientId}/rotate-secret`).set(auth()).expect(200);
    expect(await bAnswersWithinASecond((res) => res.status === 401)).toBe(true);
    setup.clientSecret = rotated.body.client_secret;
    expect((await onB()).status).toBe(200);
  });

  it('refuses a deleted grant on another instance within one second', async () => {
    expect((await onB()).status).toBe(200);
    await request(a.app).delete(`/api/v2/client-grants/${setup.grantId}`).set(auth()).expect(204);
    expect(await bAnswersWithinASecond((res) => res.status === 403 && res.body.error === 'access_denied')).toBe(true);
    const regranted = await request(a.app)
      .post('/api/v2/client-grants')
      .set(auth())
      .send({ client_id: setup.clientId, audience: API, scope: ['read:airports'] })
      .expect(201);
    setup.grantId = regranted.body.id;
    expect(await bAnswersWithinASecond((res) => res.status === 200)).toBe(true);
  });

  it('refuses a deleted client on another instance within one second', async () => {
    expect((await onB()).status).toBe(200);
    await request(a.app).delete(`/api/v2/clients/${setup.clientId}`).set(auth()).expect(204);
    expect(await bAnswersWithinASecond((res) => res.status === 401)).toBe(true);
  });
});

describeWithPostgres('the client_credentials lookup cache while its LISTEN connection is down', (databaseUrl) => {
  const schema = uniqueSchema('m2mlisten');
  let cached: OpenedStore;
  let writer: OpenedStore;
  afterAll(async () => {
    await Promise.all([cached?.close(), writer?.close()]);
    await dropSchema(databaseUrl, schema);
  });

  it('reads from the database, so a grant deleted meanwhile is refused', async () => {
    const cipher = createSecretCipher(undefined);
    // Only `cached` listens; it retries late, so the test sees it down.
    cached = await openStore(databaseUrl, cipher, { schema, m2mCacheTtlMs: 60_000, listenRetryMs: 60_000, ...testStoreOptions });
    writer = await openStore(databaseUrl, cipher, { schema, ...testStoreOptions });
    await insertClientAndApi(writer.store);
    const grant = await writer.store.clientGrants.insert({ id: 'cgr_1', client_id: 'm2m', audience: API, scope: [] });
    const cache = cached.m2mCache!;
    expect(cache.serving).toBe(true);
    expect((await cached.store.clientGrants.findClientCredentialsContext('m2m', API)).grant?.id).toBe(grant.id);
    // The writer's notifications arrive a moment later, each emptying the cache: read until one is kept.
    const kept = async () => {
      await cached.store.clientGrants.findClientCredentialsContext('m2m', API);
      return cache.size === 1;
    };
    expect(await holdsWithin(5_000, kept)).toBe(true);

    const admin = new pg.Client({ connectionString: databaseUrl });
    await admin.connect();
    try {
      const { rowCount } = await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1', [
        listenerApplicationName(schema),
      ]);
      expect(rowCount).toBe(1);
    } finally {
      await admin.end();
    }
    expect(await holdsWithin(5_000, async () => !cache.serving)).toBe(true);
    await writer.store.clientGrants.delete(grant.id);
    expect((await cached.store.clientGrants.findClientCredentialsContext('m2m', API)).grant).toBeUndefined();
    expect(cache.size).toBe(0);
  });
});
