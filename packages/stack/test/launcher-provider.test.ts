import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../src/ports';
import { gatewayProviderSettings, launchStack, type LaunchedStack } from '../src/launcher';

jest.setTimeout(120_000);

describe('the provider settings pnpm start passes to the delivery gateway', () => {
  it('are the gateway provider variables that are set, and nothing else of the environment', () => {
    const env = {
      SMS_PROVIDER: 'twilio',
      TWILIO_ACCOUNT_SID: 'AC123',
      TWILIO_AUTH_TOKEN: 'token',
      SMS_ROUTES: '{"default":["twilio"]}',
      WEBHOOK_URL: '',
      PATH: '/usr/bin',
      DATABASE_URL: 'postgres://x',
      SMS_PROVIDERX: 'no',
    };
    expect(gatewayProviderSettings(env)).toEqual({
      SMS_PROVIDER: 'twilio',
      TWILIO_ACCOUNT_SID: 'AC123',
      TWILIO_AUTH_TOKEN: 'token',
      SMS_ROUTES: '{"default":["twilio"]}',
    });
  });

  it("passes the gateway's secrets given as files (<NAME>_FILE) too", () => {
    const env = {
      TWILIO_AUTH_TOKEN_FILE: '/run/secrets/twilio',
      SMS_PROVIDER_INSTANCES_FILE: '/run/secrets/instances',
      REDIS_URL_FILE: '/run/secrets/redis',
      OUTBOX_TOKEN_FILE: '/run/secrets/outbox',
      DATABASE_URL_FILE: '/run/secrets/db',
    };
    expect(gatewayProviderSettings(env)).toEqual({
      TWILIO_AUTH_TOKEN_FILE: '/run/secrets/twilio',
      SMS_PROVIDER_INSTANCES_FILE: '/run/secrets/instances',
      REDIS_URL_FILE: '/run/secrets/redis',
      OUTBOX_TOKEN_FILE: '/run/secrets/outbox',
    });
  });
});

describe('a stack started with SMS_PROVIDER=webhook', () => {
  const received: Array<{ path: string; body: Record<string, unknown> }> = [];
  const webhook = http.createServer((req, res) => {
    let text = '';
    req.on('data', (chunk) => (text += chunk));
    req.on('end', () => {
      received.push({ path: req.url ?? '', body: JSON.parse(text) as Record<string, unknown> });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"id":"wh-1"}');
    });
  });
  const dataDir = mkdtempSync(join(tmpdir(), 'smsauth-launcher-'));
  let stack: LaunchedStack;

  beforeAll(async () => {
    await new Promise<void>((resolve) => webhook.listen(0, '127.0.0.1', resolve));
    const webhookUrl = `http://127.0.0.1:${(webhook.address() as AddressInfo).port}/send`;
    const ports = { identity: await freePort(), gateway: await freePort(), airport: await freePort() };
    stack = await launchStack({ ports, dataDir, env: { SMS_PROVIDER: 'webhook', WEBHOOK_URL: webhookUrl } });
  });

  afterAll(async () => {
    await stack?.stop();
    webhook.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('delivers a login code through the webhook instead of the dev outbox', async () => {
    const response = await fetch(`${stack.urls.authUrl}/passwordless/start`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_id: stack.tenant.demoClientId, connection: stack.tenant.connectionName, phone_number: '+14155552671', send: 'code' }),
    });
    expect(response.status).toBe(200);
    expect(received).toHaveLength(1);
    expect(received[0]!.path).toBe('/send');
    expect(received[0]!.body).toMatchObject({ recipient: '+14155552671' });
    expect(String(received[0]!.body.body)).toMatch(/\d{6}/);
    expect(stack.gatewayDelivery).toEqual({ provider: 'webhook', routes: false });
  });

  it('keeps a generated KEY_ENCRYPTION_SECRET beside the admin credentials', () => {
    const state = JSON.parse(readFileSync(join(dataDir, 'stack.json'), 'utf8')) as Record<string, unknown>;
    expect(state.keyEncryptionSecret).toEqual(expect.stringMatching(/^[A-Za-z0-9_-]{43}$/));
    expect(state.adminClientSecret).toEqual(expect.any(String));
  });
});
