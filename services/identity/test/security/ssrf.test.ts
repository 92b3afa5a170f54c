import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConnectionRecordSchema, ErrorCodes, OAuthErrorBodySchema, SmsProviderErrorDescriptions, type OAuthErrorBody } from '@smsauth/contracts';
import request from 'supertest';
import { buildApp } from '../../src/app';
import { resolveWithSystemDns, type ResolveHost } from '../../src/delivery/gateway-url-policy';
import { captureLogger, connectionBody } from '../helpers';
import { FlowHarness, listen, type LoginSetup } from '../passwordless/flow-harness';
import { answer, RecordingServer } from '@smsauth/test-support';

/**
 * SSRF through the HTTP API with GATEWAY_URL_POLICY=public: refused when a connection's
 * gateway_url is set (POST and PATCH /api/v2/connections, after DNS) and again when a code
 * is sent (POST /passwordless/start, at connect time, so DNS rebinding does not help).
 * DNS is the app's injectable `resolveHost`: the outside world, not our code.
 */

const PUBLIC_ADDRESS = '93.184.215.14';

/** Test DNS: a table the test re-points at will; `localhost` goes to the system resolver. */
class TestDns {
  private readonly table = new Map<string, string[]>();
  readonly lookups: string[] = [];

  point(hostname: string, ...addresses: string[]): void {
    this.table.set(hostname, addresses);
  }

  readonly resolve: ResolveHost = async (hostname) => {
    this.lookups.push(hostname);
    if (hostname === 'localhost') return resolveWithSystemDns(hostname);
    const addresses = this.table.get(hostname);
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
}

function errorBody(res: request.Response): OAuthErrorBody {
  return OAuthErrorBodySchema.parse(res.body);
}

/** [gateway_url, what the 400's message for options.gateway_url must say] */
const REFUSED_AT_CREATE: Array<[url: string, says: string | RegExp]> = [
  // IPv4 loopback in every spelling the WHATWG URL parser normalises to 127.0.0.1
  ['http://127.0.0.1/sms', 'resolves to 127.0.0.1, a loopback address'],
  ['http://127.1/sms', 'resolves to 127.0.0.1, a loopback address'],
  ['http://2130706433/sms', 'resolves to 127.0.0.1, a loopback address'],
  ['http://0x7f000001/sms', 'resolves to 127.0.0.1, a loopback address'],
  ['http://0177.0.0.1/sms', 'resolves to 127.0.0.1, a loopback address'],
  ['http://0x7f.1/sms', 'resolves to 127.0.0.1, a loopback address'],
  ['http://127.0.0.1./sms', 'resolves to 127.0.0.1, a loopback address'],
  ['http://127.255.255.254/sms', 'a loopback address'],
  ['http://0.0.0.0/sms', 'resolves to 0.0.0.0, a unspecified address'],
  ['http://0/sms', 'resolves to 0.0.0.0, a unspecified address'],
  // private, link-local (cloud metadata), CGNAT, broadcast
  ['http://10.0.0.1/sms', 'resolves to 10.0.0.1, a private address'],
  ['http://10.255.255.254/sms', 'a private address'],
  ['http://172.16.0.1/sms', 'resolves to 172.16.0.1, a private address'],
  ['http://172.31.255.254/sms', 'a private address'],
  ['http://192.168.1.1/sms', 'resolves to 192.168.1.1, a private address'],
  ['http://169.254.169.254/latest/meta-data/', 'resolves to 169.254.169.254, a linkLocal address'],
  ['http://100.64.0.1/sms', 'resolves to 100.64.0.1, a carrierGradeNat address'],
  ['http://255.255.255.255/sms', 'a broadcast address'],
  // IPv6 literals
  ['http://[::1]/sms', 'resolves to ::1, a loopback address'],
  ['http://[::]/sms', 'resolves to ::, a unspecified address'],
  ['http://[::ffff:127.0.0.1]/sms', 'a loopback address'],
  ['http://[::ffff:7f00:1]/sms', 'a loopback address'],
  ['http://[::ffff:169.254.169.254]/sms', 'a linkLocal address'],
  ['http://[::ffff:10.0.0.1]/sms', 'a private address'],
  ['http://[fe80::1]/sms', 'resolves to fe80::1, a linkLocal address'],
  ['http://[fc00::1]/sms', 'resolves to fc00::1, a uniqueLocal address'],
  ['http://[fd00:ec2::254]/latest/meta-data/', 'a uniqueLocal address'],
  ['http://[64:ff9b::7f00:1]/sms', 'a loopback address'],
  ['http://[::127.0.0.1]/sms', 'a ipv4Compatible address'],
  // names: resolved (through the injected DNS) before the connection is stored
  ['http://localhost:4100/sms', /^host localhost resolves to (127\.0\.0\.1|::1), a loopback address/],
  ['http://LOCALHOST/sms', /^host localhost resolves to (127\.0\.0\.1|::1), a loopback address/],
  ['http://metadata.google.internal/computeMetadata/v1/', 'host metadata.google.internal resolves to 169.254.169.254, a linkLocal address'],
  ['https://loopback.attacker.example/sms', 'host loopback.attacker.example resolves to 127.0.0.1, a loopback address'],
  ['https://mapped.attacker.example/sms', 'host mapped.attacker.example resolves to ::ffff:127.0.0.1, a loopback address'],
  ['https://mixed.attacker.example/sms', 'host mixed.attacker.example resolves to 10.0.0.5, a private address'],
  ['https://v6.attacker.example/sms', 'host v6.attacker.example resolves to fe80::1, a linkLocal address'],
  ['https://unknown.attacker.example/sms', 'host unknown.attacker.example could not be resolved'],
  // userinfo and fragment tricks: the host is what follows the @ / precedes the #
  ['https://public.example@127.0.0.1/sms', 'resolves to 127.0.0.1, a loopback address'],
  ['https://public.example:443@169.254.169.254/', 'resolves to 169.254.169.254, a linkLocal address'],
  ['https://user:pass@[::1]/sms', 'resolves to ::1, a loopback address'],
  ['http://127.0.0.1#@public.example/sms', 'resolves to 127.0.0.1, a loopback address'],
  // ports change nothing
  ['http://127.0.0.1:4100/sms', 'resolves to 127.0.0.1, a loopback address'],
  ['https://10.0.0.1:8443/sms', 'resolves to 10.0.0.1, a private address'],
  ['http://[::1]:80/sms', 'resolves to ::1, a loopback address'],
  ['http://169.254.169.254:80/latest/meta-data/', 'a linkLocal address'],
  // schemes other than http(s)
  ['file:///etc/passwd', 'must be an http: or https: URL'],
  ['gopher://127.0.0.1:6379/_INFO', 'must be an http: or https: URL'],
  ['gopher://public.example/', 'must be an http: or https: URL'],
  ['ftp://public.example/sms', 'must be an http: or https: URL'],
  ['dict://127.0.0.1:11211/stat', 'must be an http: or https: URL'],
  ['javascript:alert(1)', 'must be an http: or https: URL'],
  ['data:text/plain,hello', 'must be an http: or https: URL'],
];

describe('SSRF: GATEWAY_URL_POLICY=public', () => {
  const dns = new TestDns();
  let h: FlowHarness;
  /** The same service and database with GATEWAY_URL_POLICY=any (a deployment before the switch). */
  let anyPolicy: Server;
  let anyPolicyUrl: string;

  beforeAll(async () => {
    dns.point('gateway.example', PUBLIC_ADDRESS, '2606:4700::6810:84e5');
    dns.point('metadata.google.internal', '169.254.169.254');
    dns.point('loopback.attacker.example', '127.0.0.1');
    dns.point('mapped.attacker.example', '::ffff:127.0.0.1');
    dns.point('mixed.attacker.example', PUBLIC_ADDRESS, '10.0.0.5');
    dns.point('v6.attacker.example', '2606:4700::6810:84e5', 'fe80::1');
    h = await FlowHarness.start(
      { GATEWAY_URL_POLICY: 'public', PASSWORDLESS_START_LIMIT_PER_IP_PER_HOUR: '1000' },
      { resolveHost: dns.resolve },
    );
    expect(h.identity.config.GATEWAY_URL_POLICY).toBe('public');
    anyPolicy = await listen(
      buildApp({
        config: { ...h.identity.config, GATEWAY_URL_POLICY: 'any' },
        logger: captureLogger().logger,
        store: h.identity.store,
        keyRing: h.identity.keyRing,
        clock: h.clock,
        resolveHost: dns.resolve,
      }).app,
    );
    anyPolicyUrl = `http://127.0.0.1:${(anyPolicy.address() as AddressInfo).port}`;
  });
  afterEach(() => h.gateway.reset());
  afterAll(async () => {
    const closed = new Promise<void>((resolve) => anyPolicy.close(() => resolve()));
    anyPolicy.closeAllConnections();
    await closed;
    await h.close();
  });

  async function connectionsNamed(name: string): Promise<unknown[]> {
    const res = await h.management('get', `/connections?name=${name}`).expect(200);
    return res.body as unknown[];
  }

  function expectGatewayUrlRefused(res: request.Response, says: string | RegExp): void {
    expect(res.status).toBe(400);
    const body = errorBody(res);
    expect(body.error).toBe(ErrorCodes.INVALID_REQUEST);
    expect(body.error_description).toMatch(/^options\.gateway_url: /);
    const detail = body.details?.find((d) => d.path === 'options.gateway_url');
    expect(detail).toBeDefined();
    if (typeof says === 'string') expect(detail!.message).toContain(says);
    else expect(detail!.message).toMatch(says);
  }

  describe('at create time (POST /api/v2/connections)', () => {
    it.each(REFUSED_AT_CREATE)('refuses %s with a 400 saying why, and stores nothing', async (url, says) => {
      const body = connectionBody({ gateway_url: url });
      const res = await h.management('post', '/connections', body);
      expectGatewayUrlRefused(res, says);
      expect(await connectionsNamed((body.options as { name: string }).name)).toEqual([]);
    });

    it('accepts a name whose every address is public, and a public literal (the table above can fail)', async () => {
      for (const url of ['https://gateway.example/sms', `https://${PUBLIC_ADDRESS}/sms`, 'https://[2606:4700::6810:84e5]/sms']) {
        const res = await h.management('post', '/connections', connectionBody({ gateway_url: url }));
        expect(res.status).toBe(201);
        expect(ConnectionRecordSchema.parse(res.body).options.gateway_url).toBe(url);
      }
    });

    it('resolves the host name through DNS before storing the connection', async () => {
      dns.lookups.length = 0;
      await h.management('post', '/connections', connectionBody({ gateway_url: 'https://loopback.attacker.example/sms' })).expect(400);
      expect(dns.lookups).toEqual(['loopback.attacker.example']);
    });
  });

  describe('at update time (PATCH /api/v2/connections/:id options.gateway_url)', () => {
    let connection: { id: string; options: { gateway_url: string } };
    beforeAll(async () => {
      const res = await h.management('post', '/connections', connectionBody({ gateway_url: 'https://gateway.example/sms' })).expect(201);
      connection = res.body;
    });

    it.each(REFUSED_AT_CREATE)('refuses %s with a 400 saying why, and keeps the old gateway_url', async (url, says) => {
      const res = await h.management('patch', `/connections/${connection.id}`, { options: { gateway_url: url } });
      expectGatewayUrlRefused(res, says);
      const stored = await h.management('get', `/connections/${connection.id}`).expect(200);
      expect(ConnectionRecordSchema.parse(stored.body).options.gateway_url).toBe('https://gateway.example/sms');
    });

    it('accepts a public gateway_url (the table above can fail)', async () => {
      const res = await h.management('patch', `/connections/${connection.id}`, { options: { gateway_url: `https://${PUBLIC_ADDRESS}/v2/sms` } });
      expect(res.status).toBe(200);
      expect(ConnectionRecordSchema.parse(res.body).options.gateway_url).toBe(`https://${PUBLIC_ADDRESS}/v2/sms`);
      await h.management('patch', `/connections/${connection.id}`, { options: { gateway_url: 'https://gateway.example/sms' } }).expect(200);
    });
  });

  describe('at send time (POST /passwordless/start)', () => {
    async function startOn(setup: LoginSetup): Promise<request.Response> {
      const who = h.caller();
      return h.start({ client_id: setup.clientId, connection: setup.connection, phone_number: who.phone, send: 'code' });
    }

    function expectRefusedSend(res: request.Response): void {
      expect(res.status).toBe(400);
      expect(errorBody(res)).toEqual({ error: ErrorCodes.SMS_PROVIDER_ERROR, error_description: SmsProviderErrorDescriptions.GATEWAY_ADDRESS_REFUSED });
    }

    it.each([
      ['127.0.0.1', ['127.0.0.1']],
      ['::ffff:127.0.0.1', ['::ffff:127.0.0.1']],
      ['a public and a loopback address', [PUBLIC_ADDRESS, '127.0.0.1']],
      ['169.254.169.254', ['169.254.169.254']],
      ['10.0.0.1', ['10.0.0.1']],
    ])(
      'refuses a name that passed creation but re-resolves to %s when the code is sent (DNS rebinding), and connects nowhere',
      async (_label, rebound) => {
        // A fresh name per case: passes the create-time check with a public answer...
        const host = `rebind-${h.caller().phone.slice(-4)}.attacker.example`;
        dns.point(host, PUBLIC_ADDRESS);
        const setup = await h.loginSetup({ gateway_url: `http://${host}:${h.gateway.port}/sms` });
        // ...then points at the recording gateway (and other internal places) when it matters.
        dns.point(host, ...rebound);
        dns.lookups.length = 0;

        expectRefusedSend(await startOn(setup));
        expect(dns.lookups).toContain(host);
        expect(h.gateway.requests).toEqual([]);
      },
    );

    it.each([
      ['a loopback literal', (port: number) => `http://127.0.0.1:${port}/sms`],
      ['the decimal form of 127.0.0.1', (port: number) => `http://2130706433:${port}/sms`],
      ['an IPv4-mapped IPv6 loopback', (port: number) => `http://[::ffff:127.0.0.1]:${port}/sms`],
      ['localhost', (port: number) => `http://localhost:${port}/sms`],
    ])(
      'refuses %s stored before the policy was public, without calling it',
      async (_label, gatewayUrl) => {
        // Created through the same API by a GATEWAY_URL_POLICY=any instance on the same database.
        const client = await h.createClient();
        const created = await request(anyPolicyUrl)
          .post('/api/v2/connections')
          .set('authorization', `Bearer ${h.admin}`)
          .send(connectionBody({ gateway_url: gatewayUrl(h.gateway.port) }, [client.client_id]));
        expect(created.status).toBe(201);
        const setup = { clientId: client.client_id, clientName: client.name, connection: created.body.name, connectionId: created.body.id };

        expectRefusedSend(await startOn(setup));
        expect(h.gateway.requests).toEqual([]);

        // The same connection is delivered to by the `any` instance: the refusal above is the policy's doing.
        const who = h.caller();
        const delivered = await request(anyPolicyUrl)
          .post('/passwordless/start')
          .send({ client_id: setup.clientId, connection: setup.connection, phone_number: who.phone, send: 'code' });
        expect(delivered.status).toBe(200);
        expect(h.gateway.requests).toHaveLength(1);
      },
    );

    it('logs the refused address class, never the message', async () => {
      const host = 'logged-rebind.attacker.example';
      dns.point(host, PUBLIC_ADDRESS);
      const setup = await h.loginSetup({ gateway_url: `http://${host}:${h.gateway.port}/sms` });
      dns.point(host, '127.0.0.1');
      expectRefusedSend(await startOn(setup));
      const line = h.identity
        .logs()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .reverse()
        .find((l) => l.msg === 'SMS gateway call failed');
      expect(line).toMatchObject({ gateway: `http://${host}:${h.gateway.port}`, failure: 'address_refused', refusedAddressClass: 'loopback' });
      expect(h.identity.logs()).not.toContain('Your code is');
    });

    describe.each([301, 302, 303, 307, 308])('a gateway answering %i with a Location inside the network', (status) => {
      it('is not followed: start fails with sms_provider_error and the target receives nothing', async () => {
        // Under `public` no local fake gateway is reachable at all, so this runs on the `any`
        // instance, where the redirect target is allowed by policy: only not following it protects it.
        const internal = await RecordingServer.start();
        try {
          const client = await h.createClient();
          const created = await request(anyPolicyUrl)
            .post('/api/v2/connections')
            .set('authorization', `Bearer ${h.admin}`)
            .send(connectionBody({ gateway_url: h.gateway.url() }, [client.client_id]))
            .expect(201);
          h.gateway.respondWith(answer(status, { location: internal.url('/latest/meta-data/') }));
          const res = await request(anyPolicyUrl)
            .post('/passwordless/start')
            .send({ client_id: client.client_id, connection: created.body.name, phone_number: h.caller().phone, send: 'code' });

          expect(res.status).toBe(400);
          expect(errorBody(res)).toEqual({
            error: ErrorCodes.SMS_PROVIDER_ERROR,
            error_description: `Unexpected response while calling the SMS gateway: ${status}`,
          });
          expect(h.gateway.requests).toHaveLength(1);
          expect(internal.requests).toEqual([]);
        } finally {
          await internal.close();
        }
      });
    });
  });
});
