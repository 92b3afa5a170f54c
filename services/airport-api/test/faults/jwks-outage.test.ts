import { GatewayRejectionSchema, jwtRejection, JwtRejectionReasons as Reasons } from '@smsauth/contracts';
import { createMemoryLogger, loadConfig } from '@smsauth/service-kit';
import { startTcpProxy, type TcpProxy, detachedKeyPair } from '@smsauth/test-support';
import type { Express } from 'express';
import jwt from 'jsonwebtoken';
import request from 'supertest';
import { buildApp } from '../../src/app';
import { configSchema } from '../../src/config';
import { FakeIdentity } from '../support/identity';

/*
 * The identity service's JWKS endpoint going away after the airport API cached its keys. The
 * gateway package proves the same on its own (packages/api-gateway/test/gateway.test.ts,
 * "keeps verifying tokens signed by cached keys while the JWKS is down"); this is the
 * service as deployed: its config, its OpenAPI document, a real socket outage.
 */

class TestClock {
  constructor(public ms = Date.UTC(2031, 5, 1, 8, 0, 0)) {}
  now(): Date {
    return new Date(this.ms);
  }
  advance(ms: number): void {
    this.ms += ms;
  }
}

describe('airport API while the JWKS endpoint is down (faults)', () => {
  let identity: FakeIdentity;
  let proxy: TcpProxy;
  let authUrl: string;
  let clock: TestClock;
  let app: Express;
  const strangerKey = detachedKeyPair('rsa', { modulusLength: 2048 }).privateKey;

  beforeEach(async () => {
    identity = await FakeIdentity.start();
    proxy = await startTcpProxy({ host: '127.0.0.1', port: Number(new URL(identity.authUrl).port) });
    authUrl = proxy.proxiedUrl(identity.authUrl).replace(/\/$/, '');
    clock = new TestClock();
    const config = loadConfig(configSchema, { AUTH_URL: authUrl });
    ({ app } = buildApp({ config, logger: createMemoryLogger({ name: 'airport-api' }).logger, clock, jwksFetchTimeoutMs: 300 }));
  });
  afterEach(async () => {
    await proxy.close();
    await identity.close();
  });

  /** A token as identity issues it, for the issuer the airport API is configured with. */
  const tokenFor = (claims: Record<string, unknown> = {}) => identity.token(clock.ms, { iss: `${authUrl}/`, ...claims });
  const unknownKidToken = () => {
    const now = Math.floor(clock.ms / 1000);
    return jwt.sign({ iss: `${authUrl}/`, aud: 'https://airport-api.example.com', sub: 'sms|stranger', iat: now, exp: now + 3600 }, strangerKey, {
      algorithm: 'RS256',
      keyid: 'kid-nobody-published',
    });
  };
  const callAirport = (token: string) => request(app).get('/airportName?iataCode=SFO').set('Authorization', `Bearer ${token}`);

  it.each([
    ['cut (connections refused)', (p: TcpProxy) => p.cut()],
    ['hanging (no answer)', (p: TcpProxy) => p.pause()],
  ])('keeps accepting tokens signed by cached keys while the JWKS is %s, and rejects an unknown kid as specified', async (_case, breakJwks) => {
    const first = await callAirport(tokenFor());
    expect(first.status).toBe(200);
    expect(first.text).toBe('San Francisco International Airport');
    const fetchesWhileUp = identity.fetches;

    await breakJwks(proxy);
    clock.advance(10 * 60_000); // well past the 5-minute cache: a refresh is due and fails

    for (const sub of ['sms|second', 'sms|third']) {
      const res = await callAirport(tokenFor({ sub }));
      expect(res.status).toBe(200);
      expect(res.text).toBe('San Francisco International Airport');
    }
    // The keys it holds still verify, so the service stays ready.
    expect((await request(app).get('/readyz')).status).toBe(200);

    clock.advance(2_000);
    const unknown = await callAirport(unknownKidToken());
    expect(unknown.status).toBe(401);
    expect(unknown.headers['www-authenticate']).toBe('Bearer, error="invalid_token"');
    expect(GatewayRejectionSchema.parse(unknown.body)).toEqual(jwtRejection(Reasons.UNABLE_TO_FETCH_KEY));
    expect(identity.fetches).toBe(fetchesWhileUp); // nothing got through to the identity service

    // Back up: the cached keys still work and an unknown kid is now a plain "no such key".
    await proxy.restore();
    clock.advance(61_000);
    expect((await callAirport(tokenFor({ sub: 'sms|fourth' }))).status).toBe(200);
    const stillUnknown = await callAirport(unknownKidToken());
    expect(stillUnknown.status).toBe(401);
    expect(GatewayRejectionSchema.parse(stillUnknown.body)).toEqual(jwtRejection(Reasons.keyNotFound('kid-nobody-published')));
    expect(identity.fetches).toBeGreaterThan(fetchesWhileUp);
  });
});
