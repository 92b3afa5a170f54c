import request from 'supertest';
import { createServiceApp, INPUT_GUARD_REFUSAL, unacceptableTextProblem, withInputGuardRefusals } from '../src';
import { capturingLogger } from './helpers';

function buildGuardedApp() {
  const captured = capturingLogger();
  const seen: unknown[] = [];
  const { app } = createServiceApp({
    name: 'test',
    logger: captured.logger,
    urlencoded: true,
    routes: (app) => {
      app.get('/items/:id', (req, res) => {
        seen.push(req.params.id);
        res.json({ id: req.params.id, q: req.query.q ?? null });
      });
      app.post('/items', (req, res) => {
        seen.push(req.body);
        res.json({ received: req.body });
      });
    },
  });
  return { app, seen, ...captured };
}

describe('text no service accepts', () => {
  it.each([
    ['a NUL character', 'a\u0000b', 'contains a NUL character'],
    ['a lone high surrogate', 'a\ud800b', 'contains an unpaired UTF-16 surrogate'],
    ['a lone low surrogate at the start', '\udc00b', 'contains an unpaired UTF-16 surrogate'],
    ['a high surrogate at the end', 'ab\udbff', 'contains an unpaired UTF-16 surrogate'],
  ])('is refused when it holds %s', (_name, text, problem) => {
    expect(unacceptableTextProblem(text)).toBe(problem);
  });

  it.each([['plain text', 'Your code is 123456'], ['an emoji (a paired surrogate)', 'ok \ud83d\ude00'], ['accents', 'Ihr Code: ßäö'], ['empty', '']])(
    'is accepted when it is %s',
    (_name, text) => {
      expect(unacceptableTextProblem(text)).toBeUndefined();
    },
  );
});

describe('every route of a service app', () => {
  it('answers 400 for a malformed percent escape in the path, never reaching the route', async () => {
    const { app, seen, lines } = buildGuardedApp();
    const res = await request(app).get('/items/%E0%A4%A');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: 'invalid_request',
      error_description: 'The path is not valid percent-encoding of UTF-8',
      details: [{ path: '', message: 'is not valid percent-encoding of UTF-8' }],
    });
    expect(seen).toEqual([]);
    expect(lines()).not.toContain('unhandled error');
  });

  it('answers 400 for an escaped NUL in the path', async () => {
    const { app, seen } = buildGuardedApp();
    const res = await request(app).get('/items/a%00b');
    expect(res.status).toBe(400);
    expect(res.body.error_description).toBe('The path contains a NUL character');
    expect(seen).toEqual([]);
  });

  it('answers 400 naming the query parameter that holds a NUL', async () => {
    const { app, seen } = buildGuardedApp();
    const res = await request(app).get('/items/a?q=x%00y');
    expect(res.status).toBe(400);
    expect(res.body.error_description).toBe('Query parameter q contains a NUL character');
    expect(res.body.details).toEqual([{ path: 'q', message: 'contains a NUL character' }]);
    expect(seen).toEqual([]);
  });

  it('answers 400 naming the JSON body field that holds a NUL, however deep', async () => {
    const { app, seen } = buildGuardedApp();
    const res = await request(app)
      .post('/items')
      .set('content-type', 'application/json')
      .send('{"client_id":"ok","authParams":{"scope":["openid","a\\u0000b"]}}');
    expect(res.status).toBe(400);
    expect(res.body.error_description).toBe('Body field authParams.scope.1 contains a NUL character');
    expect(seen).toEqual([]);
  });

  it('answers 400 for a lone surrogate in a JSON body and for a NUL in a field name', async () => {
    const { app } = buildGuardedApp();
    const surrogate = await request(app).post('/items').set('content-type', 'application/json').send('{"name":"a\\ud800"}');
    expect(surrogate.status).toBe(400);
    expect(surrogate.body.error_description).toBe('Body field name contains an unpaired UTF-16 surrogate');
    const key = await request(app).post('/items').set('content-type', 'application/json').send('{"a\\u0000":"x"}');
    expect(key.status).toBe(400);
    expect(key.body.error_description).toBe('The body has a field name that contains a NUL character');
  });

  it('answers 400 saying the query has a parameter whose name holds a NUL, without echoing the name', async () => {
    const { app, seen } = buildGuardedApp();
    const res = await request(app).get('/items/a?a%00b=x');
    expect(res.status).toBe(400);
    expect(res.body.error_description).toBe('The query has a field name that contains a NUL character');
    expect(seen).toEqual([]);
  });

  it('answers 400 for a NUL in a form body', async () => {
    const { app } = buildGuardedApp();
    const res = await request(app).post('/items').type('form').send('grant_type=client_credentials&client_id=a%00b');
    expect(res.status).toBe(400);
    expect(res.body.error_description).toBe('Body field client_id contains a NUL character');
  });

  it('lets ordinary escaped text through to the route, decoded', async () => {
    const { app } = buildGuardedApp();
    const path = await request(app).get('/items/caf%C3%A9%20%F0%9F%98%80?q=%2B14155552671');
    expect(path.status).toBe(200);
    expect(path.body).toEqual({ id: 'café 😀', q: '+14155552671' });
    const body = await request(app).post('/items').send({ name: 'ok 😀', nested: { list: ['a', 1, null] } });
    expect(body.status).toBe(200);
  });
});

describe('the input guard in API documents', () => {
  const errorBody = { $ref: '#/components/schemas/ErrorBody' };

  it('adds its 400 to every operation that lists none, as JSON beside a page 400, and leaves a JSON 400 alone', () => {
    const jsonBadRequest = { description: 'Bad body.', content: { 'application/json': { schema: { type: 'object' } } } };
    const pageBadRequest = { description: 'An error page.', content: { 'text/html': { schema: { type: 'string' } } } };
    const paths = withInputGuardRefusals(
      {
        '/a': { get: { responses: { '200': { description: 'ok' } } }, parameters: [] },
        '/b': { post: { responses: { '400': jsonBadRequest } } },
        '/c': { post: { responses: { '400': pageBadRequest } } },
      },
      errorBody,
    ) as Record<string, Record<string, { responses: Record<string, { description: string; content: Record<string, unknown> }> }>>;
    expect(paths['/a']!.get!.responses['400']).toEqual({ description: INPUT_GUARD_REFUSAL, content: { 'application/json': { schema: errorBody } } });
    expect((paths['/a'] as unknown as { parameters: unknown[] }).parameters).toEqual([]);
    expect(paths['/b']!.post!.responses['400']).toBe(jsonBadRequest);
    expect(paths['/c']!.post!.responses['400']!.content).toEqual({ 'text/html': { schema: { type: 'string' } }, 'application/json': { schema: errorBody } });
    expect(paths['/c']!.post!.responses['400']!.description).toBe(`An error page. ${INPUT_GUARD_REFUSAL}`);
  });
});
