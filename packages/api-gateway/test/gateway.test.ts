import { jwtRejection, JwtRejectionReasons as Reasons, methodNotFound, permissionDenied } from '@smsauth/contracts';
import { createLogger } from '@smsauth/service-kit';
import { JwksServer } from '@smsauth/test-support';
import { Registry } from 'prom-client';
import request from 'supertest';
import { stringify as toYaml } from 'yaml';
import { createApiGateway, OpenApiDocumentError } from '../src';
import { TestClock } from './support/clock';
import { AUDIENCE, ECHO_HANDLERS, ISSUER, startGateway, testDocument, type RunningGateway } from './support/harness';
import { ecKey, rsaKey } from './support/keys';
import { signToken } from './support/tokens';

const key1 = rsaKey('key-1');
const key2 = rsaKey('key-2');
const ec1 = ecKey('ec-1');

function claimsAt(clock: TestClock, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { iss: ISSUER, aud: AUDIENCE, sub: 'sms|5f1', iat: clock.seconds, exp: clock.seconds + 3600, ...overrides };
}

const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

describe('API gateway', () => {
  let jwks: JwksServer;
  let gateway: RunningGateway;
  let clock: TestClock;

  beforeEach(async () => {
    jwks = await JwksServer.start([key1.jwk, ec1.jwk]);
    clock = new TestClock();
  });

  afterEach(async () => {
    await gateway?.close();
    await jwks.close();
  });

  const start = async (options: Partial<Parameters<typeof startGateway>[0]> = {}) => {
    gateway = await startGateway({ jwksUri: jwks.url, clock, ...options });
    return gateway;
  };

  describe('valid tokens', () => {
    it('accepts a token in the Authorization header and hands the claims to the handler', async () => {
      await start();
      const claims = claimsAt(clock, { scope: 'read:things' });
      const token = signToken(key1, claims);
      const res = await request(gateway.url).get('/things/42').set(bearer(token));
      expect(res.status).toBe(200);
      expect(res.body.auth).toEqual(claims);
      expect(res.body.params).toEqual({ thingId: '42' });
      expect(res.body.userInfo).toBe(token.split('.')[1]);
      expect(JSON.parse(Buffer.from(res.body.userInfo, 'base64url').toString('utf8'))).toEqual(claims);
    });

    it('accepts a token in the access_token query parameter', async () => {
      await start();
      const res = await request(gateway.url).get('/things/42').query({ access_token: signToken(key1, claimsAt(clock)) });
      expect(res.status).toBe(200);
      expect(res.body.auth.sub).toBe('sms|5f1');
    });

    it('prefers the Authorization header over the query parameter', async () => {
      await start();
      const res = await request(gateway.url).get('/things/1').query({ access_token: 'garbage' }).set(bearer(signToken(key1, claimsAt(clock))));
      expect(res.status).toBe(200);
    });

    it('accepts the bearer scheme in any case', async () => {
      await start();
      const res = await request(gateway.url).get('/things/1').set('Authorization', `bearer ${signToken(key1, claimsAt(clock))}`);
      expect(res.status).toBe(200);
    });

    it('accepts ES256 with the EC key and PS256 with the RSA key', async () => {
      await start();
      const es = await request(gateway.url).get('/things/1').set(bearer(signToken(ec1, claimsAt(clock), { algorithm: 'ES256' })));
      const ps = await request(gateway.url).get('/things/1').set(bearer(signToken(key1, claimsAt(clock), { algorithm: 'PS256' })));
      expect([es.status, ps.status]).toEqual([200, 200]);
    });

    it('accepts a token without kid that a JWKS key verifies', async () => {
      await start();
      const res = await request(gateway.url).get('/things/1').set(bearer(signToken(key1, claimsAt(clock), { kid: null })));
      expect(res.status).toBe(200);
    });

    it('accepts a token expired less than the 60 s leeway ago', async () => {
      await start();
      const res = await request(gateway.url).get('/things/1').set(bearer(signToken(key1, claimsAt(clock, { exp: clock.seconds - 59 }))));
      expect(res.status).toBe(200);
    });

    it('accepts nbf up to 60 s in the future', async () => {
      await start();
      const res = await request(gateway.url).get('/things/1').set(bearer(signToken(key1, claimsAt(clock, { nbf: clock.seconds + 59 }))));
      expect(res.status).toBe(200);
    });

    it('accepts an audience array that contains one configured audience', async () => {
      await start();
      const token = signToken(key1, claimsAt(clock, { aud: ['https://unrelated.example.com', AUDIENCE] }));
      expect((await request(gateway.url).get('/things/1').set(bearer(token))).status).toBe(200);
    });
  });

  describe('routing', () => {
    it('answers 404 code 5 for a path the document does not define', async () => {
      await start();
      const res = await request(gateway.url).get('/nowhere');
      expect(res.status).toBe(404);
      expect(res.body).toEqual({
        code: 5,
        message: 'Method does not exist.',
        details: [{ '@type': 'type.googleapis.com/google.rpc.DebugInfo', stackEntries: [], detail: 'service_control' }],
      });
      expect(res.headers['www-authenticate']).toBeUndefined();
    });

    it('answers 404 code 5 for a defined path with an undefined method', async () => {
      await start();
      const res = await request(gateway.url).delete('/things/1').set(bearer(signToken(key1, claimsAt(clock))));
      expect(res.status).toBe(404);
      expect(res.body).toEqual(methodNotFound());
    });

    it('matches path templates one segment per parameter and decodes them', async () => {
      await start();
      const token = signToken(key1, claimsAt(clock));
      const decoded = await request(gateway.url).get('/things/a%20b').set(bearer(token));
      expect(decoded.body.params).toEqual({ thingId: 'a b' });
      expect((await request(gateway.url).get('/things/1/extra').set(bearer(token))).status).toBe(404);
      expect((await request(gateway.url).get('/things/').set(bearer(token))).status).toBe(404);
    });

    it('serves operations under the basePath only', async () => {
      await start({ document: { ...testDocument(jwks.url), basePath: '/v1' } });
      const token = signToken(key1, claimsAt(clock));
      expect((await request(gateway.url).get('/v1/things/7').set(bearer(token))).body.params).toEqual({ thingId: '7' });
      expect((await request(gateway.url).get('/things/7').set(bearer(token))).status).toBe(404);
    });

    it('reads the document from YAML text', async () => {
      await start({ document: toYaml(testDocument(jwks.url)) });
      expect((await request(gateway.url).get('/things/1').set(bearer(signToken(key1, claimsAt(clock))))).status).toBe(200);
    });
  });

  describe('security per operation', () => {
    it('lets open operations through without a token', async () => {
      await start();
      const res = await request(gateway.url).get('/open');
      expect(res.status).toBe(200);
      expect(res.body.auth).toBeNull();
    });

    it('applies the document-level security to operations without their own', async () => {
      await start();
      const without = await request(gateway.url).post('/things').send({ name: 'x' });
      expect(without.status).toBe(401);
      expect(without.body).toEqual(jwtRejection(Reasons.MISSING_CREDENTIALS));
      const withToken = await request(gateway.url).post('/things').set(bearer(signToken(key1, claimsAt(clock)))).send({ name: 'x' });
      expect(withToken.status).toBe(200);
    });

    it('answers 403 code 7 when the token lacks a listed scope', async () => {
      await start();
      const res = await request(gateway.url).get('/scoped').set(bearer(signToken(key1, claimsAt(clock, { scope: 'read:things' }))));
      expect(res.status).toBe(403);
      expect(res.body).toEqual(permissionDenied('Insufficient scope: the operation requires read:things write:things'));
      expect(res.body.details[0].detail).toBe('auth');
    });

    it('accepts a token carrying every listed scope', async () => {
      await start();
      const res = await request(gateway.url).get('/scoped').set(bearer(signToken(key1, claimsAt(clock, { scope: 'openid write:things read:things' }))));
      expect(res.status).toBe(200);
    });

    it('reads the token only from x-google-jwt-locations when the scheme lists them', async () => {
      await start({ document: testDocument(jwks.url, { 'x-google-jwt-locations': [{ header: 'X-Api-Token', value_prefix: 'Token ' }, { query: 'jwt' }] }) });
      const token = signToken(key1, claimsAt(clock));
      expect((await request(gateway.url).get('/things/1').set('X-Api-Token', `Token ${token}`)).status).toBe(200);
      expect((await request(gateway.url).get('/things/1').query({ jwt: token })).status).toBe(200);
      const bearerOnly = await request(gateway.url).get('/things/1').set(bearer(token));
      expect(bearerOnly.status).toBe(401);
      expect(bearerOnly.body).toEqual(jwtRejection(Reasons.MISSING_CREDENTIALS));
    });

    it('accepts the extensions under any vendor word', async () => {
      const document = testDocument(jwks.url);
      const definitions = document.securityDefinitions as Record<string, Record<string, unknown>>;
      definitions.identity = {
        type: 'oauth2',
        flow: 'implicit',
        authorizationUrl: 'https://id.example.com/authorize',
        'x-acme-issuer': ISSUER,
        'x-acme-jwks_uri': jwks.url,
        'x-acme-audiences': AUDIENCE,
      };
      await start({ document });
      expect((await request(gateway.url).get('/things/1').set(bearer(signToken(key1, claimsAt(clock))))).status).toBe(200);
    });

    it('requires the document host as audience when the scheme lists no audiences', async () => {
      const document = testDocument(jwks.url);
      delete (document.securityDefinitions as Record<string, Record<string, unknown>>).identity?.['x-google-audiences'];
      await start({ document });
      const forHost = signToken(key1, claimsAt(clock, { aud: 'test-api.example.com' }));
      expect((await request(gateway.url).get('/things/1').set(bearer(forHost))).status).toBe(200);
      const res = await request(gateway.url).get('/things/1').set(bearer(signToken(key1, claimsAt(clock))));
      expect(res.body).toEqual(jwtRejection(Reasons.AUDIENCE_NOT_ALLOWED));
    });
  });

  describe('X-Endpoint-API-UserInfo', () => {
    it('replaces a client-sent copy with the verified payload', async () => {
      await start();
      const token = signToken(key1, claimsAt(clock));
      const forged = Buffer.from(JSON.stringify({ sub: 'admin' })).toString('base64url');
      const res = await request(gateway.url).get('/things/1').set(bearer(token)).set('X-Endpoint-API-UserInfo', forged);
      expect(res.body.userInfo).toBe(token.split('.')[1]);
      expect(res.body.rawUserInfoCount).toBe(0);
    });

    it('removes a client-sent copy on open operations', async () => {
      await start();
      const res = await request(gateway.url).get('/open').set('X-Endpoint-API-UserInfo', 'eyJzdWIiOiJhZG1pbiJ9');
      expect(res.body.userInfo).toBeNull();
      expect(res.body.rawUserInfoCount).toBe(0);
    });
  });

  describe('verified-token cache', () => {
    it('verifies a repeated token once', async () => {
      await start();
      const token = signToken(key1, claimsAt(clock));
      for (let call = 0; call < 3; call += 1) {
        expect((await request(gateway.url).get('/things/1').set(bearer(token))).status).toBe(200);
      }
      expect(await gateway.metricValue('gateway_jwt_signature_verifications_total')).toBe(1);
      expect(await gateway.metricValue('gateway_token_cache_total', { result: 'hit' })).toBe(2);
      expect(await gateway.metricValue('gateway_token_cache_total', { result: 'miss' })).toBe(1);
    });

    it('stops honouring a cached token once it expires', async () => {
      await start();
      const token = signToken(key1, claimsAt(clock, { exp: clock.seconds + 120 }));
      expect((await request(gateway.url).get('/things/1').set(bearer(token))).status).toBe(200);
      clock.advance(181_000);
      const res = await request(gateway.url).get('/things/1').set(bearer(token));
      expect(res.status).toBe(401);
      expect(res.body).toEqual(jwtRejection(Reasons.TIME_CONSTRAINT_FAILURE));
    });

    it('does not let a token cached for one scope requirement skip another', async () => {
      await start();
      const token = signToken(key1, claimsAt(clock, { scope: 'read:things' }));
      expect((await request(gateway.url).get('/things/1').set(bearer(token))).status).toBe(200);
      expect((await request(gateway.url).get('/scoped').set(bearer(token))).status).toBe(403);
    });
  });

  describe('JWKS', () => {
    it('picks up a rotated key at once through a refetch', async () => {
      await start();
      expect((await request(gateway.url).get('/things/1').set(bearer(signToken(key1, claimsAt(clock))))).status).toBe(200);
      const fetchesBefore = jwks.fetchCount;
      jwks.keys = [key1.jwk, key2.jwk];
      clock.advance(1_000);
      const res = await request(gateway.url).get('/things/1').set(bearer(signToken(key2, claimsAt(clock))));
      expect(res.status).toBe(200);
      expect(jwks.fetchCount).toBe(fetchesBefore + 1);
    });

    it('drops a key the JWKS no longer publishes once it refetches', async () => {
      await start();
      expect((await request(gateway.url).get('/things/1').set(bearer(signToken(key1, claimsAt(clock))))).status).toBe(200);
      jwks.keys = [key2.jwk];
      clock.advance(5 * 60_000 + 1);
      // Stale set: this call still verifies with it and starts the background refresh;
      // the unknown-kid call below waits for that refresh.
      await request(gateway.url).get('/things/1').set(bearer(signToken(key1, claimsAt(clock, { sub: 'a' }))));
      await request(gateway.url).get('/things/1').set(bearer(signToken(key2, claimsAt(clock))));
      const res = await request(gateway.url).get('/things/1').set(bearer(signToken(key1, claimsAt(clock, { sub: 'b' }))));
      expect(res.body).toEqual(jwtRejection(Reasons.keyNotFound('key-1')));
    });

    it('refuses tokens signed by a key it has not seen, refetching the JWKS at most once a second', async () => {
      await start();
      expect((await request(gateway.url).get('/things/1').set(bearer(signToken(key1, claimsAt(clock))))).status).toBe(200);
      const unseen = rsaKey('unseen');
      const fetchesBefore = jwks.fetchCount;
      // Under a known kid: the signature fails, and no fetch is made for it.
      const underKnownKid = await request(gateway.url).get('/things/1').set(bearer(signToken(unseen, claimsAt(clock), { kid: 'key-1' })));
      expect(underKnownKid.body).toEqual(jwtRejection(Reasons.SIGNATURE_FAILED));
      expect(jwks.fetchCount).toBe(fetchesBefore);
      // Under its own kid: one refetch (the JWKS does not have it either), then none within the second.
      clock.advance(1_000);
      for (let attempt = 0; attempt < 5; attempt += 1) {
        const res = await request(gateway.url).get('/things/1').set(bearer(signToken(unseen, claimsAt(clock, { sub: `u${attempt}` }))));
        expect(res.body).toEqual(jwtRejection(Reasons.keyNotFound('unseen')));
      }
      expect(jwks.fetchCount).toBe(fetchesBefore + 1);
      clock.advance(1_000);
      await request(gateway.url).get('/things/1').set(bearer(signToken(unseen, claimsAt(clock))));
      expect(jwks.fetchCount).toBe(fetchesBefore + 2);
    });

    it('bounds an unknown-kid storm to four JWKS fetches a minute', async () => {
      await start();
      expect((await request(gateway.url).get('/things/1').set(bearer(signToken(key1, claimsAt(clock))))).status).toBe(200);
      const storm = async () =>
        Promise.all(
          Array.from({ length: 40 }, (_, index) =>
            request(gateway.url).get('/things/1').set(bearer(signToken(key2, claimsAt(clock), { kid: `storm-${index}` }))),
          ),
        );
      const baseline = jwks.fetchCount; // the start-up fetch counts towards the first minute

      const waves = [];
      for (let wave = 0; wave < 6; wave += 1) {
        clock.advance(2_000);
        waves.push(...(await storm())); // 40 parallel unknown kids share at most one fetch
      }
      expect(jwks.fetchCount - baseline).toBe(3);
      for (const res of waves) {
        expect(res.status).toBe(401);
        expect(res.body.message).toMatch(/^JWT validation failed: Cannot find matching key in key set for kid=storm-\d+$/);
      }

      // A real rotation still gets through once the minute has passed.
      jwks.keys = [key1.jwk, key2.jwk];
      clock.advance(60_000);
      expect((await request(gateway.url).get('/things/1').set(bearer(signToken(key2, claimsAt(clock))))).status).toBe(200);
      expect(jwks.fetchCount - baseline).toBe(4);
    });

    it('keeps verifying tokens signed by cached keys while the JWKS is down', async () => {
      await start();
      expect((await request(gateway.url).get('/things/1').set(bearer(signToken(key1, claimsAt(clock))))).status).toBe(200);
      jwks.mode = 'reset';
      clock.advance(10 * 60_000); // well past the 5-minute cache age
      const res = await request(gateway.url).get('/things/1').set(bearer(signToken(key1, claimsAt(clock, { sub: 'other' }))));
      expect(res.status).toBe(200);
      // An unknown kid waits for the refresh the call above started; the JWKS is unreachable.
      const unknown = await request(gateway.url).get('/things/1').set(bearer(signToken(key2, claimsAt(clock))));
      expect(unknown.body).toEqual(jwtRejection(Reasons.UNABLE_TO_FETCH_KEY));
      expect(await gateway.metricValue('gateway_jwks_fetch_total', { outcome: 'failure' })).toBeGreaterThanOrEqual(1);
      expect((await request(gateway.url).get('/readyz')).status).toBe(200);
      expect((await request(gateway.url).get('/things/1').set(bearer(signToken(key1, claimsAt(clock, { sub: 'third' }))))).status).toBe(200);
    });

    it('starts while the JWKS is unreachable, reports it in readiness and recovers once it answers', async () => {
      jwks.mode = 'reset';
      await start();
      const token = signToken(key1, claimsAt(clock));
      const rejected = await request(gateway.url).get('/things/1').set(bearer(token));
      expect(rejected.status).toBe(401);
      expect(rejected.body).toEqual(jwtRejection(Reasons.UNABLE_TO_FETCH_KEY));
      const notReady = await request(gateway.url).get('/readyz');
      expect(notReady.status).toBe(503);
      expect(notReady.body.checks.jwks).toContain(`JWKS ${jwks.url}: unreachable`);

      jwks.mode = 'up';
      clock.advance(16_000);
      expect((await request(gateway.url).get('/things/1').set(bearer(token))).status).toBe(200);
      expect((await request(gateway.url).get('/readyz')).status).toBe(200);
    });

    it('treats a JWKS answering 503 as unreachable', async () => {
      jwks.mode = 'error';
      await start();
      const res = await request(gateway.url).get('/things/1').set(bearer(signToken(key1, claimsAt(clock))));
      expect(res.body).toEqual(jwtRejection(Reasons.UNABLE_TO_FETCH_KEY));
      expect((await request(gateway.url).get('/readyz')).body.checks.jwks).toContain('HTTP 503');
    });
  });

  describe('metrics and logs', () => {
    it('counts outcomes in gateway_auth_total and fetches in gateway_jwks_fetch_total', async () => {
      await start();
      await request(gateway.url).get('/things/1').set(bearer(signToken(key1, claimsAt(clock))));
      await request(gateway.url).get('/things/1');
      await request(gateway.url).get('/things/1').set(bearer(signToken(key1, claimsAt(clock, { iss: 'https://evil.example.com/' }))));
      const text = (await request(gateway.url).get('/metrics')).text;
      expect(text).toMatch(/gateway_auth_total\{outcome="allowed",service="gateway-test"\} 1/);
      expect(text).toMatch(/gateway_auth_total\{outcome="missing_credentials",service="gateway-test"\} 1/);
      expect(text).toMatch(/gateway_auth_total\{outcome="issuer_not_allowed",service="gateway-test"\} 1/);
      expect(await gateway.metricValue('gateway_jwks_fetch_total', { outcome: 'success', jwks_uri: jwks.url })).toBe(1);
    });

    it('never writes a token to the log, from the header or the query string', async () => {
      await start();
      const inHeader = signToken(key1, claimsAt(clock, { sub: 'header' }));
      const inQuery = signToken(key1, claimsAt(clock, { sub: 'query' }));
      const forged = signToken(key2, claimsAt(clock), { kid: 'key-1' });
      await request(gateway.url).get('/things/1').set(bearer(inHeader));
      await request(gateway.url).get('/things/1').query({ access_token: inQuery });
      await request(gateway.url).get('/things/1').set(bearer(forged));
      const log = gateway.logLines.join('\n');
      expect(log).toContain('gateway rejected the call');
      for (const token of [inHeader, inQuery, forged]) {
        for (const segment of token.split('.').slice(1)) expect(log).not.toContain(segment);
      }
    });
  });

  describe('configuration errors', () => {
    const logger = createLogger({ name: 'test', level: 'silent' });
    const build = (document: unknown, handlers = ECHO_HANDLERS) =>
      createApiGateway({ document: document as Record<string, unknown>, handlers, logger, metrics: new Registry() });

    it('refuses a document with an operation that has no handler', () => {
      const { getThing: _getThing, ...handlers } = ECHO_HANDLERS;
      expect(() => build(testDocument(jwks.url), handlers)).toThrow(new OpenApiDocumentError('no handler for operationId "getThing"'));
    });

    it('refuses a security requirement naming an undefined scheme', () => {
      const document = { ...testDocument(jwks.url), security: [{ nowhere: [] }] };
      expect(() => build(document)).toThrow(/names security scheme "nowhere"/);
    });

    it('refuses a scheme without the issuer extensions', () => {
      const document = testDocument(jwks.url);
      delete (document.securityDefinitions as Record<string, Record<string, unknown>>).identity?.['x-google-issuer'];
      expect(() => build(document)).toThrow(/securityDefinitions\.identity/);
    });

    it('refuses a document that is not OpenAPI 2.0', () => {
      expect(() => build({ openapi: '3.0.0', paths: {} })).toThrow(/OpenAPI document: swagger/);
      expect(() => build('swagger: [unclosed')).toThrow(/not valid YAML or JSON/);
    });
  });
});
