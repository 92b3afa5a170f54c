import SwaggerParser from '@apidevtools/swagger-parser';
import { Router, type RequestHandler } from 'express';
import request from 'supertest';
import { z } from 'zod';
import {
  checkRoutesDeclared,
  createServiceApp,
  defineOperation,
  HttpError,
  mountOperations,
  openApiPathsOf,
  redirectResponse,
  SchemaComponents,
  servedRoutesOf,
  textResponse,
  type Operation,
} from '../src';
import { capturingLogger } from './helpers';

const ItemCreateSchema = z.strictObject({ name: z.string().min(1), size: z.number().int().positive().optional() });
const ItemSchema = z.object({ id: z.string(), name: z.string(), size: z.number().int().optional() });

function itemOperations(calls: unknown[]): Operation[] {
  return [
    defineOperation({
      method: 'post',
      path: '/items',
      summary: 'Create an item',
      scopes: ['create:items'],
      body: { schema: ItemCreateSchema, component: 'ItemCreate' },
      responses: { '201': { description: 'Created.', schema: ItemSchema, component: 'Item' } },
      handle: ({ body }) => {
        calls.push(body);
        return { id: 'i1', ...body };
      },
    }),
    defineOperation({
      method: 'get',
      path: '/items/:id',
      summary: 'Get an item',
      scopes: ['read:items'],
      params: z.object({ id: z.string().regex(/^i\d+$/) }),
      query: z.object({ verbose: z.enum(['true', 'false']).optional() }),
      responses: { '200': { description: 'The item.', schema: ItemSchema, component: 'Item' } },
      handle: ({ params, query }) => {
        calls.push({ params, query });
        return { id: params.id, name: query.verbose === 'true' ? 'a verbose item' : 'item' };
      },
    }),
    defineOperation({
      method: 'delete',
      path: '/items/:id',
      summary: 'Delete an item',
      scopes: ['delete:items'],
      responses: { '204': { description: 'Deleted.' } },
      handle: ({ params }) => {
        calls.push(params);
      },
    }),
  ];
}

/** The caller's scopes come from the `x-scopes` header: enough to see the guard run before validation. */
const scopeGuard =
  (operation: Operation): RequestHandler =>
  (req, _res, next) => {
    const granted = String(req.headers['x-scopes'] ?? '').split(' ');
    if (!operation.scopes!.every((scope) => granted.includes(scope))) throw new HttpError(403, 'insufficient_scope', 'Insufficient scope');
    next();
  };

function buildApp() {
  const calls: unknown[] = [];
  const operations = itemOperations(calls);
  const { app } = createServiceApp({
    name: 'test',
    logger: capturingLogger().logger,
    routes: (app) => {
      app.use('/api', mountOperations(Router(), operations, { guards: (operation) => [scopeGuard(operation)] }));
    },
  });
  return { app, calls, operations };
}

describe('an operation declared once', () => {
  it('hands the handler the parsed body and answers with its declared success status', async () => {
    const { app, calls } = buildApp();
    const res = await request(app).post('/api/items').set('x-scopes', 'create:items').send({ name: 'box', size: 3 });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ id: 'i1', name: 'box', size: 3 });
    expect(calls).toEqual([{ name: 'box', size: 3 }]);
  });

  it('refuses a body its schema refuses with a 400 naming the field, without calling the handler', async () => {
    const { app, calls } = buildApp();
    const res = await request(app).post('/api/items').set('x-scopes', 'create:items').send({ name: 'box', size: -1 });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'invalid_request', details: [{ path: 'size' }] });
    expect(res.body.error_description).toMatch(/^size: /);
    expect(calls).toEqual([]);
  });

  it('validates path parameters and the query string with their schemas', async () => {
    const { app, calls } = buildApp();
    const badId = await request(app).get('/api/items/x9').set('x-scopes', 'read:items');
    expect(badId.status).toBe(400);
    expect(badId.body.details).toEqual([expect.objectContaining({ path: 'id' })]);
    const badQuery = await request(app).get('/api/items/i9?verbose=maybe').set('x-scopes', 'read:items');
    expect(badQuery.status).toBe(400);
    expect(badQuery.body.details).toEqual([expect.objectContaining({ path: 'verbose' })]);
    const ok = await request(app).get('/api/items/i9?verbose=true').set('x-scopes', 'read:items');
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ id: 'i9', name: 'a verbose item' });
    expect(calls).toEqual([{ params: { id: 'i9' }, query: { verbose: 'true' } }]);
  });

  it('runs its guards before validation: no scope is a 403 even for a bad body', async () => {
    const { app, calls } = buildApp();
    const res = await request(app).post('/api/items').set('x-scopes', 'read:items').send({ size: 'big' });
    expect(res.status).toBe(403);
    expect(calls).toEqual([]);
  });

  it('answers an operation declared without a body with no body', async () => {
    const { app, calls } = buildApp();
    const res = await request(app).delete('/api/items/i4').set('x-scopes', 'delete:items');
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect(calls).toEqual([{ id: 'i4' }]);
  });

  it('is refused at declaration when it names no success status or params its path lacks', () => {
    const responses = { '400': { description: 'Bad.' } };
    expect(() => defineOperation({ method: 'get', path: '/a', summary: 'A', responses, handle: () => undefined })).toThrow(/exactly one 2xx/);
    expect(() =>
      defineOperation({
        method: 'get',
        path: '/a/:id',
        summary: 'A',
        params: z.object({ other: z.string() }),
        responses: { '200': { description: 'OK.' } },
        handle: () => undefined,
      }),
    ).toThrow(/declares params other but its path has id/);
  });

  it('publishes the same schemas in a valid OpenAPI document', async () => {
    const components = new SchemaComponents();
    const paths = openApiPathsOf(buildApp().operations, { prefix: '/api', securityScheme: 'oauth', components });
    const document = {
      openapi: '3.1.0',
      info: { title: 'items', version: '1' },
      paths,
      components: {
        schemas: components.toJson(),
        securitySchemes: { oauth: { type: 'oauth2', flows: { clientCredentials: { tokenUrl: '/token', scopes: {} } } } },
      },
    };
    await expect(SwaggerParser.validate(structuredClone(document) as never)).resolves.toBeDefined();
    const item = (paths['/api/items/{id}'] as Record<string, { parameters: unknown[]; security: unknown }>).get!;
    expect(item.security).toEqual([{ oauth: ['read:items'] }]);
    expect(item.parameters).toEqual([
      { name: 'id', in: 'path', required: true, schema: { type: 'string', pattern: '^i\\d+$' } },
      { name: 'verbose', in: 'query', required: false, schema: { type: 'string', enum: ['true', 'false'] } },
    ]);
    expect(components.toJson().ItemCreate).toMatchObject({ required: ['name'], additionalProperties: false });
    expect(components.toJson().Item).toMatchObject({ required: ['id', 'name'] });
  });

  it('refuses to publish two different schemas under one component name', () => {
    const components = new SchemaComponents();
    components.ref('Item', ItemSchema, 'output');
    expect(() => components.ref('Item', ItemCreateSchema, 'output')).toThrow(/Two different schemas are published as Item/);
  });
});

/** A login form whose handler validates itself and answers a page or a redirect (the hosted-login style). */
function formOperations(seen: unknown[]): Operation[] {
  return [
    defineOperation({
      method: 'post',
      path: '/login',
      summary: 'Log in with a form',
      security: [{}, { basic: [] }],
      headers: z.object({ 'Idempotency-Key': z.string().regex(/^[a-z]{1,8}$/).optional() }),
      headerDescriptions: { 'Idempotency-Key': 'Sent again with a retry.' },
      body: { schema: z.object({ user: z.string().min(3) }), mediaTypes: ['application/x-www-form-urlencoded', 'application/json'] },
      validation: 'handler',
      responses: { '200': textResponse('The page.'), '302': redirectResponse('Home.'), '400': textResponse('The form again.') },
      handle: ({ body, res }) => {
        seen.push(body);
        const user = (body as { user?: unknown }).user;
        if (typeof user !== 'string' || user.length < 3) return void res.status(400).type('html').send('<p>Too short</p>');
        if (user === 'home') return res.redirect(302, '/home');
        res.type('html').send(`<p>Hello ${user}</p>`);
      },
    }),
  ];
}

describe('an operation whose handler validates and answers itself', () => {
  const build = (seen: unknown[]) =>
    createServiceApp({ name: 'test', logger: capturingLogger().logger, urlencoded: true, routes: (app) => void app.use(mountOperations(Router(), formOperations(seen))) }).app;

  it('hands the handler the raw body: its own refusal (an HTML page) goes out, not the kit\'s 400', async () => {
    const seen: unknown[] = [];
    const res = await request(build(seen)).post('/login').type('form').send('user=ab');
    expect(res.status).toBe(400);
    expect(res.type).toBe('text/html');
    expect(res.text).toBe('<p>Too short</p>');
    expect(seen).toEqual([{ user: 'ab' }]);
  });

  it('sends the page or redirect the handler chose', async () => {
    const app = build([]);
    const page = await request(app).post('/login').type('form').send('user=alice');
    expect(page.status).toBe(200);
    expect(page.text).toBe('<p>Hello alice</p>');
    const redirect = await request(app).post('/login').send({ user: 'home' });
    expect(redirect.status).toBe(302);
    expect(redirect.headers.location).toBe('/home');
  });

  it('publishes its security, header parameters, media types and text answers', async () => {
    const components = new SchemaComponents();
    const paths = openApiPathsOf(formOperations([]), { components });
    const login = (paths['/login'] as Record<string, Record<string, unknown>>).post!;
    expect(login.security).toEqual([{}, { basic: [] }]);
    expect(login.parameters).toEqual([
      { name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string', pattern: '^[a-z]{1,8}$' }, description: 'Sent again with a retry.' },
    ]);
    expect(Object.keys((login.requestBody as { content: object }).content)).toEqual(['application/x-www-form-urlencoded', 'application/json']);
    expect(login.responses).toEqual({
      '200': { description: 'The page.', content: { 'text/html': { schema: { type: 'string' } } } },
      '302': { description: 'Home.', headers: { Location: { schema: { type: 'string' } } } },
      '400': { description: 'The form again.', content: { 'text/html': { schema: { type: 'string' } } } },
    });
    const document = {
      openapi: '3.1.0',
      info: { title: 'login', version: '1' },
      paths,
      components: { schemas: components.toJson(), securitySchemes: { basic: { type: 'http', scheme: 'basic' } } },
    };
    await expect(SwaggerParser.validate(structuredClone(document) as never)).resolves.toBeDefined();
  });
});

describe('the start-up check that routes and declarations agree', () => {
  it('names a route served without a declaration, and a declaration nothing serves', () => {
    const operations = formOperations([]);
    const router = mountOperations(Router(), operations);
    expect(() => checkRoutesDeclared(servedRoutesOf(router), operations, 'test')).not.toThrow();
    router.get('/extra', (_req, res) => void res.end());
    expect(() => checkRoutesDeclared(servedRoutesOf(router), operations, 'test')).toThrow(/does not describe the test route GET \/extra/);
    expect(() => checkRoutesDeclared([], operations, 'test')).toThrow(/describes test routes that do not exist: POST \/login/);
  });
});

describe("the kit's own routes", () => {
  it('are declared operations: /healthz, /readyz and /metrics, tag Operations', async () => {
    let kit: readonly Operation[] = [];
    const { app } = createServiceApp({ name: 'test', logger: capturingLogger().logger, routes: (_app, kitOperations) => void (kit = kitOperations) });
    expect(kit.map((operation) => `${operation.method} ${operation.path}`)).toEqual(['get /healthz', 'get /readyz', 'get /metrics']);
    expect(kit.every((operation) => operation.tags?.includes('Operations'))).toBe(true);
    expect((await request(app).get('/healthz')).body).toEqual({ status: 'ok' });
    expect((await request(app).get('/readyz')).body).toEqual({ status: 'ready', checks: {} });
    expect((await request(app).get('/metrics')).text).toContain('# HELP');
  });
});
