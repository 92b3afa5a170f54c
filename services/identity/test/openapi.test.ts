import SwaggerParser from '@apidevtools/swagger-parser';
import {
  ClientCreateSchema,
  ConnectionCreateSchema,
  OAuthTokenRequestSchema,
  StartRequestSchema,
  toJsonSchema,
} from '@smsauth/contracts';
import request from 'supertest';
import { z } from 'zod';
import { managementOperations, managementRouter, managementRoutesOf, type ManagementDependencies } from '../src/routes/management';
import { buildIdentityOpenApiDocument, openApiOperation, toOpenApiPath } from '../src/routes/openapi';
import { declaredIdentityOperations } from '../src/routes/operations';
import { adminToken, startTestIdentity, type TestIdentity } from './helpers';
import { declaredRoutes } from './support/express-routes';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/**
 * Routes the router walk does not compare with the document, each with its reason. The kit's
 * /healthz, /readyz and /metrics are documented (tag Operations); the kit's `/docs` reference
 * page (mounted when API_DOCS is on) is a viewer of this document, not API.
 */
const REFERENCE_PAGE = 'the service kit\'s /docs reference page: HTML and renderer files that display this document';
const NOT_DOCUMENTED: Record<string, string> = {
  'GET /docs': REFERENCE_PAGE,
  'GET /docs/init.js': REFERENCE_PAGE,
  'GET /docs/assets/{file}': REFERENCE_PAGE,
  'GET /favicon.ico': "the service kit's answer to browsers asking for an icon (204), not an API operation",
};
/** The operator console (docs/console.md): a single-page app's files and the settings it reads, a client of this API rather than a part of it. */
const CONSOLE = 'the operator console (routes/console.ts): its page, built files and sign-in settings, a client of this API';
Object.assign(NOT_DOCUMENTED, { 'GET /console': CONSOLE, 'GET /console/': CONSOLE, 'GET /console/config.json': CONSOLE, 'GET /console/*rest': CONSOLE });

const withoutDialect = (schema: object) => {
  const { $schema: _ignored, ...rest } = schema as Record<string, unknown>;
  return rest;
};

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a JSON document read in assertions
type Operation = any;
type Document = {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, unknown>; securitySchemes: Record<string, { type: string; in?: string }> };
};

describe('GET /openapi.json', () => {
  let identity: TestIdentity;
  let document: Document;
  beforeAll(async () => {
    identity = await startTestIdentity();
    const res = await request(identity.app).get('/openapi.json');
    expect(res.status).toBe(200);
    document = res.body;
  });
  afterAll(() => identity.close());

  it('is a valid OpenAPI 3.1 document (swagger-parser)', async () => {
    expect((document as unknown as { openapi: string }).openapi).toBe('3.1.0');
    await expect(SwaggerParser.validate(structuredClone(document) as never)).resolves.toBeDefined();
  });

  it('names exactly the routes the Express app declares (router walk, both ways)', () => {
    const declared = new Set(
      declaredRoutes(identity.app)
        .map((r) => `${r.method.toUpperCase()} ${toOpenApiPath(r.path)}`)
        .filter((key) => !(key in NOT_DOCUMENTED)),
    );
    const documented = new Set(
      Object.entries(document.paths).flatMap(([path, item]) =>
        Object.keys(item)
          .filter((method) => METHODS.includes(method))
          .map((method) => `${method.toUpperCase()} ${path}`),
      ),
    );
    expect([...declared].filter((key) => !documented.has(key))).toEqual([]);
    expect([...documented].filter((key) => !declared.has(key))).toEqual([]);
    expect(declared.size).toBeGreaterThan(40);
  });

  it('takes each management route\'s scope from the router (OAuth2 client-credentials scopes)', () => {
    const routes = managementRoutesOf(managementRouter({} as ManagementDependencies));
    for (const route of routes) {
      const operation = document.paths[`/api/v2${toOpenApiPath(route.path)}`]![route.method]!;
      expect(operation.security).toEqual([{ managementApi: [route.scope] }]);
      expect(operation.tags).toEqual(['Management']);
    }
  });

  it('uses the contracts schemas the routes validate with', () => {
    expect(document.components.schemas.StartRequest).toEqual(withoutDialect(toJsonSchema(StartRequestSchema)));
    expect(document.components.schemas.OAuthTokenRequest).toEqual(withoutDialect(toJsonSchema(OAuthTokenRequestSchema)));
    expect(document.components.schemas.ConnectionCreate).toEqual(withoutDialect(toJsonSchema(ConnectionCreateSchema)));
    expect(document.components.schemas.ClientCreate).toEqual(withoutDialect(toJsonSchema(ClientCreateSchema)));
    const token = document.paths['/oauth/token']!.post;
    expect(Object.keys(token.requestBody.content)).toEqual(['application/json', 'application/x-www-form-urlencoded']);
    expect(token.security).toEqual([{}, { clientSecretBasic: [] }]);
    expect(token.description).toMatch(/client_secret_post/);
  });

  it('declares no security scheme that would put a secret in a URL', () => {
    for (const scheme of Object.values(document.components.securitySchemes)) {
      expect(scheme.in).not.toBe('query');
    }
  });

  it('documents the paging, search and filter parameters from the contracts query schemas', () => {
    const names = (path: string) => document.paths[path]!.get.parameters.map((p: { name: string }) => p.name);
    const paging = ['page', 'per_page', 'include_totals'];
    const checkpoint = ['from', 'take'];
    const projection = ['fields', 'include_fields'];
    expect(names('/api/v2/users')).toEqual([...paging, ...projection, 'q', 'search_engine', 'sort', 'connection', 'primary_order']);
    expect(names('/api/v2/connections')).toEqual([...paging, ...checkpoint, ...projection, 'name', 'strategy']);
    expect(names('/api/v2/client-grants')).toEqual([...paging, ...checkpoint, 'client_id', 'audience']);
    expect(names('/api/v2/clients')).toEqual([...paging, ...projection, 'app_type']);
    expect(names('/api/v2/resource-servers')).toEqual([...paging, ...projection, 'identifiers']);
    expect(names('/api/v2/user-blocks')).toEqual(['identifier']);
    for (const path of ['/api/v2/connections/{id}', '/api/v2/clients/{id}', '/api/v2/resource-servers/{id}', '/api/v2/users/{id}']) {
      expect(names(path)).toEqual(['id', ...projection]);
    }
  });

  it('validates the list filters with those schemas (a repeated filter is a 400 naming it)', async () => {
    const token = await adminToken(identity.app);
    const res = await request(identity.app).get('/api/v2/client-grants?audience=a&audience=b').set('authorization', `Bearer ${token}`);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'invalid_request', details: [{ path: 'audience' }] });
    const ok = await request(identity.app).get('/api/v2/connections?name=no-such-connection').set('authorization', `Bearer ${token}`);
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual([]);
  });

  it('carries the documented flows (docs/identity.md) as request examples', () => {
    expect(Object.keys(document.paths['/passwordless/start']!.post.requestBody.content['application/json'].examples)).toEqual(['sendCode']);
    expect(Object.keys(document.paths['/oauth/token']!.post.requestBody.content['application/json'].examples)).toEqual(
      expect.arrayContaining(['otp', 'clientCredentials']),
    );
    expect(document.paths['/api/v2/connections']!.post.requestBody.content['application/json'].examples.smsConnection).toBeDefined();
  });

  it('refuses to build when a management route has no description or a description has no route', () => {
    expect(() =>
      buildIdentityOpenApiDocument({ version: '0', managementRoutes: [{ method: 'get', path: '/nope', scope: 'read:nope' }] }),
    ).toThrow(/does not describe the management route GET \/nope/);
    const operations = managementOperations({} as ManagementDependencies);
    const routes = managementRoutesOf(managementRouter({} as ManagementDependencies, operations));
    expect(() => buildIdentityOpenApiDocument({ version: '0', managementRoutes: routes.slice(1), managementOperations: operations })).toThrow(/do not exist/);
    const declaredRoute = routes.find((route) => route.path === '/clients' && route.method === 'post')!;
    expect(() =>
      buildIdentityOpenApiDocument({ version: '0', managementRoutes: routes.filter((route) => route !== declaredRoute), managementOperations: operations }),
    ).toThrow(/do not exist: POST \/clients/);
  });
});

describe('the management operations declared once (service kit defineOperation)', () => {
  const operations = managementOperations({} as ManagementDependencies);
  const build = (declared = operations) =>
    buildIdentityOpenApiDocument({
      version: '0',
      managementRoutes: managementRoutesOf(managementRouter({} as ManagementDependencies, declared)),
      managementOperations: declared,
    }) as unknown as Document;

  it('declares every management operation once, and the router serves exactly those', () => {
    const keys = operations.map((operation) => `${operation.method.toUpperCase()} ${operation.path}`);
    expect(new Set(keys).size).toBe(keys.length);
    expect(keys.length).toBeGreaterThanOrEqual(50);
    const served = managementRoutesOf(managementRouter({} as ManagementDependencies, operations)).map((route) => `${route.method.toUpperCase()} ${route.path}`);
    expect(served.sort()).toEqual([...keys].sort());
  });

  it('puts every declared operation in the document with its scope, parameters, body and answers', () => {
    const document = build();
    for (const operation of operations) {
      const published = document.paths[`/api/v2${toOpenApiPath(operation.path)}`]?.[operation.method];
      expect(published).toBeDefined();
      expect(published.security).toEqual([{ managementApi: [...operation.scopes!] }]);
      expect(published.summary).toBe(operation.summary);
      expect(Object.keys(published.responses)).toEqual(expect.arrayContaining([String(operation.successStatus), '401', '403']));
      const pathParameters = published.parameters?.filter((p: { in: string }) => p.in === 'path').map((p: { name: string }) => p.name) ?? [];
      expect(pathParameters).toEqual([...operation.path.matchAll(/:(\w+)/g)].map((m) => m[1]));
      if (operation.body) {
        // JSON unless the operation declares another media type (the users import is an upload).
        const mediaType = operation.body.mediaTypes?.[0] ?? 'application/json';
        expect(published.requestBody.content[mediaType].schema).toEqual({ $ref: `#/components/schemas/${operation.body.component}` });
        expect(document.components.schemas[operation.body.component!]).toEqual(withoutDialect(toJsonSchema(operation.body.schema)));
        expect(Object.keys(published.responses)).toEqual(expect.arrayContaining(['400', '413', '415']));
      } else {
        expect(published.requestBody).toBeUndefined();
      }
    }
  });

  it('builds a document that swagger-parser validates, with every $ref resolved', async () => {
    await expect(SwaggerParser.validate(structuredClone(build()) as never)).resolves.toBeDefined();
  });

  it('changes the document when a declared schema changes, with no other edit', () => {
    const changed = operations.map((operation) =>
      operation.method === 'post' && operation.path === '/client-grants'
        ? { ...operation, body: { schema: z.strictObject({ client_id: z.string().max(7) }), component: 'ClientGrantCreate' } }
        : operation,
    );
    expect(build(changed).components.schemas.ClientGrantCreate).toEqual({
      type: 'object',
      properties: { client_id: { type: 'string', maxLength: 7 } },
      required: ['client_id'],
      additionalProperties: false,
    });
  });

  it.each([
    ['ConnectionCreate', 'must contain the @@password@@ macro'],
    ['ConnectionCreate', 'An https origin with no path, port or trailing slash'],
    ['ConnectionUpdate', 'must output the code'],
    ['ClientCreate', 'client_credentials needs a confidential app_type'],
    ['ClientUpdate', 'A public app_type (spa, native) can only use none'],
    ['ResourceServerCreate', 'Each scope value at most once'],
    ['ClientGrantCreate', 'Each a scope the API (audience) defines'],
    ['ClientCredentialCreate', 'never a private key'],
    ['UserCreate', 'It must be a valid number (libphonenumber)'],
  ])('states in %s the rule the server refuses by: "%s"', (component, rule) => {
    expect(JSON.stringify(build().components.schemas[component])).toContain(rule);
  });

  it('describes fields projections and closed include_totals envelopes', () => {
    const document = build();
    const list = document.paths['/api/v2/clients']!.get.responses['200'].content['application/json'].schema;
    expect(list.oneOf).toHaveLength(2);
    expect(list.oneOf[1]).toMatchObject({ required: ['start', 'limit', 'total', 'clients'], additionalProperties: false });
    expect(list.oneOf[0].items.anyOf).toEqual([{ $ref: '#/components/schemas/ClientRecord' }, { $ref: '#/components/schemas/ClientRecordProjection' }]);
    const projection = document.components.schemas.ClientRecordProjection as { required?: string[]; properties: object };
    expect(projection.required).toBeUndefined();
    expect(Object.keys(projection.properties)).toEqual(Object.keys((document.components.schemas.ClientRecord as { properties: object }).properties));
  });
});

describe('authentication, discovery and the hosted login declared once (service kit defineOperation)', () => {
  const operations = [...declaredIdentityOperations('http://localhost:4000/api/v2/'), openApiOperation(() => ({}))];
  const served = operations.map((operation) => ({ method: operation.method, path: operation.path }));
  const build = (declared = operations, routes = served) =>
    buildIdentityOpenApiDocument({ version: '0', managementRoutes: [], operations: declared, routes }) as unknown as Document;

  it('declares each operation once and puts it in the document with its tag, summary and answers', () => {
    const keys = operations.map((operation) => `${operation.method.toUpperCase()} ${operation.path}`);
    expect(new Set(keys).size).toBe(keys.length);
    expect(keys).toEqual(expect.arrayContaining(['POST /passwordless/start', 'POST /oauth/token', 'GET /userinfo', 'GET /.well-known/jwks.json', 'GET /authorize', 'POST /authorize/code', 'POST /authorize/passkey/login', 'GET /openapi.json']));
    const document = build();
    for (const operation of operations) {
      const published = document.paths[toOpenApiPath(operation.path)]![operation.method];
      expect(published.summary).toBe(operation.summary);
      expect(published.tags).toEqual(operation.tags);
      expect(Object.keys(published.responses)).toEqual(expect.arrayContaining(Object.keys(operation.responses)));
    }
  });

  it('publishes the hosted login\'s pages as HTML and its posts as forms', () => {
    const document = build();
    const code = document.paths['/authorize/code']!.post;
    expect(Object.keys(code.requestBody.content)).toEqual(['application/x-www-form-urlencoded']);
    expect(code.requestBody.content['application/x-www-form-urlencoded'].schema.required).toEqual(['transaction', 'csrf_token', 'code']);
    expect(Object.keys(code.responses['200'].content)).toEqual(['text/html']);
    expect(code.responses['302'].headers.Location).toBeDefined();
  });

  it('states the logout parameters\' length limits the domain refuses by', () => {
    const parameters = build().paths['/oidc/logout']!.get.parameters as Array<{ name: string; schema: { maxLength?: number } }>;
    expect(parameters.find((p) => p.name === 'post_logout_redirect_uri')!.schema.maxLength).toBe(2048);
    expect(parameters.find((p) => p.name === 'id_token_hint')!.schema.maxLength).toBe(8192);
  });

  it('refuses to build when the app serves a route with no declaration, or a declaration has no route', () => {
    expect(() => build(operations, [...served, { method: 'get', path: '/authorize/nope' }])).toThrow(/does not describe the identity route GET \/authorize\/nope/);
    expect(() => build(operations, served.filter((route) => route.path !== '/userinfo'))).toThrow(/do not exist: GET \/userinfo/);
  });

  it('changes the document when a declared schema changes, with no other edit', () => {
    const changed = operations.map((operation) =>
      operation.path === '/v2/logout' ? { ...operation, query: z.object({ returnTo: z.string().max(9) }) } : operation,
    );
    expect(build(changed).paths['/v2/logout']!.get.parameters).toEqual([
      expect.objectContaining({ name: 'returnTo', in: 'query', required: true, schema: { type: 'string', maxLength: 9 } }),
    ]);
  });
});
