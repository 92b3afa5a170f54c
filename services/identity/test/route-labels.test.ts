import request from 'supertest';
import { adminToken, connectionBody, startTestIdentity, type TestIdentity } from './helpers';

/** The count of `http_request_duration_seconds` for one method, route label and status, from /metrics. */
async function requestCount(identity: TestIdentity, method: string, route: string, status: number): Promise<number> {
  const metrics = (await request(identity.app).get('/metrics').expect(200)).text;
  const label = `method="${method}",route="${route}",status_code="${status}"`;
  const line = metrics.split('\n').find((l) => l.startsWith('http_request_duration_seconds_count{') && l.includes(label));
  return line === undefined ? 0 : Number(line.split(' ').at(-1));
}

describe('request metrics of the management API', () => {
  let identity: TestIdentity;
  let auth: { authorization: string };

  beforeAll(async () => {
    identity = await startTestIdentity();
    auth = { authorization: `Bearer ${await adminToken(identity.app)}` };
  });
  afterAll(() => identity.close());

  it('labels a created connection and a refused one with the same full route', async () => {
    await request(identity.app).post('/api/v2/connections').set(auth).send(connectionBody({ name: 'labels-ok' })).expect(201);
    await request(identity.app).post('/api/v2/connections').set(auth).send({ strategy: 'sms' }).expect(400);
    expect(await requestCount(identity, 'POST', '/api/v2/connections', 201)).toBe(1);
    expect(await requestCount(identity, 'POST', '/api/v2/connections', 400)).toBe(1);
    expect(await requestCount(identity, 'POST', '/connections', 400)).toBe(0);
  });

  it('labels a path-parameter route the same for a found and a missing record', async () => {
    const created = await request(identity.app).post('/api/v2/clients').set(auth).send({ name: 'Labels', app_type: 'native' }).expect(201);
    await request(identity.app).get(`/api/v2/clients/${created.body.client_id as string}`).set(auth).expect(200);
    await request(identity.app).get('/api/v2/clients/no-such-client').set(auth).expect(404);
    expect(await requestCount(identity, 'GET', '/api/v2/clients/:id', 200)).toBe(1);
    expect(await requestCount(identity, 'GET', '/api/v2/clients/:id', 404)).toBe(1);
  });
});
