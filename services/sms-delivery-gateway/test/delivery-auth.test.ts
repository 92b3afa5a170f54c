import { randomBytes } from 'node:crypto';
import jwt from 'jsonwebtoken';
import request from 'supertest';
import { NOW, buildGateway, deliveryBody, metricValue, nowSeconds, type TestGateway } from './support/gateway';
import {
  AUDIENCE,
  SECRET,
  SUBJECT,
  deliveryClaims,
  signHs256,
  signHs512,
  signRs256,
  tamperedToken,
  unsignedToken,
} from './support/tokens';

const AUTH_ENV = { GATEWAY_AUTH_SECRET: SECRET, GATEWAY_AUTH_AUDIENCE: AUDIENCE, GATEWAY_AUTH_SUBJECT: SUBJECT };

async function outboxSize(gateway: TestGateway): Promise<number> {
  const res = await request(gateway.app).get('/outbox/messages');
  return (res.body as unknown[]).length;
}

async function deliverWith(gateway: TestGateway, authorization?: string) {
  const req = request(gateway.app).post('/sms');
  if (authorization !== undefined) req.set('Authorization', authorization);
  return req.send(deliveryBody());
}

/** Every rejection: 401, the bearer challenge, a JSON error, nothing delivered, counted. */
async function expectRejected(gateway: TestGateway, authorization: string | undefined, challenge: string, description: RegExp) {
  const res = await deliverWith(gateway, authorization);
  expect(res.status).toBe(401);
  expect(res.headers['www-authenticate']).toBe(challenge);
  expect(res.body).toEqual({ error: 'invalid_token', error_description: expect.stringMatching(description) });
  expect(await outboxSize(gateway)).toBe(0);
  expect(await metricValue(gateway.metrics, 'sms_delivery_rejections_total', { reason: 'unauthorized' })).toBe(1);
  expect(await metricValue(gateway.metrics, 'sms_deliveries_total', { outcome: 'delivered' })).toBe(0);
}

const INVALID = 'Bearer error="invalid_token"';

describe('POST /sms with GATEWAY_AUTH_SECRET set', () => {
  let gateway: TestGateway;
  beforeEach(() => {
    gateway = buildGateway(AUTH_ENV);
  });

  it('delivers a request carrying a valid HS256 token', async () => {
    const res = await deliverWith(gateway, `Bearer ${signHs256()}`);
    expect(res.status).toBe(200);
    expect(res.text).toBe('');
    expect(await outboxSize(gateway)).toBe(1);
  });

  it('refuses a request without an Authorization header', async () => {
    await expectRejected(gateway, undefined, 'Bearer', /required/);
  });

  it('refuses an empty bearer token', async () => {
    await expectRejected(gateway, 'Bearer ', 'Bearer', /empty/);
  });

  it('refuses a non-bearer Authorization scheme', async () => {
    await expectRejected(gateway, `Basic ${Buffer.from('user:pass').toString('base64')}`, 'Bearer', /Bearer scheme/);
  });

  it('refuses a token signed with the wrong secret', async () => {
    await expectRejected(gateway, `Bearer ${signHs256(deliveryClaims(), 'another-secret-that-is-long-enough-0123456')}`, INVALID, /signature/);
  });

  it('refuses an unsigned alg:none token', async () => {
    await expectRejected(gateway, `Bearer ${unsignedToken()}`, INVALID, /HS256/);
  });

  it('refuses an RS256-signed token', async () => {
    await expectRejected(gateway, `Bearer ${signRs256()}`, INVALID, /HS256/);
  });

  it('refuses an HS512 token signed with the same secret', async () => {
    await expectRejected(gateway, `Bearer ${signHs512()}`, INVALID, /HS256/);
  });

  it('refuses a token for another audience', async () => {
    await expectRejected(gateway, `Bearer ${signHs256(deliveryClaims({ aud: 'urn:someone-else' }))}`, INVALID, /audience/);
  });

  it('refuses a token for another subject', async () => {
    await expectRejected(gateway, `Bearer ${signHs256(deliveryClaims({ sub: 'someone-else' }))}`, INVALID, /subject/);
  });

  it('refuses a token that expired more than 60 seconds ago', async () => {
    const claims = deliveryClaims({ iat: nowSeconds() - 400, exp: nowSeconds() - 61 });
    await expectRejected(gateway, `Bearer ${signHs256(claims)}`, INVALID, /expired/);
  });

  it('accepts a token that expired within the 60 second leeway', async () => {
    const claims = deliveryClaims({ iat: nowSeconds() - 330, exp: nowSeconds() - 30 });
    expect((await deliverWith(gateway, `Bearer ${signHs256(claims)}`)).status).toBe(200);
  });

  it('refuses a token issued more than 10 minutes ago even without exp', async () => {
    const { exp: _exp, ...claims } = deliveryClaims({ iat: nowSeconds() - 601 });
    await expectRejected(gateway, `Bearer ${signHs256(claims)}`, INVALID, /older than 10 minutes/);
  });

  it('refuses a token without iat', async () => {
    const { iat: _iat, ...claims } = deliveryClaims();
    await expectRejected(gateway, `Bearer ${signHs256(claims)}`, INVALID, /iat/);
  });

  it('refuses a token issued in the future', async () => {
    await expectRejected(gateway, `Bearer ${signHs256(deliveryClaims({ iat: nowSeconds() + 120 }))}`, INVALID, /future/);
  });

  it('refuses a token whose payload was tampered with', async () => {
    await expectRejected(gateway, `Bearer ${tamperedToken()}`, INVALID, /signature/);
  });

  it('refuses a malformed token', async () => {
    await expectRejected(gateway, 'Bearer not-a-jwt', INVALID, /malformed/);
  });

  it('measures token age with the injected clock', async () => {
    const { exp: _exp, ...claims } = deliveryClaims();
    const token = `Bearer ${signHs256(claims)}`;
    expect((await deliverWith(buildGateway(AUTH_ENV, { now: () => new Date(NOW + 9 * 60 * 1000) }), token)).status).toBe(200);
    const later = await deliverWith(buildGateway(AUTH_ENV, { now: () => new Date(NOW + 11 * 60 * 1000) }), token);
    expect(later.status).toBe(401);
    expect(later.body.error_description).toMatch(/older than 10 minutes/);
  });

  it('rejects before validating the body, so an unauthenticated caller learns nothing about it', async () => {
    const res = await request(gateway.app).post('/sms').send({ recipient: 'nope' });
    expect(res.status).toBe(401);
  });
});

describe('POST /sms with aud and sub not configured', () => {
  it('accepts any aud and sub when GATEWAY_AUTH_AUDIENCE and GATEWAY_AUTH_SUBJECT are unset', async () => {
    const gateway = buildGateway({ GATEWAY_AUTH_SECRET: SECRET });
    const token = signHs256(deliveryClaims({ aud: 'anything', sub: 'anyone' }));
    expect((await deliverWith(gateway, `Bearer ${token}`)).status).toBe(200);
  });
});

describe('POST /sms with GATEWAY_AUTH_SECRET_BASE64=true', () => {
  const keyBytes = randomBytes(32);
  const encoded = keyBytes.toString('base64url');
  const gateway = () => buildGateway({ GATEWAY_AUTH_SECRET: encoded, GATEWAY_AUTH_SECRET_BASE64: 'true' });

  it('accepts a token signed with the decoded secret bytes', async () => {
    const token = jwt.sign(deliveryClaims(), keyBytes, { algorithm: 'HS256' });
    expect((await deliverWith(gateway(), `Bearer ${token}`)).status).toBe(200);
  });

  it('refuses a token signed with the encoded text instead of the decoded bytes', async () => {
    const res = await deliverWith(gateway(), `Bearer ${signHs256(deliveryClaims(), encoded)}`);
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe(INVALID);
  });
});

describe('POST /sms without GATEWAY_AUTH_SECRET (open mode)', () => {
  it('delivers without a token', async () => {
    const gateway = buildGateway();
    expect((await request(gateway.app).post('/sms').send(deliveryBody())).status).toBe(200);
  });

  it('logs exactly one warning at start that anyone can send SMS through it', async () => {
    const gateway = buildGateway();
    await request(gateway.app).post('/sms').send(deliveryBody());
    await request(gateway.app).post('/sms').send(deliveryBody());
    const warnings = gateway.logs.entries().filter((entry) => entry.level === 40);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.msg).toMatch(/anyone .* can send SMS/);
  });

  it('logs no open-endpoint warning when authentication is on', () => {
    const gateway = buildGateway({ GATEWAY_AUTH_SECRET: SECRET });
    expect(gateway.logs.entries().filter((entry) => entry.level === 40)).toEqual([]);
  });
});
