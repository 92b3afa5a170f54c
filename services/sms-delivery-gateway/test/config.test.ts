import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, secretVariablesOf } from '@smsauth/service-kit';
import request from 'supertest';
import { configSchema } from '../src/config';
import { PROVIDER_SECRETS } from '../src/providers/registry';
import { problemsOf } from './support/config';
import { buildGateway, deliveryBody } from './support/gateway';
import { AUDIENCE, SECRET, SUBJECT, signHs256 } from './support/tokens';

const TWILIO_SID = `AC${'0'.repeat(32)}`;

describe('sms-delivery-gateway configuration', () => {
  it('defaults to port 4100, the outbox provider, 1000 messages and open delivery', () => {
    const config = loadConfig(configSchema, {});
    expect(config).toMatchObject({
      PORT: 4100,
      SMS_PROVIDER: 'outbox',
      OUTBOX_CAPACITY: 1000,
      ALLOWED_IPS: [],
      TRUST_PROXY: false,
      TWILIO_API_BASE_URL: 'https://api.twilio.com',
      WEBHOOK_HEADERS: {},
    });
    expect(config.GATEWAY_AUTH_SECRET).toBeUndefined();
  });

  it('treats empty variables as unset', () => {
    const config = loadConfig(configSchema, { GATEWAY_AUTH_SECRET: '', OUTBOX_TOKEN: '', SMS_PROVIDER: '', WEBHOOK_URL: '' });
    expect(config.GATEWAY_AUTH_SECRET).toBeUndefined();
    expect(config.SMS_PROVIDER).toBe('outbox');
  });

  it('refuses a GATEWAY_AUTH_SECRET shorter than 32 bytes, saying so', () => {
    expect(problemsOf({ GATEWAY_AUTH_SECRET: 'x'.repeat(31) })).toEqual([
      expect.stringMatching(/^GATEWAY_AUTH_SECRET: is 31 bytes; .*at least 32 bytes \(RFC 7518/),
    ]);
  });

  it('accepts a GATEWAY_AUTH_SECRET of exactly 32 bytes', () => {
    expect(problemsOf({ GATEWAY_AUTH_SECRET: 'x'.repeat(32) })).toEqual([]);
  });

  it('counts bytes, not characters, of a UTF-8 secret', () => {
    expect(problemsOf({ GATEWAY_AUTH_SECRET: 'é'.repeat(16) })).toEqual([]);
  });

  it('refuses a base64 secret that decodes to fewer than 32 bytes', () => {
    const encoded = randomBytes(31).toString('base64url');
    expect(encoded.length).toBeGreaterThanOrEqual(32);
    expect(problemsOf({ GATEWAY_AUTH_SECRET: encoded, GATEWAY_AUTH_SECRET_BASE64: 'true' })).toEqual([
      expect.stringMatching(/^GATEWAY_AUTH_SECRET: is 31 bytes after base64url decoding/),
    ]);
  });

  it('refuses a secret that is not base64url when GATEWAY_AUTH_SECRET_BASE64 is true', () => {
    expect(problemsOf({ GATEWAY_AUTH_SECRET: `${'a'.repeat(48)}!*`, GATEWAY_AUTH_SECRET_BASE64: 'true' })).toEqual([
      expect.stringMatching(/^GATEWAY_AUTH_SECRET: is not base64url/),
    ]);
  });

  it('refuses GATEWAY_AUTH_SECRET_BASE64 that is not a boolean', () => {
    expect(problemsOf({ GATEWAY_AUTH_SECRET_BASE64: 'maybe' })).toEqual([expect.stringMatching(/^GATEWAY_AUTH_SECRET_BASE64:/)]);
  });

  it('refuses GATEWAY_AUTH_AUDIENCE or GATEWAY_AUTH_SUBJECT without a secret', () => {
    expect(problemsOf({ GATEWAY_AUTH_AUDIENCE: 'a', GATEWAY_AUTH_SUBJECT: 's' })).toEqual([
      expect.stringMatching(/^GATEWAY_AUTH_AUDIENCE: has no effect without GATEWAY_AUTH_SECRET/),
      expect.stringMatching(/^GATEWAY_AUTH_SUBJECT: has no effect without GATEWAY_AUTH_SECRET/),
    ]);
  });

  it('parses ALLOWED_IPS into CIDR entries', () => {
    expect(loadConfig(configSchema, { ALLOWED_IPS: ' 10.0.0.0/8, ::1 ,2001:db8::/32,' }).ALLOWED_IPS).toEqual([
      '10.0.0.0/8',
      '::1',
      '2001:db8::/32',
    ]);
  });

  it('refuses ALLOWED_IPS entries that are not addresses or CIDR ranges, naming them', () => {
    expect(problemsOf({ ALLOWED_IPS: '10.0.0.0/8,10.0.0.0/33,example.com' })).toEqual([
      'ALLOWED_IPS: not an IPv4/IPv6 address or CIDR range: 10.0.0.0/33, example.com',
    ]);
  });

  it('refuses an unknown SMS_PROVIDER', () => {
    expect(problemsOf({ SMS_PROVIDER: 'carrier-pigeon' })).toEqual(['SMS_PROVIDER: must be one of outbox, twilio, webhook, vonage, telnyx, plivo, sinch, infobip']);
  });

  it('requires SMS_PROVIDER to be chosen explicitly in production', () => {
    expect(problemsOf({ NODE_ENV: 'production' })).toEqual([expect.stringMatching(/^SMS_PROVIDER: must be set in production/)]);
    expect(problemsOf({ NODE_ENV: 'production', SMS_PROVIDER: 'outbox' })).toEqual([]);
  });

  it('refuses an OUTBOX_CAPACITY that is not a positive integer', () => {
    expect(problemsOf({ OUTBOX_CAPACITY: '0' })).toEqual([expect.stringMatching(/^OUTBOX_CAPACITY:/)]);
    expect(problemsOf({ OUTBOX_CAPACITY: 'lots' })).toEqual([expect.stringMatching(/^OUTBOX_CAPACITY:/)]);
  });

  it('requires the Twilio account SID, auth token and a sender for the twilio provider', () => {
    expect(problemsOf({ SMS_PROVIDER: 'twilio' })).toEqual([
      'TWILIO_ACCOUNT_SID: is required when SMS_PROVIDER is twilio',
      'TWILIO_AUTH_TOKEN: is required when SMS_PROVIDER is twilio',
      'TWILIO_FROM: TWILIO_FROM or TWILIO_MESSAGING_SERVICE_SID is required when SMS_PROVIDER is twilio',
    ]);
  });

  it('accepts twilio with a Messaging Service SID instead of TWILIO_FROM', () => {
    const env = { SMS_PROVIDER: 'twilio', TWILIO_ACCOUNT_SID: TWILIO_SID, TWILIO_AUTH_TOKEN: 't', TWILIO_MESSAGING_SERVICE_SID: `MG${'1'.repeat(32)}` };
    expect(problemsOf(env)).toEqual([]);
  });

  it('refuses a malformed TWILIO_ACCOUNT_SID', () => {
    const env = { SMS_PROVIDER: 'twilio', TWILIO_ACCOUNT_SID: 'AC123/../x', TWILIO_AUTH_TOKEN: 't', TWILIO_FROM: '+15005550006' };
    expect(problemsOf(env)).toEqual([expect.stringMatching(/^TWILIO_ACCOUNT_SID: must be a Twilio Account SID/)]);
  });

  it('refuses a TWILIO_FROM that is neither E.164 nor an alphanumeric sender id', () => {
    const env = { SMS_PROVIDER: 'twilio', TWILIO_ACCOUNT_SID: TWILIO_SID, TWILIO_AUTH_TOKEN: 't', TWILIO_FROM: '555-0100' };
    expect(problemsOf(env)).toEqual([expect.stringMatching(/^TWILIO_FROM: must be an E.164 number/)]);
  });

  it('refuses a TWILIO_API_BASE_URL that is not http(s)', () => {
    expect(problemsOf({ TWILIO_API_BASE_URL: 'ftp://api.twilio.com' })).toEqual([expect.stringMatching(/^TWILIO_API_BASE_URL:/)]);
  });

  it('requires WEBHOOK_URL for the webhook provider', () => {
    expect(problemsOf({ SMS_PROVIDER: 'webhook' })).toEqual(['WEBHOOK_URL: is required when SMS_PROVIDER is webhook']);
  });

  it('refuses a WEBHOOK_URL that is not an http(s) URL', () => {
    expect(problemsOf({ SMS_PROVIDER: 'webhook', WEBHOOK_URL: 'file:///etc/passwd' })).toEqual([expect.stringMatching(/^WEBHOOK_URL:/)]);
  });

  it('parses WEBHOOK_HEADERS as a JSON object of strings', () => {
    expect(loadConfig(configSchema, { WEBHOOK_HEADERS: '{"X-Api-Key":"k"}' }).WEBHOOK_HEADERS).toEqual({ 'X-Api-Key': 'k' });
  });

  it.each([
    ['not JSON', '{X-Api-Key: k}', /JSON object/],
    ['a JSON array', '["X-Api-Key"]', /JSON object/],
    ['an object with a non-string value', '{"X-Retries": 3}', /value of "X-Retries" must be a string/],
    ['an object with an invalid header name', '{"X Api Key": "k"}', /"X Api Key" is not a valid header name/],
  ])('refuses WEBHOOK_HEADERS that is %s', (_name, value, message) => {
    expect(problemsOf({ WEBHOOK_HEADERS: value })).toEqual([expect.stringMatching(new RegExp(`^WEBHOOK_HEADERS: .*${message.source}`))]);
  });

  it('refuses a PORT that is not a port number', () => {
    expect(problemsOf({ PORT: '70000' })).toEqual([expect.stringMatching(/^PORT:/)]);
  });

  it('refuses an unknown LOG_LEVEL', () => {
    expect(problemsOf({ LOG_LEVEL: 'loud' })).toEqual([expect.stringMatching(/^LOG_LEVEL:/)]);
  });

  it('reads TRUST_PROXY as Express reads it', () => {
    expect(loadConfig(configSchema, { TRUST_PROXY: '1' }).TRUST_PROXY).toBe(1);
    expect(loadConfig(configSchema, { TRUST_PROXY: 'true' }).TRUST_PROXY).toBe(true);
    expect(loadConfig(configSchema, { TRUST_PROXY: 'loopback, 10.0.0.0/8' }).TRUST_PROXY).toBe('loopback, 10.0.0.0/8');
  });
});

describe('sms-delivery-gateway secrets from files (<NAME>_FILE)', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'gateway-secrets-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const secretFile = (name: string, content: string) => {
    const path = join(dir, name);
    writeFileSync(path, `${content}\n`);
    return path;
  };

  it('are the delivery secret, the outbox token, Redis URL, provider instances and every provider credential', () => {
    expect(secretVariablesOf(configSchema).sort()).toEqual(
      ['GATEWAY_AUTH_SECRET', 'OUTBOX_TOKEN', 'REDIS_URL', 'SMS_PROVIDER_INSTANCES', ...PROVIDER_SECRETS].sort(),
    );
  });

  it('a gateway whose GATEWAY_AUTH_SECRET comes from GATEWAY_AUTH_SECRET_FILE delivers what is signed with it, refuses the rest, and logs no secret', async () => {
    const gateway = buildGateway({ GATEWAY_AUTH_SECRET_FILE: secretFile('gateway-auth-secret', SECRET), GATEWAY_AUTH_AUDIENCE: AUDIENCE, GATEWAY_AUTH_SUBJECT: SUBJECT });
    expect(gateway.config.GATEWAY_AUTH_SECRET).toBe(SECRET);
    expect((await request(gateway.app).post('/sms').set('Authorization', `Bearer ${signHs256()}`).send(deliveryBody())).status).toBe(200);
    expect((await request(gateway.app).post('/sms').set('Authorization', `Bearer ${signHs256(undefined, 'some-other-secret-0123456789-abcdefghij')}`).send(deliveryBody())).status).toBe(401);
    expect(gateway.logs.text()).not.toContain(SECRET);
  });

  it('reads the Twilio auth token, webhook headers and provider instances from their files', () => {
    const instances = JSON.stringify({ 'webhook-de': { provider: 'webhook', WEBHOOK_URL: 'https://sms.example.de/send', WEBHOOK_HEADERS: { 'X-Api-Key': 'de-key' } } });
    const config = loadConfig(configSchema, {
      SMS_PROVIDER: 'twilio',
      TWILIO_ACCOUNT_SID: TWILIO_SID,
      TWILIO_AUTH_TOKEN_FILE: secretFile('twilio-auth-token', 'twilio-token-from-a-file'),
      TWILIO_FROM: '+14155550100',
      WEBHOOK_HEADERS_FILE: secretFile('webhook-headers', '{"X-Api-Key":"k"}'),
      SMS_PROVIDER_INSTANCES_FILE: secretFile('instances', instances),
      SMS_ROUTES: '{"DE":["webhook-de"]}',
      REDIS_URL_FILE: secretFile('redis-url', 'redis://:redis-password@redis:6379/0'),
    });
    expect(config).toMatchObject({ TWILIO_AUTH_TOKEN: 'twilio-token-from-a-file', WEBHOOK_HEADERS: { 'X-Api-Key': 'k' }, REDIS_URL: 'redis://:redis-password@redis:6379/0' });
    expect(config.providerInstances.find((instance) => instance.name === 'twilio')?.settings).toMatchObject({ TWILIO_AUTH_TOKEN: 'twilio-token-from-a-file' });
    expect(config.providerInstances.find((instance) => instance.name === 'webhook-de')?.settings).toMatchObject({ WEBHOOK_HEADERS: { 'X-Api-Key': 'de-key' } });
  });

  it('refuses a secret both in the environment and in a file, and a missing file, never printing the value', () => {
    const token = 'twilio-token-in-both-places';
    const both = problemsOf({ TWILIO_AUTH_TOKEN: token, TWILIO_AUTH_TOKEN_FILE: secretFile('twilio-both', token) });
    expect(both).toEqual(['TWILIO_AUTH_TOKEN, TWILIO_AUTH_TOKEN_FILE: both are set; set TWILIO_AUTH_TOKEN to the value or TWILIO_AUTH_TOKEN_FILE to a file holding it, not both']);
    const missing = join(dir, 'absent');
    expect(problemsOf({ GATEWAY_AUTH_SECRET_FILE: missing })).toEqual([`GATEWAY_AUTH_SECRET_FILE: cannot read ${missing}: no such file (ENOENT)`]);
  });
});
