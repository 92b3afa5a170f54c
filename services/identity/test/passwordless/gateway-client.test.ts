import { ErrorCodes, SmsProviderErrorDescriptions } from '@smsauth/contracts';
import { createMemoryLogger } from '@smsauth/service-kit';
import axios from 'axios';
import jwt from 'jsonwebtoken';
import {
  createSmsGatewayClient,
  type SmsGatewayClient,
  type SmsGatewayClientDeps,
} from '../../src/delivery/gateway-client';
import { SmsProviderError, type SmsMessage } from '../../src/domain/passwordless/sms-gateway';
import { signGatewayToken } from '../../src/domain/passwordless/gateway-token';
import { assertGatewayUrlAllowed, type ResolveHost } from '../../src/delivery/gateway-url-policy';
import { answer, freePort, hang, RecordingServer } from '@smsauth/test-support';

const CODE = '731904';
const payload = { recipient: '+14155550123', body: `Your code is ${CODE}`, sender: '+15005550006' };

function captureLogs() {
  const memory = createMemoryLogger({ name: 'identity', level: 'trace' });
  return {
    logger: memory.logger,
    get lines() {
      return memory.lines();
    },
  };
}

async function failure(promise: Promise<unknown>): Promise<SmsProviderError> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(SmsProviderError);
    return err as SmsProviderError;
  }
  throw new Error('expected the delivery to fail');
}

describe('SMS gateway client', () => {
  let gateway: RecordingServer;
  let client: SmsGatewayClient;
  let logs: ReturnType<typeof captureLogs>;

  let opened: SmsGatewayClient[] = [];

  const request = (overrides: Partial<SmsMessage> = {}): SmsMessage => ({
    gatewayUrl: gateway.url('/sms?tenant=acme'),
    payload,
    idempotencyKey: 'start_01HXYZ',
    ...overrides,
  });
  /** A client logging to this test's lines, under the `any` policy unless told otherwise. */
  const clientWith = (options: SmsGatewayClientDeps = {}): SmsGatewayClient => {
    const created = createSmsGatewayClient({ logger: logs.logger, policy: 'any', ...options });
    opened.push(created);
    return created;
  };

  beforeAll(async () => {
    gateway = await RecordingServer.start();
  });
  afterAll(async () => {
    await gateway.close();
  });
  beforeEach(() => {
    gateway.reset();
    logs = captureLogs();
    client = clientWith();
  });
  afterEach(() => {
    opened.forEach((c) => c.close());
    opened = [];
  });

  describe('message ids and statuses (channel fallback after an undelivered receipt)', () => {
    it('resolves with the gateway’s SMS-Message-Id', async () => {
      gateway.respondWith(answer(200, { 'SMS-Message-Id': 'msg-42' }));
      await expect(client.deliverSms(request())).resolves.toEqual({ messageId: 'msg-42' });
    });

    it('resolves with the provider the gateway names (SMS-Provider), and without one that is no provider name', async () => {
      gateway.respondWith(answer(200, { 'SMS-Message-Id': 'msg-43', 'SMS-Provider': 'vonage-eu' }));
      await expect(client.deliverSms(request())).resolves.toEqual({ messageId: 'msg-43', provider: 'vonage-eu' });
      gateway.respondWith(answer(200, { 'SMS-Provider': '<script>' }));
      await expect(client.deliverSms(request())).resolves.toEqual({});
    });

    it('asks GET messages/{id} beside the delivery URL with the bearer token and reads the status', async () => {
      gateway.respondWith(answer(200, { 'content-type': 'application/json' }, JSON.stringify({ id: 'msg 1', status: 'undelivered' })));
      const status = await client.messageStatus({ gatewayUrl: gateway.url('/sms?tenant=acme'), messageId: 'msg 1', authToken: 'token-1' });
      expect(status).toBe('undelivered');
      expect(gateway.requests[0]).toMatchObject({ method: 'GET', path: '/messages/msg%201' });
      expect(gateway.requests[0]!.headers.authorization).toBe('Bearer token-1');
    });

    it('answers undefined, never throws, for a 404, a body that is not a status, or no answer in time', async () => {
      gateway.respondWith(answer(404));
      await expect(client.messageStatus({ gatewayUrl: gateway.url('/sms'), messageId: 'm' })).resolves.toBeUndefined();
      gateway.respondWith(answer(200, { 'content-type': 'application/json' }, '{"status":"lost"}'));
      await expect(client.messageStatus({ gatewayUrl: gateway.url('/sms'), messageId: 'm' })).resolves.toBeUndefined();
      const slow = clientWith({ timeoutMs: 200 });
      gateway.respondWith(hang);
      await expect(slow.messageStatus({ gatewayUrl: gateway.url('/sms'), messageId: 'm' })).resolves.toBeUndefined();
    });
  });

  describe('a successful delivery', () => {
    it('POSTs the JSON body with an Idempotency-Key and resolves on 200', async () => {
      await expect(client.deliverSms(request())).resolves.toEqual({});
      expect(gateway.requests).toHaveLength(1);
      const [received] = gateway.requests;
      expect(received?.method).toBe('POST');
      expect(received?.path).toBe('/sms?tenant=acme');
      expect(received?.headers['content-type']).toMatch(/^application\/json/);
      expect(received?.headers['idempotency-key']).toBe('start_01HXYZ');
      expect(JSON.parse(received?.body ?? '')).toEqual(payload);
    });

    it('sends no Authorization header when the connection has no gateway authentication', async () => {
      await client.deliverSms(request());
      expect(gateway.requests[0]?.headers.authorization).toBeUndefined();
    });

    it('sends the gateway JWT as a bearer token that verifies with the shared secret', async () => {
      const now = new Date();
      const settings = { subject: 'identity', audience: 'urn:gateway', secret: 's3cret-for-the-gateway' };
      await client.deliverSms(request({ authToken: signGatewayToken(settings, now) }));
      const header = gateway.requests[0]?.headers.authorization ?? '';
      expect(header).toMatch(/^Bearer [\w-]+\.[\w-]+\.[\w-]+$/);
      const claims = jwt.verify(header.slice('Bearer '.length), settings.secret, {
        algorithms: ['HS256'],
        audience: 'urn:gateway',
        subject: 'identity',
      }) as jwt.JwtPayload;
      expect(claims.exp! - claims.iat!).toBe(300);
    });

    it('sends a token signed with the decoded key in base64 secret mode', async () => {
      const key = Buffer.from('fbff0010fe3e7f80aa55', 'hex');
      const token = signGatewayToken(
        { subject: 'identity', audience: 'urn:gateway', secret: key.toString('base64url'), secret_base64_encoded: true },
        new Date(),
      );
      await client.deliverSms(request({ authToken: token }));
      const sent = (gateway.requests[0]?.headers.authorization ?? '').replace(/^Bearer /, '');
      expect(jwt.verify(sent, key, { algorithms: ['HS256'], audience: 'urn:gateway' })).toMatchObject({ sub: 'identity' });
    });

    it('decides on the status alone, even when a 200 comes with a large body', async () => {
      gateway.respondWith((_req, res) => {
        res.writeHead(200, { 'Content-Type': 'text/plain' });
        res.end('x'.repeat(1024 * 1024));
      });
      await expect(client.deliverSms(request())).resolves.toEqual({});
    });

    it('forwards the caller details in req when the payload has them', async () => {
      const withReq = { ...payload, req: { ip: '203.0.113.7', 'user-agent': 'curl/8.5.0' } };
      await client.deliverSms(request({ payload: withReq }));
      expect(JSON.parse(gateway.requests[0]?.body ?? '')).toEqual(withReq);
    });

    it('reuses the connection for the next delivery (keep-alive)', async () => {
      await client.deliverSms(request());
      await client.deliverSms(request({ idempotencyKey: 'start_2' }));
      expect(gateway.requests).toHaveLength(2);
      expect(gateway.requests[1]?.remotePort).toBe(gateway.requests[0]?.remotePort);
    });

    it('goes through the injected axios instance', async () => {
      const http = axios.create();
      const seen: string[] = [];
      http.interceptors.request.use((config) => {
        seen.push(`${config.method} ${config.url}`);
        return config;
      });
      await clientWith({ http }).deliverSms(request());
      expect(seen).toEqual([`post ${gateway.url('/sms?tenant=acme')}`]);
    });

    it('ignores proxy environment variables and calls the gateway directly', async () => {
      const proxy = await RecordingServer.start();
      const saved = { ...process.env };
      try {
        for (const name of ['HTTP_PROXY', 'http_proxy']) process.env[name] = proxy.url('');
        for (const name of ['NO_PROXY', 'no_proxy']) delete process.env[name];
        await client.deliverSms(request());
      } finally {
        process.env = saved;
        await proxy.close();
      }
      expect(proxy.requests).toHaveLength(0);
      expect(gateway.requests).toHaveLength(1);
    });
  });

  describe('failures', () => {
    it.each([409, 502, 503, 504])('maps a %d (gateway or balancer unavailable, key in flight) to a retryable 503 with Retry-After, not sms_provider_error', async (status) => {
      gateway.respondWith((_req, res) => {
        res.writeHead(status, { 'Retry-After': '2' });
        res.end();
      });
      const err = await failure(client.deliverSms(request()));
      expect(err.status).toBe(503);
      expect(err.toBody()).toEqual({ error: ErrorCodes.SERVICE_UNAVAILABLE, error_description: SmsProviderErrorDescriptions.GATEWAY_UNAVAILABLE });
      expect(err.options.headers).toEqual({ 'Retry-After': '2' });
      expect(err).toMatchObject({ failure: 'gateway_unavailable', gatewayStatus: status, retryable: true });
    });

    it('maps a connection dropped after the request was sent (the gateway died mid-delivery) to the retryable 503: whether it sent is unknown', async () => {
      gateway.respondWith((req) => req.socket.destroy());
      const err = await failure(client.deliverSms(request()));
      expect(err.status).toBe(503);
      expect(err).toMatchObject({ failure: 'gateway_unavailable', retryable: true });
    });

    it('tells the caller to retry after 5 s when the gateway\'s 503 has no usable Retry-After', async () => {
      gateway.respondWith(answer(503));
      expect((await failure(client.deliverSms(request()))).options.headers).toEqual({ 'Retry-After': '5' });
    });

    it.each([500, 400, 403, 404, 429])('maps a %d to "Unexpected response ..."', async (status) => {
      gateway.respondWith(answer(status));
      const err = await failure(client.deliverSms(request()));
      expect(err.status).toBe(400);
      expect(err.toBody()).toEqual({
        error: ErrorCodes.SMS_PROVIDER_ERROR,
        error_description: `Unexpected response while calling the SMS gateway: ${status}`,
      });
      expect(err).toMatchObject({ failure: 'unexpected_status', gatewayStatus: status });
    });

    it('reports the status of a failing answer whatever its body', async () => {
      gateway.respondWith((_req, res) => {
        res.writeHead(500, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ error: 'provider down', detail: 'y'.repeat(200_000) }));
      });
      const err = await failure(client.deliverSms(request()));
      expect(err.errorDescription).toBe('Unexpected response while calling the SMS gateway: 500');
    });

    it('treats 202 and 204 as failures: only 200 means delivered', async () => {
      for (const status of [202, 204, 201]) {
        gateway.respondWith(answer(status));
        const err = await failure(client.deliverSms(request()));
        expect(err.errorDescription).toBe(`Unexpected response while calling the SMS gateway: ${status}`);
      }
    });

    it('maps a 401 to "Authentication failed ..."', async () => {
      gateway.respondWith(answer(401));
      const err = await failure(client.deliverSms(request({ authToken: 'expired.token.value' })));
      expect(err.toBody()).toEqual({
        error: 'sms_provider_error',
        error_description: 'Authentication failed while calling the SMS gateway: 401',
      });
    });

    it('never follows a redirect: a 302 is a failure and its target is never called', async () => {
      const internal = await RecordingServer.start();
      try {
        gateway.respondWith(answer(302, { Location: internal.url('/latest/meta-data') }));
        const err = await failure(client.deliverSms(request()));
        expect(err.errorDescription).toBe('Unexpected response while calling the SMS gateway: 302');
        gateway.respondWith(answer(307, { Location: internal.url('/admin') }));
        const err307 = await failure(client.deliverSms(request()));
        expect(err307.errorDescription).toBe('Unexpected response while calling the SMS gateway: 307');
        expect(internal.requests).toHaveLength(0);
      } finally {
        await internal.close();
      }
    });

    it('times out a gateway that never answers', async () => {
      gateway.respondWith(hang);
      const err = await failure(clientWith({ timeoutMs: 150 }).deliverSms(request()));
      expect(err.toBody()).toEqual({
        error: 'sms_provider_error',
        error_description: 'Timeout while calling the SMS gateway',
      });
      expect(gateway.requests).toHaveLength(1);
    });

    it('times out a gateway that sends headers but never finishes the response', async () => {
      gateway.respondWith((_req, res) => {
        res.writeHead(200, { 'Content-Type': 'text/plain' });
        res.write('partial');
      });
      const err = await failure(clientWith({ timeoutMs: 150 }).deliverSms(request()));
      expect(err.errorDescription).toBe('Timeout while calling the SMS gateway');
    });

    it('times out a gateway that keeps the response alive by trickling bytes', async () => {
      const timers: NodeJS.Timeout[] = [];
      gateway.respondWith((_req, res) => {
        res.writeHead(200, { 'Content-Type': 'text/plain' });
        timers.push(setInterval(() => res.write('.'), 20));
      });
      try {
        const err = await failure(clientWith({ timeoutMs: 200 }).deliverSms(request()));
        expect(err.errorDescription).toBe('Timeout while calling the SMS gateway');
      } finally {
        timers.forEach(clearInterval);
      }
    });

    it('reports a refused connection as "Unable to reach the SMS gateway"', async () => {
      const port = await freePort();
      const err = await failure(client.deliverSms(request({ gatewayUrl: `http://127.0.0.1:${port}/sms` })));
      expect(err.toBody()).toEqual({ error: 'sms_provider_error', error_description: 'Unable to reach the SMS gateway' });
      expect(err.failure).toBe('unreachable');
    });

    it('reports a name that does not resolve as "Unable to reach the SMS gateway"', async () => {
      const err = await failure(client.deliverSms(request({ gatewayUrl: 'http://gateway.invalid/sms' })));
      expect(err.errorDescription).toBe('Unable to reach the SMS gateway');
    });

    it('refuses a non-http URL without calling anything', async () => {
      const err = await failure(client.deliverSms(request({ gatewayUrl: 'file:///etc/passwd' })));
      expect(err.failure).toBe('address_refused');
    });
  });

  describe('under the public policy', () => {
    const pointTo =
      (table: Record<string, string>): ResolveHost =>
      async (hostname) => {
        const address = table[hostname];
        if (!address) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
        return [{ address, family: address.includes(':') ? 6 : 4 }];
      };

    it.each(['127.0.0.1', '[::ffff:127.0.0.1]', '2130706433', '0x7f.1'])(
      'refuses the loopback literal %s and never connects',
      async (host) => {
        const err = await failure(
          clientWith({ policy: 'public' }).deliverSms(request({ gatewayUrl: `http://${host}:${gateway.port}/sms` })),
        );
        expect(err.toBody()).toEqual({
          error: 'sms_provider_error',
          error_description: 'Refused to call the SMS gateway: its address is not allowed',
        });
        expect(gateway.requests).toHaveLength(0);
      },
    );

    it('refuses localhost after resolving it', async () => {
      const err = await failure(
        clientWith({ policy: 'public' }).deliverSms(request({ gatewayUrl: `http://localhost:${gateway.port}/sms` })),
      );
      expect(err.failure).toBe('address_refused');
      expect(gateway.requests).toHaveLength(0);
    });

    it('refuses a public-looking name that resolves to a private address at connect time', async () => {
      const guarded = clientWith({ policy: 'public', resolveHost: pointTo({ 'sms.example.com': '127.0.0.1' }) });
      const err = await failure(guarded.deliverSms(request({ gatewayUrl: `http://sms.example.com:${gateway.port}/sms` })));
      expect(err.failure).toBe('address_refused');
      expect(gateway.requests).toHaveLength(0);
    });

    it('defeats DNS rebinding: a name vetted at create time is re-checked when sending', async () => {
      let answers = 0;
      const rebinding: ResolveHost = async () => [{ address: answers++ === 0 ? '93.184.215.14' : '127.0.0.1', family: 4 }];
      const url = `http://rebind.example.com:${gateway.port}/sms`;
      await expect(assertGatewayUrlAllowed(url, 'public', { resolveHost: rebinding })).resolves.toBeInstanceOf(URL);
      const guarded = clientWith({ policy: 'public', resolveHost: rebinding });
      const err = await failure(guarded.deliverSms(request({ gatewayUrl: url })));
      expect(err.failure).toBe('address_refused');
      expect(gateway.requests).toHaveLength(0);
    });

    it('lets the same name through under the any policy', async () => {
      await clientWith({ policy: 'any' }).deliverSms(request({ gatewayUrl: `http://localhost:${gateway.port}/sms` }));
      expect(gateway.requests).toHaveLength(1);
    });
  });

  describe('logging', () => {
    it('logs why a delivery failed without the message, the code, the token or the URL path', async () => {
      const token = signGatewayToken({ subject: 'identity', audience: 'urn:gateway', secret: 'log-me-not-secret' });
      for (const status of [500, 401]) {
        gateway.respondWith(answer(status));
        await failure(client.deliverSms(request({ authToken: token })));
      }
      gateway.respondWith(hang);
      await failure(clientWith({ timeoutMs: 100 }).deliverSms(request({ authToken: token })));
      await failure(clientWith({ policy: 'public' }).deliverSms(request({ authToken: token })));

      const output = logs.lines.join('');
      expect(logs.lines).toHaveLength(4);
      const entries = logs.lines.map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(entries.map((e) => e.failure)).toEqual(['unexpected_status', 'authentication_failed', 'timeout', 'address_refused']);
      expect(entries[0]).toMatchObject({ level: 40, gateway: `http://127.0.0.1:${gateway.port}`, status: 500 });
      expect(entries[3]).toMatchObject({ refusedAddressClass: 'loopback' });
      for (const secret of [CODE, token, token.split('.')[2] as string, 'log-me-not-secret', 'tenant=acme', payload.body]) {
        expect(output).not.toContain(secret);
      }
    });

    it('logs nothing for a successful delivery', async () => {
      await client.deliverSms(request({ authToken: 'a.b.c' }));
      expect(logs.lines).toHaveLength(0);
    });
  });
});
