import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StartResponseSchema } from '@smsauth/contracts';
import jwt from 'jsonwebtoken';
import request from 'supertest';
import { buildApp } from '../../src/app';
import { computeOtp } from '../../src/domain/passwordless/otp';
import type { ResolveHost } from '../../src/delivery/gateway-url-policy';
import { captureLogger } from '../helpers';
import { describeOnEachDatabase, FlowHarness, listen, type LoginSetup } from './flow-harness';
import { answer, freePort, hang, RecordingServer } from '@smsauth/test-support';

/** Test DNS: private.gateway.test points at the local recording gateway; other names are unknown. */
const resolved: string[] = [];
const resolveHost: ResolveHost = async (hostname) => {
  resolved.push(hostname);
  if (hostname === 'private.gateway.test') return [{ address: '127.0.0.1', family: 4 }];
  throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
};

describeOnEachDatabase('POST /passwordless/start', (database) => {
  let h: FlowHarness;
  let setup: LoginSetup;
  /** The same service and database, with a GATEWAY_URL_POLICY or timeout of its own. */
  const variants: Server[] = [];

  async function variant(overrides: Record<string, unknown>): Promise<string> {
    const app = buildApp({
      config: { ...h.identity.config, ...overrides },
      logger: captureLogger().logger,
      store: h.identity.store,
      keyRing: h.identity.keyRing,
      clock: h.clock,
      resolveHost,
    }).app;
    const server = await listen(app);
    variants.push(server);
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  beforeAll(async () => {
    h = await FlowHarness.start({ PASSWORDLESS_START_LIMIT_PER_IP_PER_HOUR: '1000' }, { resolveHost, database });
    setup = await h.loginSetup({ from: '+14155550100', template: 'Your code is @@password@@' });
  });
  afterEach(() => h.gateway.reset());
  afterAll(async () => {
    for (const server of variants) {
      server.closeAllConnections();
      server.close();
    }
    await h.close();
  });

  const body = (overrides: Record<string, unknown> = {}, on: LoginSetup = setup) => ({
    client_id: on.clientId,
    connection: on.connection,
    phone_number: h.caller().phone,
    send: 'code',
    authParams: { scope: 'openid', state: 'xyz' },
    ...overrides,
  });
  const delivered = () => h.gateway.requests.map((r) => JSON.parse(r.body) as Record<string, unknown>);
  const storedCode = (on: LoginSetup, phone: string) => h.identity.store.codes.find(on.connectionId, phone);

  describe('success', () => {
    it('answers 200 with the spec 2.4 body (and the channel used) and sends the code to the gateway', async () => {
      const sent = body();
      const res = await h.start(sent);
      expect(res.status).toBe(200);
      expect(StartResponseSchema.strict().parse(res.body)).toEqual({
        _id: expect.stringMatching(/^[0-9a-f]{24}$/),
        phone_number: sent.phone_number,
        request_language: null,
        phone_verified: false,
        channel: 'sms',
      });
      expect(h.gateway.requests).toHaveLength(1);
      const code = await storedCode(setup, sent.phone_number);
      expect(code).toMatchObject({ request_id: res.body._id, client_id: setup.clientId, auth_params: { scope: 'openid', state: 'xyz' }, attempts: 0, used: false });
      expect(code!.expires_at.getTime() - code!.issued_at.getTime()).toBe(300_000);
    });

    it('reports request_language from x-request-language, else the best-weighted accept-language entry', async () => {
      const explicit = await h.http().post('/passwordless/start').set('x-request-language', 'fr-CA').set('accept-language', 'de').send(body());
      expect(explicit.body.request_language).toBe('fr-CA');
      const accepted = await h.http().post('/passwordless/start').set('accept-language', 'en-GB,en;q=0.8').send(body());
      expect(accepted.body.request_language).toBe('en-GB');
      const weighted = await h.http().post('/passwordless/start').set('accept-language', 'fr;q=0.5, de;q=0.9, *;q=1').send(body());
      expect(weighted.body.request_language).toBe('de');
    });

    it('reports request_language null for a wildcard accept-language', async () => {
      const res = await h.http().post('/passwordless/start').set('accept-language', '*').send(body());
      expect(res.status).toBe(200);
      expect(res.body.request_language).toBeNull();
    });

    it('reports phone_verified false also for a number that has logged in: start does not reveal users', async () => {
      const sent = body();
      await h.identity.store.users.recordLogin({ user_id: 'sms|verified1', connection_id: setup.connectionId, phone_number: sent.phone_number, at: h.clock.now() });
      expect((await h.start(sent)).body.phone_verified).toBe(false);
    });
  });

  describe('the delivery request', () => {
    it('POSTs {recipient, body, sender} as JSON with an Idempotency-Key unique per start', async () => {
      const sent = body();
      const first = await h.start(sent);
      const second = await h.start(sent);
      const [a, b] = h.gateway.requests;
      expect(a!.method).toBe('POST');
      expect(a!.path).toBe('/sms');
      expect(a!.headers['content-type']).toMatch(/^application\/json/);
      expect(JSON.parse(a!.body)).toEqual({ recipient: sent.phone_number, body: expect.stringMatching(/^Your code is \d{6}$/), sender: '+14155550100' });
      expect(a!.headers['idempotency-key']).toBe(first.body._id);
      expect(b!.headers['idempotency-key']).toBe(second.body._id);
      expect(a!.headers['idempotency-key']).not.toBe(b!.headers['idempotency-key']);
    });

    it('sends the code that the stored secret produces', async () => {
      const sent = body();
      await h.start(sent);
      const code = h.codeSentTo(sent.phone_number);
      const row = await storedCode(setup, sent.phone_number);
      expect(computeOtp(row!.secret, { issuedAt: row!.issued_at, step: 300, digits: 6 })).toBe(code);
    });

    it('renders the @@password@@, @@phone_number@@ and @@application.name@@ macros', async () => {
      const templated = await h.loginSetup(
        { template: '@@application.name@@: @@password@@ is the code for @@phone_number@@ (@@unknown@@)' },
        { name: 'Acme Travel' },
      );
      const sent = body({}, templated);
      await h.start(sent);
      const message = delivered()[0]!.body as string;
      expect(message).toMatch(new RegExp(`^Acme Travel: \\d{6} is the code for \\${sent.phone_number} \\(@@unknown@@\\)$`));
    });

    it('leaves sender out when the connection has no from number', async () => {
      const noFrom = await h.loginSetup({ from: undefined });
      await h.start(body({}, noFrom));
      expect(delivered()[0]).not.toHaveProperty('sender');
    });

    it('sends no Authorization header without gateway_authentication', async () => {
      await h.start(body());
      expect(h.gateway.requests[0]!.headers.authorization).toBeUndefined();
    });

    it('signs an HS256 gateway JWT {sub, aud, iat, exp = iat + 5 min} with the shared secret', async () => {
      const secret = 'a-shared-secret-of-reasonable-length';
      const authed = await h.loginSetup({ gateway_authentication: { method: 'bearer', subject: 'identity-svc', audience: 'urn:sms-gateway', secret } });
      await h.start(body({}, authed));
      const header = h.gateway.requests[0]!.headers.authorization as string;
      expect(header).toMatch(/^Bearer /);
      const token = header.slice('Bearer '.length);
      const now = Math.floor(h.clock.now().getTime() / 1000);
      expect(jwt.decode(token, { complete: true })!.header).toMatchObject({ alg: 'HS256' });
      expect(jwt.verify(token, secret, { algorithms: ['HS256'], clockTimestamp: now })).toEqual({ sub: 'identity-svc', aud: 'urn:sms-gateway', iat: now, exp: now + 300 });
    });

    it('decodes a base64url secret before signing when secret_base64_encoded is true', async () => {
      const key = Buffer.from('0123456789abcdef0123456789abcdef-bytes');
      const encoded = key.toString('base64url');
      const authed = await h.loginSetup({
        gateway_authentication: { method: 'bearer', subject: 's', audience: 'a', secret: encoded, secret_base64_encoded: true },
      });
      await h.start(body({}, authed));
      const token = (h.gateway.requests[0]!.headers.authorization as string).slice('Bearer '.length);
      const now = Math.floor(h.clock.now().getTime() / 1000);
      expect(jwt.verify(token, key, { algorithms: ['HS256'], clockTimestamp: now })).toMatchObject({ sub: 's', aud: 'a' });
      expect(() => jwt.verify(token, encoded, { algorithms: ['HS256'], clockTimestamp: now })).toThrow('invalid signature');
    });

    it.each([true, 'true'])('adds req {ip, user-agent} when forward_req_info is %p', async (forward) => {
      const forwarding = await h.loginSetup({ forward_req_info: forward });
      await h.http().post('/passwordless/start').set('user-agent', 'FlowTest/1.0').send(body({}, forwarding));
      expect(delivered()[0]!.req).toEqual({ ip: '127.0.0.1', 'user-agent': 'FlowTest/1.0' });
    });

    it('adds no req when forward_req_info is off', async () => {
      await h.http().post('/passwordless/start').set('user-agent', 'FlowTest/1.0').send(body());
      expect(delivered()[0]).not.toHaveProperty('req');
    });

    it('ignores X-Forwarded-For when TRUST_PROXY is off', async () => {
      const forwarding = await h.loginSetup({ forward_req_info: true });
      await h.start(body({}, forwarding), '203.0.113.9');
      expect((delivered()[0]!.req as { ip: string }).ip).toBe('127.0.0.1');
    });
  });

  describe('request errors (nothing is sent)', () => {
    let disabledFor: LoginSetup;
    beforeAll(async () => {
      const other = await h.createClient({ name: 'Not Enabled' });
      disabledFor = { ...setup, clientId: other.client_id };
    });

    it.each([
      ['client_id is missing', { client_id: undefined }, 'bad.client_id'],
      ['client_id is unknown', { client_id: 'no-such-client' }, 'bad.client_id'],
      ['connection is missing', { connection: undefined }, 'bad.connection'],
      ['connection is unknown', { connection: 'no-such-connection' }, 'bad.connection'],
      ['phone_number is missing', { phone_number: undefined }, 'bad.phone_number'],
      ['phone_number has no +', { phone_number: '14155550123' }, 'bad.phone_number'],
      ['phone_number is too short', { phone_number: '+4479' }, 'bad.phone_number'],
      ['phone_number has an unknown country code', { phone_number: '+999123456789' }, 'bad.phone_number'],
      ['phone_number is not valid for its country', { phone_number: '+15555550123' }, 'bad.phone_number'],
      ['phone_number has 16 digits', { phone_number: '+1234567890123456' }, 'bad.phone_number'],
      ['phone_number is a number', { phone_number: 14155550123 }, 'bad.phone_number'],
      ['authParams is not an object', { authParams: 'openid' }, 'bad.authParams'],
      ['authParams.state is not a string', { authParams: { state: 7 } }, 'bad.authParams'],
      ['there is an unknown property', { email: 'a@example.com' }, 'bad.request'],
      ['send is link', { send: 'link' }, 'bad.request'],
    ])('answers 400 when %s', async (_case, overrides, code) => {
      const res = await h.start(body(overrides));
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: code, error_description: expect.any(String) });
      expect(h.gateway.requests).toHaveLength(0);
    });

    it('answers 400 bad.request for a body that is not an object', async () => {
      const res = await h.http().post('/passwordless/start').send(['+14155550123']);
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('bad.request');
    });

    it('answers 400 bad.connection when the connection is not enabled for the client', async () => {
      const sent = body({}, disabledFor);
      const res = await h.start(sent);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: 'bad.connection', error_description: 'Connection is disabled for this client' });
      expect(h.gateway.requests).toHaveLength(0);
      expect(await storedCode(setup, sent.phone_number)).toBeUndefined();
    });

    it('answers 400 with a description naming the field and what is wrong with it', async () => {
      const res = await h.start(body({ phone_number: '+44 1012 345678' }));
      expect(res.body).toEqual({ error: 'bad.phone_number', error_description: 'phone_number is not a valid number for +44' });
    });
  });

  describe('disable_signup', () => {
    let closed: LoginSetup;
    beforeAll(async () => {
      closed = await h.loginSetup({ disable_signup: true });
    });

    it('refuses a number without a user: 400 bad.connection "Public signup is disabled", nothing sent', async () => {
      const sent = body({}, closed);
      const res = await h.start(sent);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: 'bad.connection', error_description: 'Public signup is disabled' });
      expect(h.gateway.requests).toHaveLength(0);
      expect(await storedCode(closed, sent.phone_number)).toBeUndefined();
    });

    it('sends a code to a number that already has a user', async () => {
      const sent = body({}, closed);
      await h.identity.store.users.recordLogin({ user_id: 'sms|existing1', connection_id: closed.connectionId, phone_number: sent.phone_number, at: h.clock.now() });
      const res = await h.start(sent);
      expect(res.status).toBe(200);
      expect(res.body.phone_verified).toBe(true);
      expect(h.gateway.requests).toHaveLength(1);
    });
  });

  describe('delivery failures', () => {
    async function expectProviderError(on: LoginSetup, description: string, url = h.url): Promise<void> {
      const sent = body({}, on);
      const res = await request(url).post('/passwordless/start').send(sent);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: 'sms_provider_error', error_description: description });
      expect(await storedCode(on, sent.phone_number)).toBeUndefined();
    }

    it.each([
      [500, 'Unexpected response while calling the SMS gateway: 500'],
      [401, 'Authentication failed while calling the SMS gateway: 401'],
      [202, 'Unexpected response while calling the SMS gateway: 202'],
      [204, 'Unexpected response while calling the SMS gateway: 204'],
    ])('answers a gateway %i with 400 sms_provider_error and discards the code', async (status, description) => {
      h.gateway.respondWith(answer(status));
      await expectProviderError(setup, description);
      expect(h.gateway.requests).toHaveLength(1);
    });

    it('answers "Timeout while calling the SMS gateway" after GATEWAY_TIMEOUT_MS', async () => {
      const silent = await RecordingServer.start({ path: '/sms' });
      silent.respondWith(hang);
      try {
        const slow = await h.loginSetup({ gateway_url: silent.url() });
        await expectProviderError(slow, 'Timeout while calling the SMS gateway', await variant({ GATEWAY_TIMEOUT_MS: 200 }));
        expect(silent.requests).toHaveLength(1);
      } finally {
        await silent.close();
      }
    });

    it('answers a refused connection with 400 sms_provider_error', async () => {
      const unreachable = await h.loginSetup({ gateway_url: `http://127.0.0.1:${await freePort()}/sms` });
      await expectProviderError(unreachable, 'Unable to reach the SMS gateway');
    });

    it('discards only its own code: a failing start never deletes the code of a newer start', async () => {
      const sent = body();
      let releaseFirst!: () => void;
      const firstArrived = new Promise<void>((arrived) => {
        let calls = 0;
        h.gateway.respondWith((_req, res) => {
          calls += 1;
          if (calls === 1) {
            releaseFirst = () => res.writeHead(500).end();
            arrived();
          } else {
            res.writeHead(200).end();
          }
        });
      });
      const first = h.start(sent).then((r) => r);
      await firstArrived;
      const second = await h.start(sent);
      expect(second.status).toBe(200);
      const secondCode = h.codeSentTo(sent.phone_number);
      releaseFirst();
      expect((await first).status).toBe(400);
      const row = await storedCode(setup, sent.phone_number);
      expect(row!.request_id).toBe(second.body._id);
      const login = await h.ro(setup, { phone: sent.phone_number, ip: '127.0.0.1' }, secondCode);
      expect(login.status).toBe(200);
    });
  });

  describe('GATEWAY_URL_POLICY=public at send time', () => {
    let publicUrl: string;
    beforeAll(async () => {
      publicUrl = await variant({ GATEWAY_URL_POLICY: 'public' });
    });

    it.each([
      ['loopback', 'http://127.0.0.1:9/sms'],
      ['private 10/8', 'http://10.1.2.3/sms'],
      ['private 172.16/12', 'http://172.16.0.10/sms'],
      ['private 192.168/16', 'http://192.168.1.20/sms'],
      ['link-local and the metadata address', 'http://169.254.169.254/latest/meta-data'],
      ['unspecified', 'http://0.0.0.0/sms'],
      ['multicast', 'http://224.0.0.1/sms'],
      ['IPv6 loopback', 'http://[::1]/sms'],
      ['IPv6 unique local', 'http://[fc00::1]/sms'],
      ['IPv6 link-local', 'http://[fe80::1]/sms'],
      ['IPv4-mapped IPv6 loopback', 'http://[::ffff:127.0.0.1]/sms'],
    ])('refuses a %s gateway address without calling it', async (_class, gatewayUrl) => {
      const target = await h.loginSetup({ gateway_url: gatewayUrl });
      const sent = body({}, target);
      const res = await request(publicUrl).post('/passwordless/start').send(sent);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: 'sms_provider_error', error_description: 'Refused to call the SMS gateway: its address is not allowed' });
      expect(await storedCode(target, sent.phone_number)).toBeUndefined();
    });

    it('refuses a DNS name that resolves to a private address, after resolving it at send time', async () => {
      // The name points at the recording gateway itself: reaching it would record a request.
      const target = await h.loginSetup({ gateway_url: `http://private.gateway.test:${h.gateway.port}/sms` });
      resolved.length = 0;
      const refused = await request(publicUrl).post('/passwordless/start').send(body({}, target));
      expect(refused.status).toBe(400);
      expect(refused.body.error_description).toBe('Refused to call the SMS gateway: its address is not allowed');
      expect(resolved).toContain('private.gateway.test');
      expect(h.gateway.requests).toHaveLength(0);
    });

    it('never follows a redirect from the gateway', async () => {
      const target = await RecordingServer.start();
      try {
        h.gateway.respondWith(answer(302, { location: target.url('/internal') }));
        const res = await h.start(body());
        expect(res.status).toBe(400);
        expect(res.body.error_description).toBe('Unexpected response while calling the SMS gateway: 302');
        expect(target.requests).toHaveLength(0);
      } finally {
        await target.close();
      }
    });
  });
});
