import {
  ClientCreateSchema,
  ClientGrantCreateSchema,
  ClientGrantUpdateSchema,
  ClientUpdateSchema,
  ConnectionCreateSchema,
  ConnectionUpdateSchema,
  OAuthErrorBodySchema,
  OAuthTokenRequestSchema,
  PASSWORDLESS_OTP_GRANT,
  ResourceServerCreateSchema,
  ResourceServerUpdateSchema,
  RoTokenRequestSchema,
  StartRequestSchema,
} from '@smsauth/contracts';
import fc from 'fast-check';
import jwt from 'jsonwebtoken';
import type { z } from 'zod';
import type request from 'supertest';
import { connectionBody } from '../helpers';
import { FlowHarness, type LoginSetup } from '../passwordless/flow-harness';
import { checkProperty, POLLUTION_KEYS, pollutedJson, propertyTimeout, prototypeSnapshot } from '@smsauth/test-support';
import { databaseSnapshot } from './database-snapshot';

type Method = 'get' | 'post' | 'patch' | 'put' | 'delete';

interface BodyEndpoint {
  method: Method;
  path: string;
  /** The contract schema the body must satisfy; bodies it accepts are not bad input. */
  schema: z.ZodType;
  /** A valid body, mutated by the arbitraries. */
  valid: () => Record<string, unknown>;
  management?: boolean;
}

/** A JSON error body from the contract, or a thrown description of what came instead. */
function expectJsonClientError(res: request.Response, statuses?: number[]): void {
  const ok = statuses ? statuses.includes(res.status) : res.status >= 400 && res.status < 500;
  if (!ok) throw new Error(`expected ${statuses?.join('/') ?? '4xx'}, got ${res.status}: ${res.text.slice(0, 300)}`);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  const parsed = OAuthErrorBodySchema.safeParse(JSON.parse(res.text));
  if (!parsed.success) throw new Error(`not an OAuth error body: ${res.text.slice(0, 300)}`);
}

const accepts = (schema: z.ZodType, value: unknown) => schema.safeParse(value).success;

/** A valid body with one field replaced by any JSON value, or dropped, or an extra key added. */
function mutatedBody(valid: () => Record<string, unknown>): fc.Arbitrary<unknown> {
  const fields = Object.keys(valid());
  return fc.oneof(
    fc.tuple(fc.constantFrom(...fields), fc.jsonValue({ maxDepth: 4 })).map(([field, value]) => ({ ...valid(), [field]: value })),
    fc.constantFrom(...fields).map((field) => {
      const { [field]: _dropped, ...rest } = valid();
      return rest;
    }),
    fc.tuple(fc.string({ maxLength: 20 }), fc.jsonValue({ maxDepth: 3 })).map(([key, value]) => ({ ...valid(), [key]: value })),
  );
}

/** Any JSON text: random values, deep nesting, or a mutated valid body. */
function anyJsonText(valid: () => Record<string, unknown>): fc.Arbitrary<string> {
  return fc.oneof(
    fc.json({ depthSize: 'medium' }),
    fc.jsonValue({ maxDepth: 60, depthSize: 'large' }).map((v) => JSON.stringify(v)),
    fc.integer({ min: 50, max: 2000 }).map((depth) => `${'['.repeat(depth)}${']'.repeat(depth)}`),
    fc.integer({ min: 50, max: 2000 }).map((depth) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`),
    mutatedBody(valid).map((v) => JSON.stringify(v)),
  );
}

describe('identity under arbitrary input (property-based)', () => {
  let harness: FlowHarness;
  let setup: LoginSetup;
  let ids: { client: string; connection: string; resourceServer: string; clientGrant: string };
  const caller = { phone: '+14155550199', ip: '198.51.100.77' };

  beforeAll(async () => {
    // Every request names its caller in X-Forwarded-For, so the per-IP start limit (50 an hour,
    // and the test clock never moves) counts each caller apart instead of all of them as 127.0.0.1.
    harness = await FlowHarness.start({ TRUST_PROXY: 'true' });
    setup = await harness.loginSetup();
    const api = await harness.management('post', '/resource-servers', { name: 'Property API', identifier: 'https://property.example.com', scopes: [{ value: 'read:x' }] });
    if (api.status !== 201) throw new Error(`resource server: ${api.status} ${api.text}`);
    const grant = await harness.management('post', '/client-grants', { client_id: setup.clientId, audience: 'https://property.example.com', scope: ['read:x'] });
    if (grant.status !== 201) throw new Error(`client grant: ${grant.status} ${grant.text}`);
    ids = { client: setup.clientId, connection: setup.connectionId, resourceServer: api.body.id, clientGrant: grant.body.id };
  }, 30_000);

  afterAll(async () => {
    await harness.close();
  });

  const endpoints = (): BodyEndpoint[] => [
    {
      method: 'post',
      path: '/passwordless/start',
      schema: StartRequestSchema,
      valid: () => ({ client_id: setup.clientId, connection: setup.connection, phone_number: caller.phone, send: 'code' }),
    },
    {
      method: 'post',
      path: '/oauth/ro',
      schema: RoTokenRequestSchema,
      valid: () => ({ client_id: setup.clientId, connection: setup.connection, grant_type: 'password', username: caller.phone, password: '123456', scope: 'openid' }),
    },
    {
      method: 'post',
      path: '/oauth/token',
      schema: OAuthTokenRequestSchema,
      valid: () => ({ grant_type: PASSWORDLESS_OTP_GRANT, client_id: setup.clientId, realm: setup.connection, username: caller.phone, otp: '123456' }),
    },
    { method: 'post', path: '/api/v2/connections', schema: ConnectionCreateSchema, valid: () => connectionBody({ gateway_url: harness.gateway.url() }), management: true },
    { method: 'patch', path: `/api/v2/connections/${ids.connection}`, schema: ConnectionUpdateSchema, valid: () => ({ enabled_clients: [setup.clientId] }), management: true },
    { method: 'post', path: '/api/v2/clients', schema: ClientCreateSchema, valid: () => ({ name: 'Fuzz App', app_type: 'native' }), management: true },
    { method: 'patch', path: `/api/v2/clients/${ids.client}`, schema: ClientUpdateSchema, valid: () => ({ name: 'Flow App' }), management: true },
    {
      method: 'post',
      path: '/api/v2/resource-servers',
      schema: ResourceServerCreateSchema,
      valid: () => ({ name: 'Fuzz API', identifier: 'https://fuzz.example.com', scopes: [] }),
      management: true,
    },
    { method: 'patch', path: `/api/v2/resource-servers/${ids.resourceServer}`, schema: ResourceServerUpdateSchema, valid: () => ({ name: 'Property API' }), management: true },
    {
      method: 'post',
      path: '/api/v2/client-grants',
      schema: ClientGrantCreateSchema,
      valid: () => ({ client_id: setup.clientId, audience: 'https://property.example.com', scope: ['read:x'] }),
      management: true,
    },
    { method: 'patch', path: `/api/v2/client-grants/${ids.clientGrant}`, schema: ClientGrantUpdateSchema, valid: () => ({ scope: ['read:x'] }), management: true },
  ];

  function send(endpoint: Pick<BodyEndpoint, 'method' | 'path' | 'management'>, text: string, contentType = 'application/json') {
    const req = harness.http()[endpoint.method](endpoint.path).set('X-Forwarded-For', caller.ip).set('Content-Type', contentType);
    if (endpoint.management) req.set('Authorization', `Bearer ${harness.admin}`);
    return req.send(text);
  }

  it('answers every JSON endpoint with a 4xx error body for any body its contract refuses, and writes nothing', async () => {
    const all = endpoints();
    const arbitrary = fc.integer({ min: 0, max: all.length - 1 }).chain((i) => fc.tuple(fc.constant(all[i] as BodyEndpoint), anyJsonText((all[i] as BodyEndpoint).valid)));
    await checkProperty(
      'JSON endpoints refuse invalid bodies without a write',
      fc.asyncProperty(arbitrary, async ([endpoint, text]) => {
        fc.pre(!accepts(endpoint.schema, JSON.parse(text)));
        const before = await databaseSnapshot(harness.identity.sql);
        const sent = harness.gateway.requests.length;
        const res = await send(endpoint, text);
        expectJsonClientError(res);
        expect(await databaseSnapshot(harness.identity.sql)).toEqual(before);
        expect(harness.gateway.requests.length).toBe(sent);
      }),
      100,
    );
  }, propertyTimeout(120_000));

  it('answers form-encoded and other bodies on the public endpoints with a 4xx error body, never 5xx, and writes nothing', async () => {
    const form = fc
      .array(fc.tuple(fc.oneof(fc.constantFrom('client_id', 'connection', 'phone_number', 'grant_type', 'authParams[scope]', 'a[b][c]', '__proto__[x]', 'constructor[prototype][x]'), fc.string({ maxLength: 10 })), fc.string({ maxLength: 60 })), { maxLength: 8 })
      .map((pairs) => pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&'));
    await checkProperty(
      'public endpoints with form and text bodies',
      fc.asyncProperty(
        fc.constantFrom('/passwordless/start', '/oauth/ro', '/oauth/token'),
        fc.oneof(
          form.map((text) => ({ text, type: 'application/x-www-form-urlencoded' })),
          fc.string({ maxLength: 300, unit: 'binary' }).map((text) => ({ text, type: 'application/json' })),
          fc.string({ maxLength: 300 }).map((text) => ({ text, type: 'text/plain' })),
        ),
        async (path, { text, type }) => {
          const before = await databaseSnapshot(harness.identity.sql);
          const res = await send({ method: 'post', path }, text, type);
          expectJsonClientError(res);
          expect(await databaseSnapshot(harness.identity.sql)).toEqual(before);
        },
      ),
      60,
    );
  }, propertyTimeout(120_000));

  it('answers arbitrary ids and query strings on the management API with JSON and never 5xx; rejected calls write nothing', async () => {
    const idText = fc.oneof(fc.string({ maxLength: 40 }), fc.uuid(), fc.constantFrom(...POLLUTION_KEYS, 'toString', '%00', '..', 'null'));
    const route = fc.oneof(
      idText.map((id) => ({ method: 'get' as Method, path: `/connections/${encodeURIComponent(id)}` })),
      idText.map((id) => ({ method: 'get' as Method, path: `/clients/${encodeURIComponent(id)}` })),
      idText.map((id) => ({ method: 'get' as Method, path: `/resource-servers/${encodeURIComponent(id)}` })),
      idText.map((id) => ({ method: 'get' as Method, path: `/client-grants/${encodeURIComponent(id)}` })),
      idText.map((id) => ({ method: 'get' as Method, path: `/users/${encodeURIComponent(id)}` })),
      idText.map((id) => ({ method: 'get' as Method, path: `/keys/signing/${encodeURIComponent(id)}` })),
      idText.map((id) => ({ method: 'delete' as Method, path: `/connections/${encodeURIComponent(id)}` })),
      idText.map((id) => ({ method: 'delete' as Method, path: `/clients/${encodeURIComponent(id)}` })),
      idText.map((id) => ({ method: 'delete' as Method, path: `/resource-servers/${encodeURIComponent(id)}` })),
      idText.map((id) => ({ method: 'delete' as Method, path: `/client-grants/${encodeURIComponent(id)}` })),
      idText.map((id) => ({ method: 'delete' as Method, path: `/users/${encodeURIComponent(id)}` })),
      idText.map((id) => ({ method: 'put' as Method, path: `/keys/signing/${encodeURIComponent(id)}/revoke` })),
      idText.map((id) => ({ method: 'post' as Method, path: `/clients/${encodeURIComponent(id)}/rotate-secret` })),
    );
    const queryKey = fc.oneof(
      fc.constantFrom('name', 'q', 'page', 'per_page', 'include_totals', 'identifier', 'client_id', 'audience', 'search_engine', 'sort', 'page[]', '__proto__', 'constructor[prototype]'),
      fc.string({ maxLength: 10 }),
    );
    const query = fc
      .array(fc.tuple(queryKey, fc.oneof(fc.string({ maxLength: 40 }), fc.integer().map(String), fc.constantFrom('-1', '1e9', 'NaN', 'true', '+14155550199'))), { maxLength: 4 })
      .map((pairs) => pairs.map(([k, v]) => `${encodeURIComponent(k).replace(/%5B/g, '[').replace(/%5D/g, ']')}=${encodeURIComponent(v)}`).join('&'));
    const listRoute = fc.constantFrom('/connections', '/clients', '/resource-servers', '/client-grants', '/users', '/user-blocks', '/keys/signing').map((path) => ({ method: 'get' as Method, path }));
    const unblock = fc.constant({ method: 'delete' as Method, path: '/user-blocks' });
    await checkProperty(
      'management ids and queries',
      fc.asyncProperty(fc.oneof(route, listRoute, unblock), query, async ({ method, path }, q) => {
        const before = await databaseSnapshot(harness.identity.sql);
        const res = await harness.http()[method](`/api/v2${path}?${q}`).set('Authorization', `Bearer ${harness.admin}`);
        if (res.status >= 500) throw new Error(`${method} ${path}?${q} -> ${res.status}: ${res.text.slice(0, 300)}`);
        if (res.status >= 400) {
          expectJsonClientError(res);
          expect(await databaseSnapshot(harness.identity.sql)).toEqual(before);
        }
      }),
      100,
    );
  }, propertyTimeout(120_000));

  it('answers any Authorization header on the management API and /userinfo with a 401 JSON error and writes nothing', async () => {
    const credential = fc.oneof(
      fc.string({ maxLength: 200 }),
      fc.tuple(fc.constantFrom('Bearer ', 'bearer ', 'Basic ', 'Bearer  '), fc.string({ maxLength: 300 })).map(([s, t]) => s + t),
      fc
        .tuple(fc.jsonValue({ maxDepth: 3 }), fc.jsonValue({ maxDepth: 3 }), fc.base64String({ maxLength: 60 }))
        .map(([h, p, s]) => `Bearer ${Buffer.from(JSON.stringify(h) ?? '').toString('base64url')}.${Buffer.from(JSON.stringify(p) ?? '').toString('base64url')}.${s.replace(/=/g, '')}`),
    );
    await checkProperty(
      'management and userinfo credentials',
      fc.asyncProperty(fc.constantFrom('/userinfo', '/api/v2/clients', '/api/v2/users', '/api/v2/keys/signing'), credential, async (path, raw) => {
        const header = raw.replace(/[^\t\x20-\x7e]/g, '');
        const before = await databaseSnapshot(harness.identity.sql);
        const req = harness.http().get(path);
        const res = header.trim() === '' ? await req : await req.set('Authorization', header);
        expectJsonClientError(res, [401]);
        expect(await databaseSnapshot(harness.identity.sql)).toEqual(before);
      }),
      60,
    );
  }, propertyTimeout(120_000));

  it('refuses JSON and form bodies over 100 kB with 413 on every endpoint and writes nothing', async () => {
    const before = await databaseSnapshot(harness.identity.sql);
    const all = endpoints();
    await checkProperty(
      'oversized bodies',
      fc.asyncProperty(
        fc.integer({ min: 0, max: all.length - 1 }),
        fc.integer({ min: 100 * 1024 + 1, max: 300 * 1024 }),
        fc.boolean(),
        async (i, size, asForm) => {
          const endpoint = all[i] as BodyEndpoint;
          const padded = { ...endpoint.valid(), padding: 'x'.repeat(size) };
          const res = asForm
            ? await send(endpoint, new URLSearchParams(padded as Record<string, string>).toString(), 'application/x-www-form-urlencoded')
            : await send(endpoint, JSON.stringify(padded));
          expectJsonClientError(res, [413]);
        },
      ),
      25,
    );
    expect(await databaseSnapshot(harness.identity.sql)).toEqual(before);
  }, propertyTimeout(120_000));

  it('handles strings up to the 100 kB limit in every field without 5xx, and writes nothing when it refuses them', async () => {
    const all = endpoints();
    await checkProperty(
      'huge strings under the limit',
      fc.asyncProperty(fc.integer({ min: 0, max: all.length - 1 }).chain((i) => fc.tuple(fc.constant(all[i] as BodyEndpoint), fc.constantFrom(...Object.keys((all[i] as BodyEndpoint).valid())))), fc.integer({ min: 1000, max: 95 * 1024 }), async ([endpoint, field], size) => {
        const body = { ...endpoint.valid(), [field]: 'x'.repeat(size) };
        fc.pre(!accepts(endpoint.schema, body));
        const before = await databaseSnapshot(harness.identity.sql);
        const res = await send(endpoint, JSON.stringify(body));
        expectJsonClientError(res);
        expect(await databaseSnapshot(harness.identity.sql)).toEqual(before);
      }),
      40,
    );
  }, propertyTimeout(120_000));

  it('ignores __proto__, constructor and prototype keys: the prototype is untouched and stored records hold only their own fields', async () => {
    const prototypeKeys = prototypeSnapshot();
    const all = endpoints();
    const pollution = fc.oneof(
      fc.constant({ polluted: true }),
      fc.constant({ app_type: 'spa', is_first_party: true, scope: ['admin'], grant_types: ['client_credentials'] }),
      fc.constant({ prototype: { polluted: true } }),
      fc.jsonValue({ maxDepth: 2 }),
    );
    await checkProperty(
      'prototype pollution keys',
      fc.asyncProperty(fc.integer({ min: 0, max: all.length - 1 }), fc.constantFrom(...POLLUTION_KEYS), pollution, fc.boolean(), async (i, key, value, nested) => {
        const endpoint = all[i] as BodyEndpoint;
        const valid = endpoint.valid();
        if (endpoint.path === '/api/v2/clients') valid.name = `Pollution ${key} ${nested}`;
        if (endpoint.path === '/api/v2/resource-servers') valid.identifier = `https://pollution-${i}-${Math.random().toString(36).slice(2)}.example.com`;
        if (endpoint.path === '/api/v2/connections') (valid.options as Record<string, unknown>).name = `pollution-${Math.random().toString(36).slice(2, 10)}`;
        const res = await send(endpoint, pollutedJson(valid, key, value, nested));
        if (res.status >= 500) throw new Error(`${endpoint.path} -> ${res.status}: ${res.text.slice(0, 300)}`);
        expect(prototypeSnapshot()).toEqual(prototypeKeys);
        expect(({} as Record<string, unknown>).polluted).toBeUndefined();
        if (res.status >= 400) expectJsonClientError(res);
        if (endpoint.path === '/api/v2/clients' && res.status === 201) {
          // the created client is what the valid fields say, not what the polluting key said
          expect(res.body.app_type).toBe('native');
          expect(res.body.name).toBe(valid.name);
          expect(Object.keys(res.body)).not.toContain('polluted');
          expect(Object.getPrototypeOf(res.body)).toBe(Object.prototype);
        }
      }),
      60,
    );
    // Stored records read back clean: the bootstrap client and the setup client keep their types.
    const client = await harness.management('get', `/clients/${ids.client}`);
    expect(client.status).toBe(200);
    expect(client.body.app_type).toBe('native');
    expect(Object.keys(client.body)).not.toContain('polluted');
  }, propertyTimeout(120_000));

  it('carries __proto__, constructor and prototype inside authParams through start and login without touching the prototype or the tokens', async () => {
    const prototypeKeys = prototypeSnapshot();
    await checkProperty(
      'authParams prototype pollution through a full login',
      fc.asyncProperty(
        fc.constantFrom(...POLLUTION_KEYS),
        fc.constantFrom<unknown>({ polluted: true }, { scope: 'openid admin', polluted: true }, { prototype: { polluted: true } }, 'polluted'),
        fc.boolean(),
        async (key, value, nested) => {
          const who = harness.caller();
          const authParams = pollutedJson({ scope: 'openid', state: 'st' }, key, value, nested);
          const text = `{"client_id":${JSON.stringify(setup.clientId)},"connection":${JSON.stringify(setup.connection)},"phone_number":${JSON.stringify(who.phone)},"send":"code","authParams":${authParams}}`;
          const started = await harness.http().post('/passwordless/start').set('X-Forwarded-For', who.ip).set('Content-Type', 'application/json').send(text);
          expect(prototypeSnapshot()).toEqual(prototypeKeys);
          // authParams is an open object (2.2): extra keys, polluting ones included, are carried, not refused
          expect(started.status).toBe(200);
          const login = await harness.ro(setup, who, harness.codeSentTo(who.phone));
          expect(login.status).toBe(200);
          expect(login.body.id_token).toEqual(expect.any(String));
          expect(prototypeSnapshot()).toEqual(prototypeKeys);
          expect(({} as Record<string, unknown>).polluted).toBeUndefined();
          for (const token of [login.body.access_token, login.body.id_token].filter(Boolean) as string[]) {
            const claims = jwt.decode(token) as Record<string, unknown> | null;
            if (claims === null) continue; // an opaque access token carries no claims
            expect(Object.keys(claims)).not.toContain('polluted');
            expect(String(claims.scope ?? '')).not.toContain('admin');
          }
        },
      ),
      15,
    );
  }, propertyTimeout(120_000));

  it('never answers 5xx to arbitrary /authorize query strings and writes nothing when it refuses them', async () => {
    const key = fc.oneof(
      fc.constantFrom('client_id', 'response_type', 'redirect_uri', 'scope', 'state', 'nonce', 'connection', 'audience', 'transaction', ...POLLUTION_KEYS, 'redirect_uri[]'),
      fc.string({ maxLength: 10 }),
    );
    const value = fc.oneof(fc.string({ maxLength: 60 }), fc.constantFrom('token', 'id_token token', 'code', 'javascript:alert(1)', 'http://evil.example', setup?.clientId ?? 'x'));
    await checkProperty(
      'authorize query strings',
      fc.asyncProperty(fc.constantFrom('/authorize', '/authorize/phone', '/authorize/code'), fc.array(fc.tuple(key, value), { maxLength: 6 }), async (path, pairs) => {
        const query = pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
        const before = await databaseSnapshot(harness.identity.sql);
        const res = await harness.http().get(`${path}?${query}`);
        if (res.status >= 500) throw new Error(`GET ${path}?${query} -> ${res.status}: ${res.text.slice(0, 300)}`);
        if (res.status >= 400) expect(await databaseSnapshot(harness.identity.sql)).toEqual(before);
      }),
      60,
    );
  }, propertyTimeout(120_000));
});
