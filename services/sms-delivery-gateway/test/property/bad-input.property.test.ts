import { DeliveryRequestSchema, IdempotencyKeySchema, OAuthErrorBodySchema, OutboxMessageListSchema, OutboxQuerySchema } from '@smsauth/contracts';
import fc from 'fast-check';
import request from 'supertest';
import { IDEMPOTENCY_MAX_KEYS } from '../../src/domain/idempotency';
import { buildGateway, deliveryBody, metricValue, type TestGateway } from '../support/gateway';
import { signHs256, SECRET } from '../support/tokens';
import { checkProperty, POLLUTION_KEYS, pollutedJson, propertyTimeout, prototypeSnapshot } from '@smsauth/test-support';

// 30 s per test (the suite's default), scaled with FC_NUM_RUNS: more runs are more requests. Each
// property sends 100 requests through supertest, each on a server of its own; on a 2-core CI
// machine busy with two jest workers and the typecheck, 5 s was not always enough for 100 of them.
jest.setTimeout(propertyTimeout(30_000));

const OUTBOX_TOKEN = 'outbox-token-for-property-tests-0123456789';
const AUTH_ENV = { GATEWAY_AUTH_SECRET: SECRET, OUTBOX_TOKEN };

/** The outbox as the read API shows it: the state a rejected delivery must not change. */
async function outboxState(gateway: TestGateway): Promise<unknown[]> {
  const res = await request(gateway.app).get('/outbox/messages').set('Authorization', `Bearer ${OUTBOX_TOKEN}`);
  expect(res.status).toBe(200);
  return OutboxMessageListSchema.parse(res.body);
}

async function deliveredCount(gateway: TestGateway): Promise<number> {
  return (await metricValue(gateway.metrics, 'sms_deliveries_total', { outcome: 'delivered' })) ?? 0;
}

/** Messages sent and deliveries answered as replays, read from the two counters alone (cheaper than the whole /metrics text). */
async function sendCounts(gateway: TestGateway): Promise<{ delivered: number; replayed: number }> {
  const total = async (name: string, labels: Record<string, string>) => {
    const values = (await gateway.metrics.getSingleMetric(name)?.get())?.values ?? [];
    return values.filter((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l)).reduce((sum, v) => sum + v.value, 0);
  };
  return { delivered: await total('sms_deliveries_total', { outcome: 'delivered' }), replayed: await total('sms_idempotent_replays_total', {}) };
}

/** A header value as the server receives it: HTTP drops leading and trailing spaces and tabs (RFC 9110 §5.5). */
const receivedHeaderValue = (value: string): string => value.replace(/^[\t ]+|[\t ]+$/g, '');

function expectJsonClientError(res: request.Response, statuses: number[] = [400]): void {
  if (!statuses.includes(res.status)) throw new Error(`expected ${statuses.join('/')}, got ${res.status}: ${res.text.slice(0, 300)}`);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(OAuthErrorBodySchema.safeParse(JSON.parse(res.text)).success).toBe(true);
}

/** Any JSON text except a valid delivery request (those are accepted, which is not bad input). */
const invalidDeliveryJson = fc
  .oneof(
    fc.json({ depthSize: 'medium' }),
    fc.jsonValue({ maxDepth: 60, depthSize: 'large' }).map((v) => JSON.stringify(v)),
    // valid request with one field replaced by anything JSON can carry
    fc
      .tuple(fc.constantFrom('recipient', 'body', 'sender', 'req'), fc.jsonValue())
      .map(([field, value]) => JSON.stringify(deliveryBody({ [field]: value }))),
    // valid request with a field missing
    fc.constantFrom('recipient', 'body').map((field) => {
      const { [field]: _dropped, ...rest } = deliveryBody();
      return JSON.stringify(rest);
    }),
  )
  .filter((text) => !DeliveryRequestSchema.safeParse(JSON.parse(text)).success);

describe('sms-delivery-gateway under arbitrary input (property-based)', () => {
  let gateway: TestGateway;
  let authorization: string;

  beforeAll(() => {
    gateway = buildGateway(AUTH_ENV);
    authorization = `Bearer ${signHs256()}`;
  });

  it('answers any JSON body that is not a delivery request with a 400 error body and sends nothing', async () => {
    const before = await outboxState(gateway);
    const delivered = await deliveredCount(gateway);
    await checkProperty(
      'POST /sms invalid JSON body',
      fc.asyncProperty(invalidDeliveryJson, async (text) => {
        const res = await request(gateway.app)
          .post('/sms')
          .set('Authorization', authorization)
          .set('Content-Type', 'application/json')
          .send(text);
        expectJsonClientError(res);
      }),
    );
    expect(await outboxState(gateway)).toEqual(before);
    expect(await deliveredCount(gateway)).toBe(delivered);
  });

  it('answers any non-JSON body or content type with a 4xx error body and sends nothing', async () => {
    const before = await outboxState(gateway);
    await checkProperty(
      'POST /sms arbitrary bytes and content type',
      fc.asyncProperty(
        fc.string({ maxLength: 500, unit: 'binary' }),
        fc.constantFrom('application/json', 'text/plain', 'application/x-www-form-urlencoded', 'application/octet-stream', 'application/json; charset=utf-16'),
        async (text, contentType) => {
          fc.pre(contentType !== 'application/json' || !isDelivery(text));
          const res = await request(gateway.app).post('/sms').set('Authorization', authorization).set('Content-Type', contentType).send(text);
          expectJsonClientError(res, [400, 415]);
        },
      ),
    );
    expect(await outboxState(gateway)).toEqual(before);
  });

  it('refuses any Authorization header that is not a valid token with 401 and sends nothing', async () => {
    const before = await outboxState(gateway);
    await checkProperty(
      'POST /sms arbitrary Authorization',
      fc.asyncProperty(
        fc.oneof(
          fc.string({ maxLength: 300 }),
          fc.tuple(fc.constantFrom('Bearer ', 'bearer ', 'Basic ', ''), fc.base64String({ maxLength: 300 })).map(([s, t]) => s + t),
          fc
            .tuple(fc.base64String({ maxLength: 80 }), fc.base64String({ maxLength: 200 }), fc.base64String({ maxLength: 80 }))
            .map(([h, p, s]) => `Bearer ${h}.${p}.${s}`.replace(/=/g, '')),
        ),
        async (header) => {
          const sanitized = header.replace(/[^\t\x20-\x7e]/g, '');
          const res = await request(gateway.app).post('/sms').set('Authorization', sanitized).send(deliveryBody());
          expectJsonClientError(res, [401]);
        },
      ),
    );
    expect(await outboxState(gateway)).toEqual(before);
  });

  it('answers an Idempotency-Key the schema accepts, as the server receives it, with 200 and one send per key, and any other with a 400 error body and no send', async () => {
    // The gateway remembers every key for the whole suite (fixed clock, so none expires), and the
    // body is derived from the received key: two generated headers that arrive as the same key
    // carry the same message, so the second is a replay, never a 422.
    const used = new Set<string>();
    await checkProperty(
      'POST /sms arbitrary Idempotency-Key',
      fc.asyncProperty(fc.string({ minLength: 1, maxLength: 400 }), async (raw) => {
        const header = raw.replace(/[^\t\x20-\x7e]/g, '');
        const key = receivedHeaderValue(header);
        const before = await sendCounts(gateway);
        const res = await request(gateway.app)
          .post('/sms')
          .set('Authorization', authorization)
          .set('Idempotency-Key', header)
          .send(deliveryBody({ body: `idempotency ${key}` }));
        if (!IdempotencyKeySchema.safeParse(key).success) {
          expectJsonClientError(res);
          expect(await sendCounts(gateway)).toEqual(before);
          return;
        }
        if (res.status !== 200) throw new Error(`expected 200 for the key ${JSON.stringify(key)}, got ${res.status}: ${res.text.slice(0, 300)}`);
        // The store is bounded (least recently used keys go first); the suite stays far below it.
        expect(used.size).toBeLessThan(IDEMPOTENCY_MAX_KEYS);
        if (used.has(key)) {
          expect(res.headers['idempotent-replayed']).toBe('true');
          expect(await sendCounts(gateway)).toEqual({ delivered: before.delivered, replayed: before.replayed + 1 });
        } else {
          expect(res.headers['idempotent-replayed']).toBeUndefined();
          expect(await sendCounts(gateway)).toEqual({ delivered: before.delivered + 1, replayed: before.replayed });
          used.add(key);
        }
      }),
    );
  });

  it('answers any outbox query string with 200 or a 400 error body, never 5xx', async () => {
    const queryPart = fc.tuple(fc.constantFrom('recipient', 'recipient[]', 'recipient[a]', 'x', '__proto__', 'recipient[__proto__]'), fc.string({ maxLength: 40 }));
    await checkProperty(
      'GET /outbox/messages arbitrary query',
      fc.asyncProperty(fc.array(queryPart, { maxLength: 5 }), async (pairs) => {
        const query = pairs.map(([k, v]) => `${encodeURIComponent(k).replace(/%5B/g, '[').replace(/%5D/g, ']')}=${encodeURIComponent(v)}`).join('&');
        const res = await request(gateway.app).get(`/outbox/messages?${query}`).set('Authorization', `Bearer ${OUTBOX_TOKEN}`);
        if (res.status === 200) {
          expect(OutboxMessageListSchema.safeParse(res.body).success).toBe(true);
          return;
        }
        expectJsonClientError(res);
      }),
    );
  });

  it('refuses a JSON body over 100 kB with 413 and sends nothing, whatever its shape', async () => {
    const before = await outboxState(gateway);
    await checkProperty(
      'POST /sms oversized',
      fc.asyncProperty(fc.integer({ min: 100 * 1024 + 1, max: 400 * 1024 }), fc.constantFrom('body', 'sender', 'padding'), async (size, field) => {
        const text = JSON.stringify(deliveryBody({ [field]: 'x'.repeat(size) }));
        const res = await request(gateway.app).post('/sms').set('Authorization', authorization).set('Content-Type', 'application/json').send(text);
        expectJsonClientError(res, [413]);
      }),
      20,
    );
    expect(await outboxState(gateway)).toEqual(before);
  });

  it('accepts strings up to the size limit without 5xx: 200 when valid, 400 when too long for the schema', async () => {
    await checkProperty(
      'POST /sms large strings under the limit',
      fc.asyncProperty(fc.integer({ min: 1, max: 99 * 1024 }), fc.constantFrom('body', 'sender', 'recipient'), async (size, field) => {
        const value = 'x'.repeat(size);
        const body = deliveryBody({ [field]: value });
        const res = await request(gateway.app).post('/sms').set('Authorization', authorization).send(body);
        if (DeliveryRequestSchema.safeParse(body).success) expect(res.status).toBe(200);
        else expectJsonClientError(res);
      }),
      20,
    );
  });

  it('ignores __proto__, constructor and prototype keys: the prototype is untouched and a stored message holds only its fields', async () => {
    const prototypeKeys = prototypeSnapshot();
    // Each run sends to a recipient of its own and reads back only that recipient's messages: reading
    // the whole outbox every run cost a parse of up to 1000 messages, which at ten times the runs
    // outgrew the test's time on a loaded machine.
    let sent = 0;
    await checkProperty(
      'POST /sms prototype pollution',
      fc.asyncProperty(
        fc.constantFrom(...POLLUTION_KEYS),
        fc.oneof(fc.constant({ polluted: true }), fc.constant({ prototype: { polluted: true } }), fc.jsonValue({ maxDepth: 3 })),
        fc.boolean(),
        fc.constantFrom('top', 'req'),
        async (key, value, nested, where) => {
          sent += 1;
          const recipient = `+1415556${String(sent).padStart(4, '0')}`;
          const marker = `pollution ${key} ${nested} ${where}`;
          const base = deliveryBody({ recipient, body: marker });
          const text =
            where === 'top'
              ? pollutedJson(base, key, value, nested)
              : `${JSON.stringify({ ...base }).slice(0, -1)},"req":${pollutedJson({ ip: '203.0.113.7' }, key, value, nested)}}`;
          const res = await request(gateway.app).post('/sms').set('Authorization', authorization).set('Content-Type', 'application/json').send(text);
          expect([200, 400]).toContain(res.status);
          if (res.status !== 200) expectJsonClientError(res);
          expect(prototypeSnapshot()).toEqual(prototypeKeys);
          expect(({} as Record<string, unknown>).polluted).toBeUndefined();
          // The raw answer, not the schema's parse (which would drop any extra key).
          const stored = await request(gateway.app)
            .get(`/outbox/messages?recipient=${encodeURIComponent(recipient)}`)
            .set('Authorization', `Bearer ${OUTBOX_TOKEN}`);
          expect(stored.status).toBe(200);
          const messages = stored.body as Array<Record<string, unknown>>;
          expect(messages).toHaveLength(res.status === 200 ? 1 : 0);
          for (const message of messages) {
            expect(Object.keys(message).sort()).toEqual(['body', 'channel', 'id', 'language', 'received_at', 'recipient', 'sender']);
            expect(message.body).toBe(marker);
            expect(Object.getPrototypeOf(message)).toBe(Object.prototype);
          }
        },
      ),
    );
    // The outbox query schema itself is not polluted either.
    expect(OutboxQuerySchema.safeParse({}).success).toBe(true);
  });
});

function isDelivery(text: string): boolean {
  try {
    return DeliveryRequestSchema.safeParse(JSON.parse(text)).success;
  } catch {
    return false;
  }
}
