import { jwtRejection, JwtRejectionReasons as Reasons, methodNotFound } from '@smsauth/contracts';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger, createMemoryLogger, loadConfig, serve, type ServerHandle } from '@smsauth/service-kit';
import type { Express } from 'express';
import request from 'supertest';
import { buildApp } from '../src/app';
import { configSchema } from '../src/config';
import { FakeIdentity } from './support/identity';

const NOW = Date.UTC(2031, 5, 1, 8, 0, 0);
const clock = { now: () => new Date(NOW) };

describe('GET /airportName', () => {
  let identity: FakeIdentity;
  let app: Express;
  let token: string;
  const memory = createMemoryLogger({ name: 'airport-api' });

  beforeAll(async () => {
    identity = await FakeIdentity.start();
    const config = loadConfig(configSchema, { AUTH_URL: identity.authUrl });
    ({ app } = buildApp({ config, logger: memory.logger, clock }));
    token = identity.token(NOW);
  });

  afterAll(async () => {
    await identity.close();
  });

  const get = (query: string) => request(app).get(`/airportName${query}`).set('Authorization', `Bearer ${token}`);

  it('returns the airport name as text/plain for a valid token', async () => {
    const res = await get('?iataCode=SFO');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(res.text).toBe('San Francisco International Airport');
  });

  it('answers BOS with Logan International Airport', async () => {
    expect((await get('?iataCode=BOS')).text).toBe('Logan International Airport');
  });

  it('accepts a lower-case code', async () => {
    const res = await get('?iataCode=sfo');
    expect(res.status).toBe(200);
    expect(res.text).toBe('San Francisco International Airport');
  });

  it('accepts the token in the access_token query parameter', async () => {
    const res = await request(app).get('/airportName').query({ iataCode: 'BOS', access_token: token });
    expect(res.status).toBe(200);
  });

  it('answers 400 "No IATA code provided." without iataCode', async () => {
    const res = await get('');
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(res.text).toBe('No IATA code provided.');
  });

  it('answers 400 "No IATA code provided." for an empty iataCode', async () => {
    expect((await get('?iataCode=')).text).toBe('No IATA code provided.');
  });

  it('answers 400 "Invalid IATA code: <code>" for a code that is not three letters', async () => {
    for (const code of ['SF', 'SFOX', 'S1O']) {
      const res = await get(`?iataCode=${code}`);
      expect(res.status).toBe(400);
      expect(res.text).toBe(`Invalid IATA code: ${code}`);
    }
  });

  it('answers 400 "Invalid IATA code" for a repeated iataCode', async () => {
    const res = await get('?iataCode=SFO&iataCode=BOS');
    expect(res.status).toBe(400);
    expect(res.text).toBe('Invalid IATA code: SFO,BOS');
  });

  it('answers 400 "IATA code not found : <code>" for an unknown code', async () => {
    const res = await get('?iataCode=QQQ');
    expect(res.status).toBe(400);
    expect(res.text).toBe('IATA code not found : QQQ');
  });

  it('answers 400 in text, as its document says, for text no service accepts in any query parameter', async () => {
    const res = await get('?iataCode=SFO&fields=a%00b');
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(res.text).toBe('Query parameter fields contains a NUL character');
  });

  it('rejects a call without a token with the spec 2.8 body', async () => {
    const res = await request(app).get('/airportName?iataCode=SFO');
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Bearer');
    expect(res.body).toEqual({
      code: 16,
      message: 'JWT validation failed: Missing or invalid credentials',
      details: [{ '@type': 'type.googleapis.com/google.rpc.DebugInfo', stackEntries: [], detail: 'auth' }],
    });
  });

  it('checks the token before the parameters', async () => {
    const res = await request(app).get('/airportName');
    expect(res.status).toBe(401);
  });

  it('rejects a token for another audience', async () => {
    const res = await request(app)
      .get('/airportName?iataCode=SFO')
      .set('Authorization', `Bearer ${identity.token(NOW, { aud: 'https://other-api.example.com' })}`);
    expect(res.body).toEqual(jwtRejection(Reasons.AUDIENCE_NOT_ALLOWED));
  });

  it('rejects an issuer without the trailing slash', async () => {
    const res = await request(app)
      .get('/airportName?iataCode=SFO')
      .set('Authorization', `Bearer ${identity.token(NOW, { iss: identity.authUrl })}`);
    expect(res.body).toEqual(jwtRejection(Reasons.ISSUER_NOT_ALLOWED));
  });

  it('answers 404 code 5 for paths and methods the document does not define', async () => {
    for (const res of [await request(app).get('/airports'), await request(app).post('/airportName').set('Authorization', `Bearer ${token}`)]) {
      expect(res.status).toBe(404);
      expect(res.body).toEqual(methodNotFound());
    }
  });

  it('never writes the token to the log', async () => {
    await request(app).get('/airportName').query({ iataCode: 'SFO', access_token: token });
    const log = memory.text();
    expect(log).toContain('/airportName');
    expect(log).not.toContain(token.split('.')[2]);
  });
});

describe('airport-api over a real server', () => {
  it('answers a 20 KB token with a 4xx, never a 5xx', async () => {
    const identity = await FakeIdentity.start();
    const config = loadConfig(configSchema, { AUTH_URL: identity.authUrl, PORT: '0', HOST: '127.0.0.1' });
    const logger = createLogger({ name: 'test', level: 'silent' });
    const { app, lifecycle } = buildApp({ config, logger, clock });
    const handle: ServerHandle = await serve(app, { port: 0, host: '127.0.0.1', logger, lifecycle });
    // Node's default 16 KB header limit answers 431 before the app sees the request.
    const big = identity.token(NOW, { padding: 'x'.repeat(20 * 1024) });
    const viaDefaultServer = await request(handle.url).get('/airportName?iataCode=SFO').set('Authorization', `Bearer ${big}`);
    // A server with a larger header limit lets it reach the gateway, which refuses it.
    const roomy: Server = createServer({ maxHeaderSize: 64 * 1024 }, app);
    await new Promise<void>((resolve) => roomy.listen(0, '127.0.0.1', resolve));
    const viaGateway = await request(`http://127.0.0.1:${(roomy.address() as AddressInfo).port}`)
      .get('/airportName?iataCode=SFO')
      .set('Authorization', `Bearer ${big}`);
    await new Promise<void>((resolve) => roomy.close(() => resolve()));
    await handle.shutdown();
    await identity.close();

    expect(viaDefaultServer.status).toBe(431);
    expect(viaGateway.status).toBe(401);
    expect(viaGateway.body).toEqual(jwtRejection(Reasons.BAD_FORMAT));
  });
});
