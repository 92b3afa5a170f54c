import SwaggerParser from '@apidevtools/swagger-parser';
import express, { Router } from 'express';
import request from 'supertest';
import { z } from 'zod';
import { createServiceApp, defineOperation, Lifecycle, createMetricsRegistry, mountOperations, openApiPathsOf, probeOperations, SchemaComponents, type Operation } from '../src';
import { capturingLogger } from './helpers';

// What a declaration says besides params, query and body: request headers, a body the handler
// reads from its bytes, a security scheme of its own, and answers that are not JSON.

const NoteSchema = z.object({ text: z.string().min(1) });

function noteOperations(calls: unknown[]): Operation[] {
  return [
    defineOperation({
      method: 'post',
      path: '/notes',
      summary: 'Keep a note',
      security: [{ noteToken: [] }],
      headers: z.object({ 'Request-Key': z.string().regex(/^[a-z]{1,8}$/, { message: 'must be 1-8 lowercase letters' }).optional() }),
      headerDescriptions: { 'Request-Key': 'The same key twice keeps one note.' },
      body: { schema: NoteSchema },
      responses: { '204': { description: 'Kept.' } },
      handle: ({ body, headers }) => {
        calls.push({ body, headers });
      },
    }),
    defineOperation({
      method: 'post',
      path: '/signed',
      summary: 'A body read from its bytes',
      rawBody: {
        description: 'Signed over its bytes.',
        content: { 'application/x-www-form-urlencoded': { schema: z.record(z.string(), z.string()) }, 'application/json': { schema: NoteSchema, component: 'Note' } },
      },
      responses: { '200': { description: 'What was read.', contentType: 'text/plain', jsonSchema: { type: 'string' } } },
      handle: ({ body, req }) => {
        calls.push({ body });
        return `read ${(req.body as Buffer).length} bytes`;
      },
    }),
  ];
}

function buildApp() {
  const calls: unknown[] = [];
  const operations = noteOperations(calls);
  const readBytes = express.raw({ type: () => true });
  const { app } = createServiceApp({
    name: 'test',
    logger: capturingLogger().logger,
    routes: (app) => {
      app.use(mountOperations(Router(), operations, { guards: (operation) => (operation.rawBody ? [readBytes] : []) }));
    },
  });
  return { app, calls, operations };
}

describe('an operation that declares request headers', () => {
  it('hands the handler the parsed header, read whatever its case', async () => {
    const { app, calls } = buildApp();
    await request(app).post('/notes').set('request-key', 'abc').send({ text: 'hi' }).expect(204);
    await request(app).post('/notes').send({ text: 'no key' }).expect(204);
    expect(calls).toEqual([
      { body: { text: 'hi' }, headers: { 'Request-Key': 'abc' } },
      { body: { text: 'no key' }, headers: {} },
    ]);
  });

  it('refuses a header its schema refuses with a 400 naming the header, without calling the handler', async () => {
    const { app, calls } = buildApp();
    const res = await request(app).post('/notes').set('Request-Key', 'NOT-OK').send({ text: 'hi' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: 'invalid_request',
      error_description: 'Request-Key header: must be 1-8 lowercase letters',
      details: [{ path: 'Request-Key', message: 'must be 1-8 lowercase letters' }],
    });
    expect(calls).toEqual([]);
  });

  it('publishes the header as a parameter and its own security scheme, in a valid document', async () => {
    const components = new SchemaComponents();
    const paths = openApiPathsOf(buildApp().operations, { components });
    const notes = (paths['/notes'] as Record<string, Record<string, unknown>>).post!;
    expect(notes.parameters).toEqual([
      { name: 'Request-Key', in: 'header', required: false, description: 'The same key twice keeps one note.', schema: { type: 'string', pattern: '^[a-z]{1,8}$' } },
    ]);
    expect(notes.security).toEqual([{ noteToken: [] }]);
    const document = {
      openapi: '3.1.0',
      info: { title: 'notes', version: '1' },
      paths,
      components: { schemas: components.toJson(), securitySchemes: { noteToken: { type: 'http', scheme: 'bearer' } } },
    };
    await expect(SwaggerParser.validate(structuredClone(document) as never)).resolves.toBeDefined();
  });
});

describe('an operation whose handler reads the body from its bytes', () => {
  it('leaves the body to the handler and sends its text answer with the declared content type', async () => {
    const { app, calls } = buildApp();
    const res = await request(app).post('/signed').type('form').send('a=1&b=2');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    expect(res.text).toBe('read 7 bytes');
    expect(calls).toEqual([{ body: undefined }]);
  });

  it('documents one schema per media type', () => {
    const components = new SchemaComponents();
    const signed = (openApiPathsOf(buildApp().operations, { components })['/signed'] as Record<string, Record<string, unknown>>).post!;
    expect(signed.requestBody).toEqual({
      required: true,
      description: 'Signed over its bytes.',
      content: {
        'application/x-www-form-urlencoded': { schema: { type: 'object', propertyNames: { type: 'string' }, additionalProperties: { type: 'string' } } },
        'application/json': { schema: { $ref: '#/components/schemas/Note' } },
      },
    });
  });

  it('cannot also declare a parsed body', () => {
    expect(() =>
      defineOperation({
        method: 'post',
        path: '/both',
        summary: 'Both',
        body: { schema: NoteSchema },
        rawBody: { content: { 'text/plain': { schema: z.string() } } },
        responses: { '204': { description: 'OK.' } },
        handle: () => undefined,
      }),
    ).toThrow(/both a body and a raw body/);
  });
});

describe('the probes every service answers', () => {
  it('are declared once: the document lists what createServiceApp serves', async () => {
    const components = new SchemaComponents();
    const paths = openApiPathsOf(probeOperations(new Lifecycle(), createMetricsRegistry('test')), { components });
    expect(Object.keys(paths)).toEqual(['/healthz', '/readyz', '/metrics']);
    expect(Object.keys((paths['/metrics'] as Record<string, { responses: Record<string, { content: object }> }>).get!.responses['200']!.content)).toEqual(['text/plain']);
    const document = { openapi: '3.1.0', info: { title: 'probes', version: '1' }, paths, components: { schemas: components.toJson() } };
    await expect(SwaggerParser.validate(structuredClone(document) as never)).resolves.toBeDefined();
    const { app } = createServiceApp({ name: 'test', logger: capturingLogger().logger, routes: () => undefined });
    expect((await request(app).get('/healthz')).body).toEqual({ status: 'ok' });
    const metrics = await request(app).get('/metrics');
    expect(metrics.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
  });
});
