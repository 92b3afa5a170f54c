import SwaggerParser from '@apidevtools/swagger-parser';
import request from 'supertest';
import { DeliveryRequestSchema, MessageStatusSchema, OutboxMessageSchema, toJsonSchema } from '@smsauth/contracts';
import { buildGateway, deliveryBody } from './support/gateway';
import { SECRET } from './support/tokens';

const withoutDialect = (schema: object) => {
  const { $schema: _ignored, ...rest } = schema as Record<string, unknown>;
  return rest;
};

describe('GET /openapi.json', () => {
  it('describes POST /sms with the contracts DeliveryRequest schema', async () => {
    const res = await request(buildGateway().app).get('/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    expect(res.body.components.schemas.DeliveryRequest).toEqual(withoutDialect(toJsonSchema(DeliveryRequestSchema)));
    // Answers are published as the gateway writes them (output form: closed objects).
    expect(res.body.components.schemas.OutboxMessage).toEqual(withoutDialect(toJsonSchema(OutboxMessageSchema, 'output')));
    expect(res.body.paths['/sms'].post.requestBody.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/DeliveryRequest',
    });
    expect(Object.keys(res.body.paths['/sms'].post.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '403', '500']));
  });

  it('marks POST /sms as bearer-protected only when authentication is on', async () => {
    const open = (await request(buildGateway().app).get('/openapi.json')).body;
    const secured = (await request(buildGateway({ GATEWAY_AUTH_SECRET: SECRET }).app).get('/openapi.json')).body;
    expect(open.paths['/sms'].post.security).toBeUndefined();
    expect(secured.paths['/sms'].post.security).toEqual([{ deliveryToken: [] }]);
  });

  it('lists the outbox endpoints only when they are served', async () => {
    const outbox = (await request(buildGateway().app).get('/openapi.json')).body;
    const webhook = (await request(buildGateway({ SMS_PROVIDER: 'webhook', WEBHOOK_URL: 'http://127.0.0.1:9/' }).app).get('/openapi.json')).body;
    expect(outbox.paths['/outbox/messages']).toBeDefined();
    expect(webhook.paths['/outbox/messages']).toBeUndefined();
  });
});

describe('GET /openapi.json: message statuses and receipts', () => {
  it('describes GET /messages/{id} with the contracts MessageStatus schema and the receipt route only with a public URL', async () => {
    const local = (await request(buildGateway().app).get('/openapi.json')).body;
    const public_ = (await request(buildGateway({ GATEWAY_PUBLIC_URL: 'https://gw.example.com' }).app).get('/openapi.json')).body;
    expect(local.components.schemas.MessageStatus).toEqual(withoutDialect(toJsonSchema(MessageStatusSchema, 'output')));
    expect(local.paths['/messages/{id}'].get.responses['200'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/MessageStatus' });
    expect(local.paths['/sms'].post.responses['200'].headers).toHaveProperty('SMS-Message-Id');
    expect(local.paths['/receipts/{provider}/{id}']).toBeUndefined();
    expect(Object.keys(public_.paths['/receipts/{provider}/{id}'].post.responses)).toEqual(['204', '400', '403', '404']);
  });
});

describe('GET /openapi.json: tags and the receipt signatures', () => {
  it('puts every operation under a tag the document lists, and lists no tag without operations', async () => {
    const environments: Array<Record<string, string>> = [{}, { GATEWAY_PUBLIC_URL: 'https://gw.example.com' }, { SMS_PROVIDER: 'webhook', WEBHOOK_URL: 'http://127.0.0.1:9/' }];
    for (const env of environments) {
      const document = (await request(buildGateway(env).app).get('/openapi.json')).body;
      const operations = Object.values(document.paths as Record<string, Record<string, { tags?: string[] }>>).flatMap((path) => Object.values(path));
      const used = new Set(operations.flatMap((operation) => operation.tags ?? []));
      expect(operations.every((operation) => operation.tags?.length === 1)).toBe(true);
      expect(new Set((document.tags as Array<{ name: string }>).map((tag) => tag.name))).toEqual(used);
    }
  });

  it('names the signature header each provider signs its receipts with', async () => {
    const document = (await request(buildGateway({ GATEWAY_PUBLIC_URL: 'https://gw.example.com' }).app).get('/openapi.json')).body;
    const headers = (document.paths['/receipts/{provider}/{id}'].post.parameters as Array<{ name: string; in: string }>).filter((p) => p.in === 'header');
    expect(headers.map((header) => header.name)).toEqual([
      'X-Twilio-Signature',
      'Webhook-Signature',
      'Telnyx-Signature-Ed25519',
      'Telnyx-Timestamp',
      'X-Plivo-Signature-V3',
      'X-Plivo-Signature-Ma-V3',
      'X-Plivo-Signature-V3-Nonce',
      'X-Sinch-Webhook-Signature',
      'X-Sinch-Webhook-Signature-Nonce',
      'X-Sinch-Webhook-Signature-Timestamp',
      'X-Sinch-Webhook-Signature-Algorithm',
    ]);
    // Sinch and Infobip receipts carry the gateway's token in their URL instead (or as well).
    const query = (document.paths['/receipts/{provider}/{id}'].post.parameters as Array<{ name: string; in: string }>).filter((p) => p.in === 'query');
    expect(query.map((parameter) => parameter.name)).toEqual(['receipt_token']);
  });
});

describe('GET /openapi.json: generated from the declared operations', () => {
  const everything = { GATEWAY_AUTH_SECRET: SECRET, GATEWAY_PUBLIC_URL: 'https://gw.example.com', OUTBOX_TOKEN: 'outbox-token-for-the-document' };

  it('lists every operation the gateway serves once, the kit probes and the outbox page included', async () => {
    const document = (await request(buildGateway(everything).app).get('/openapi.json')).body;
    const operations = Object.entries(document.paths as Record<string, Record<string, unknown>>).flatMap(([path, item]) =>
      Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(operations).toEqual([
      'POST /sms',
      'GET /messages/{id}',
      'POST /receipts/{provider}/{id}',
      'GET /outbox/messages',
      'DELETE /outbox/messages',
      'GET /outbox',
      'GET /openapi.json',
      'GET /healthz',
      'GET /readyz',
      'GET /metrics',
    ]);
  });

  it('names each credential where it is demanded: the delivery token, and the outbox token on the outbox API and page', async () => {
    const document = (await request(buildGateway(everything).app).get('/openapi.json')).body;
    expect(document.paths['/messages/{id}'].get.security).toEqual([{ deliveryToken: [] }]);
    expect(document.paths['/outbox/messages'].get.security).toEqual([{ outboxToken: [] }]);
    expect(document.paths['/outbox/messages'].delete.security).toEqual([{ outboxToken: [] }]);
    expect(document.paths['/outbox'].get.security).toEqual([{ outboxToken: [] }]);
    expect(document.paths['/receipts/{provider}/{id}'].post.security).toBeUndefined();
    expect(document.paths['/healthz'].get.security).toBeUndefined();
    const open = (await request(buildGateway().app).get('/openapi.json')).body;
    expect(open.paths['/outbox'].get.security).toBeUndefined();
  });

  it('documents the Idempotency-Key header with the schema that refuses a bad one', async () => {
    const { app } = buildGateway();
    const document = (await request(app).get('/openapi.json')).body;
    expect(document.paths['/sms'].post.parameters).toEqual([
      expect.objectContaining({ name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string', pattern: '^[\\x21-\\x7e]{1,255}$' } }),
    ]);
    const refused = await request(app).post('/sms').set('Idempotency-Key', 'x'.repeat(256)).send(deliveryBody());
    expect(refused.body).toEqual({
      error: 'invalid_request',
      error_description: 'Idempotency-Key header: must be 1-255 visible ASCII characters',
      details: [{ path: 'Idempotency-Key', message: 'must be 1-255 visible ASCII characters' }],
    });
  });

  it('describes the answers that are not JSON with their content types: the outbox page and the metrics', async () => {
    const { app } = buildGateway();
    const document = (await request(app).get('/openapi.json')).body;
    expect(Object.keys(document.paths['/outbox'].get.responses['200'].content)).toEqual(['text/html']);
    expect(Object.keys(document.paths['/metrics'].get.responses['200'].content)).toEqual(['text/plain']);
    expect((await request(app).get('/outbox')).headers['content-type']).toMatch(/^text\/html/);
    expect((await request(app).get('/metrics')).headers['content-type']).toMatch(/^text\/plain/);
  });

  it('is a valid OpenAPI 3.1 document in every configuration', async () => {
    const environments: Array<Record<string, string>> = [{}, everything, { SMS_PROVIDER: 'webhook', WEBHOOK_URL: 'http://127.0.0.1:9/' }];
    for (const env of environments) {
      const document = (await request(buildGateway(env).app).get('/openapi.json')).body;
      await expect(SwaggerParser.validate(document)).resolves.toBeDefined();
    }
  });
});

describe('GET /docs', () => {
  it('renders /openapi.json as the reference page; off in production unless API_DOCS=true', async () => {
    const page = await request(buildGateway().app).get('/docs').expect(200);
    expect(page.headers['content-security-policy']).toContain("default-src 'none'");
    expect(page.text).toContain('data-document-url="/openapi.json"');
    await request(buildGateway({ NODE_ENV: 'production', SMS_PROVIDER: 'outbox' }).app).get('/docs').expect(404);
    await request(buildGateway({ NODE_ENV: 'production', SMS_PROVIDER: 'outbox', API_DOCS: 'true' }).app).get('/docs').expect(200);
  });
});
