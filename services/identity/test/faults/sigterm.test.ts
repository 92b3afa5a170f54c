import { resolve } from 'node:path';
import { StartResponseSchema } from '@smsauth/contracts';
import { builtEntryPoint, exitWithin, RecordingServer, startServiceProcess, untilNewRequestsRefused, type ServiceProcess } from '@smsauth/test-support';
import { ADMIN_CLIENT_ID, ADMIN_CLIENT_SECRET, connectionBody } from '../helpers';

const ENTRY = resolve(__dirname, '../../dist/main.js');
const SUITE = 'identity: SIGTERM during in-flight requests (faults)';

async function json(url: string, init: RequestInit & { body?: string } = {}, token?: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(url, {
    ...init,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

(builtEntryPoint(ENTRY, SUITE, 'pnpm -C services/identity build') ? describe : describe.skip)(SUITE, () => {
  let gateway: RecordingServer;
  let identity: ServiceProcess | undefined;
  /** Answers the held gateway request, once. */
  let releaseGateway: (() => void) | undefined;
  const release = () => {
    const answer = releaseGateway;
    releaseGateway = undefined;
    answer?.();
  };

  beforeAll(async () => {
    gateway = await RecordingServer.start({ path: '/sms' });
  });
  afterAll(async () => {
    release();
    await identity?.kill();
    await gateway.close();
  });

  it('finishes a passwordless start waiting on a slow gateway, refuses new work, and exits 0 within 10 s', async () => {
    identity = await startServiceProcess(ENTRY, {
      DATABASE_URL: 'memory://',
      ADMIN_CLIENT_ID,
      ADMIN_CLIENT_SECRET,
      GATEWAY_URL_POLICY: 'any',
    });
    const { url } = identity;
    const token = await json(`${url}/oauth/token`, {
      method: 'POST',
      body: JSON.stringify({ grant_type: 'client_credentials', client_id: ADMIN_CLIENT_ID, client_secret: ADMIN_CLIENT_SECRET, audience: `http://localhost:${identity.port}/api/v2/` }), // AUTH_URL defaults to localhost:PORT
    });
    expect(token.status).toBe(200);
    const admin = token.body.access_token as string;
    const client = await json(`${url}/api/v2/clients`, { method: 'POST', body: JSON.stringify({ name: 'Shutdown', app_type: 'native' }) }, admin);
    expect(client.status).toBe(201);
    const clientId = client.body.client_id as string;
    const connection = await json(
      `${url}/api/v2/connections`,
      { method: 'POST', body: JSON.stringify(connectionBody({ gateway_url: gateway.url() }, [clientId])) },
      admin,
    );
    expect(connection.status).toBe(201);

    // The gateway holds its answer until the test releases it: the start is in flight when
    // SIGTERM comes, however long the service takes to turn new work away on a loaded machine.
    gateway.respondWith((_req, res) => {
      releaseGateway = () => res.writeHead(200).end();
    });
    let finished = false;
    const inFlight = json(`${url}/passwordless/start`, {
      method: 'POST',
      body: JSON.stringify({ client_id: clientId, connection: connection.body.name, phone_number: '+14155550123', send: 'code' }),
    }).finally(() => (finished = true));
    while (gateway.requests.length === 0) await new Promise((r) => setTimeout(r, 20));

    identity.child.kill('SIGTERM');
    const exit = exitWithin(identity, 10_000);
    await untilNewRequestsRefused(url);
    expect(finished).toBe(false); // refused new work while the start was still running

    release();
    const started = await inFlight;
    expect(started.status).toBe(200);
    expect(StartResponseSchema.parse(started.body).phone_number).toBe('+14155550123');
    expect(await exit).toEqual({ code: 0, signal: null });
  });
});
