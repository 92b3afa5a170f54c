/**
 * Table-driven corpus of hostile and broken tokens. Every row is sent to a protected
 * operation of a real gateway (real HTTP, real JWKS server, real signatures) and must get
 * 401 with the spec 2.8 body and its precise reason; none may answer 5xx, and no row may
 * make the gateway fetch anything from an attacker-named URL.
 */
import { jwtRejection, JwtRejectionReasons as Reasons } from '@smsauth/contracts';
import request from 'supertest';
import { TestClock } from './support/clock';
import { AUDIENCE, ISSUER, startGateway, type RunningGateway } from './support/harness';
import { ecKey, rsaKey, type TestKey } from './support/keys';
import { JwksServer, mapSegments, withBase64Padding, withNonCanonicalTail, withStandardBase64 } from '@smsauth/test-support';
import { b64url, craftToken, hmacSigner, rsaSigner, signToken, withPayload } from './support/tokens';

interface CorpusContext {
  clock: TestClock;
  key: TestKey;
  ec: TestKey;
  foreign: TestKey;
  attacker: JwksServer;
  claims(overrides?: Record<string, unknown>): Record<string, unknown>;
}

interface AttackCase {
  name: string;
  /** The token to send; undefined sends none. */
  token(ctx: CorpusContext): string | undefined;
  reason: string;
  /** Where the token goes (default: Authorization: Bearer). */
  via?: 'header' | 'query' | 'basic';
}

const corpus: AttackCase[] = [
  { name: 'no token at all', token: () => undefined, reason: Reasons.MISSING_CREDENTIALS },
  { name: 'an Authorization header of another scheme (Basic)', token: () => 'dXNlcjpwYXNz', via: 'basic', reason: Reasons.MISSING_CREDENTIALS },
  {
    name: 'alg "none" with an empty signature',
    token: (c) => craftToken({ alg: 'none', typ: 'JWT', kid: c.key.kid }, c.claims()),
    reason: Reasons.BAD_FORMAT,
  },
  {
    name: 'alg "None" in another case',
    token: (c) => craftToken({ alg: 'None', typ: 'JWT', kid: c.key.kid }, c.claims()),
    reason: Reasons.BAD_FORMAT,
  },
  {
    name: 'HS256 signed with the RSA public key PEM as the HMAC secret (algorithm confusion)',
    token: (c) =>
      craftToken({ alg: 'HS256', typ: 'JWT', kid: c.key.kid }, c.claims(), hmacSigner(c.key.publicKey.export({ type: 'spki', format: 'pem' }))),
    reason: Reasons.BAD_FORMAT,
  },
  {
    name: 'HS256 signed with a random secret',
    token: (c) => craftToken({ alg: 'HS256', typ: 'JWT' }, c.claims(), hmacSigner('not-the-secret-you-are-looking-for')),
    reason: Reasons.BAD_FORMAT,
  },
  { name: 'a wrong issuer', token: (c) => signToken(c.key, c.claims({ iss: 'https://evil.example.com/' })), reason: Reasons.ISSUER_NOT_ALLOWED },
  {
    name: 'the issuer without its trailing slash',
    token: (c) => signToken(c.key, c.claims({ iss: ISSUER.replace(/\/$/, '') })),
    reason: Reasons.ISSUER_NOT_ALLOWED,
  },
  { name: 'no issuer', token: (c) => signToken(c.key, c.claims({ iss: undefined })), reason: Reasons.ISSUER_NOT_ALLOWED },
  { name: 'a wrong audience', token: (c) => signToken(c.key, c.claims({ aud: 'https://evil.example.com' })), reason: Reasons.AUDIENCE_NOT_ALLOWED },
  {
    name: 'an audience array without ours',
    token: (c) => signToken(c.key, c.claims({ aud: ['https://a.example.com', 'https://b.example.com'] })),
    reason: Reasons.AUDIENCE_NOT_ALLOWED,
  },
  { name: 'a missing audience', token: (c) => signToken(c.key, c.claims({ aud: undefined })), reason: Reasons.AUDIENCE_NOT_ALLOWED },
  {
    name: 'an audience that only contains ours as a substring',
    token: (c) => signToken(c.key, c.claims({ aud: `${AUDIENCE}.evil.example.com` })),
    reason: Reasons.AUDIENCE_NOT_ALLOWED,
  },
  {
    name: 'a token expired beyond the 60 s leeway',
    token: (c) => signToken(c.key, c.claims({ exp: c.clock.seconds - 61 })),
    reason: Reasons.TIME_CONSTRAINT_FAILURE,
  },
  {
    name: 'nbf in the future beyond the 60 s leeway',
    token: (c) => signToken(c.key, c.claims({ nbf: c.clock.seconds + 61 })),
    reason: Reasons.TIME_CONSTRAINT_FAILURE,
  },
  { name: 'a token without exp', token: (c) => signToken(c.key, c.claims({ exp: undefined })), reason: Reasons.TIME_CONSTRAINT_FAILURE },
  { name: 'exp as a string', token: (c) => craftToken({ alg: 'RS256', kid: c.key.kid }, c.claims({ exp: String(c.clock.seconds + 600) }), rsaSigner(c.key.privateKey)), reason: Reasons.BAD_FORMAT },
  {
    name: 'a tampered payload (sub changed after signing)',
    token: (c) => withPayload(signToken(c.key, c.claims()), c.claims({ sub: 'admin' })),
    reason: Reasons.SIGNATURE_FAILED,
  },
  {
    name: 'a stripped signature',
    token: (c) => `${signToken(c.key, c.claims()).split('.').slice(0, 2).join('.')}.`,
    reason: Reasons.SIGNATURE_FAILED,
  },
  { name: 'an unknown kid', token: (c) => signToken(c.foreign, c.claims(), { kid: 'no-such-key' }), reason: Reasons.keyNotFound('no-such-key') },
  {
    name: 'a foreign key signing under a known kid',
    token: (c) => signToken(c.foreign, c.claims(), { kid: c.key.kid }),
    reason: Reasons.SIGNATURE_FAILED,
  },
  {
    name: 'a jku header pointing at the attacker JWKS (attacker kid)',
    token: (c) => signToken(c.foreign, c.claims(), { kid: 'attacker-1', header: { jku: c.attacker.url } }),
    reason: Reasons.keyNotFound('attacker-1'),
  },
  {
    name: 'a jku header pointing at the attacker JWKS (known kid)',
    token: (c) => signToken(c.foreign, c.claims(), { header: { jku: c.attacker.url }, kid: c.key.kid }),
    reason: Reasons.SIGNATURE_FAILED,
  },
  {
    name: 'an x5u header pointing at the attacker',
    token: (c) => signToken(c.foreign, c.claims(), { kid: c.key.kid, header: { x5u: `${c.attacker.origin}/cert.pem` } }),
    reason: Reasons.SIGNATURE_FAILED,
  },
  {
    name: 'an embedded jwk header carrying the attacker key',
    token: (c) => signToken(c.foreign, c.claims(), { kid: c.key.kid, header: { jwk: c.foreign.jwk } }),
    reason: Reasons.SIGNATURE_FAILED,
  },
  {
    name: 'an embedded jwk header and no kid',
    token: (c) => signToken(c.foreign, c.claims(), { kid: null, header: { jwk: c.foreign.jwk } }),
    reason: Reasons.SIGNATURE_FAILED,
  },
  {
    name: 'ES256 in the header for an RSA key',
    token: (c) => craftToken({ alg: 'ES256', kid: c.key.kid }, c.claims(), rsaSigner(c.key.privateKey)),
    reason: Reasons.SIGNATURE_FAILED,
  },
  {
    name: 'RS256 in the header for the EC key',
    token: (c) => craftToken({ alg: 'RS256', kid: c.ec.kid }, c.claims(), rsaSigner(c.foreign.privateKey)),
    reason: Reasons.SIGNATURE_FAILED,
  },
  { name: 'garbage', token: () => 'this is not a jwt', reason: Reasons.BAD_FORMAT },
  { name: 'two segments only', token: (c) => signToken(c.key, c.claims()).split('.').slice(0, 2).join('.'), reason: Reasons.BAD_FORMAT },
  { name: 'four segments', token: (c) => `${signToken(c.key, c.claims())}.extra`, reason: Reasons.BAD_FORMAT },
  { name: 'a header that is not JSON', token: () => `${b64url('{not json')}.${b64url({})}.sig`, reason: Reasons.BAD_FORMAT },
  { name: 'a payload that is a JSON array', token: (c) => craftToken({ alg: 'RS256', kid: c.key.kid }, '[1,2]', rsaSigner(c.key.privateKey)), reason: Reasons.BAD_FORMAT },
  { name: 'a numeric kid', token: (c) => craftToken({ alg: 'RS256', kid: 7 }, c.claims(), rsaSigner(c.key.privateKey)), reason: Reasons.BAD_FORMAT },
  { name: 'a 20 KB token', token: (c) => signToken(c.key, c.claims({ padding: 'x'.repeat(20 * 1024) })), reason: Reasons.BAD_FORMAT },
  {
    name: 'a wrong issuer sent in the access_token query parameter',
    token: (c) => signToken(c.key, c.claims({ iss: 'https://evil.example.com/' })),
    via: 'query',
    reason: Reasons.ISSUER_NOT_ALLOWED,
  },
  { name: 'garbage in the access_token query parameter', token: () => 'a.b', via: 'query', reason: Reasons.BAD_FORMAT },
  // RFC 7515 §4.1.11: the gateway implements no JWS extension, so any crit is refused.
  { name: 'a crit header naming an extension', token: (c) => signToken(c.key, c.claims(), { header: { crit: ['exp'], exp: 1 } }), reason: Reasons.BAD_FORMAT },
  { name: 'an empty crit list', token: (c) => signToken(c.key, c.claims(), { header: { crit: [] } }), reason: Reasons.BAD_FORMAT },
  { name: 'typ "secevent+jwt" (not an access token)', token: (c) => signToken(c.key, c.claims(), { header: { typ: 'secevent+jwt' } }), reason: Reasons.BAD_FORMAT },
  { name: 'a numeric typ', token: (c) => signToken(c.key, c.claims(), { header: { typ: 3 } }), reason: Reasons.BAD_FORMAT },
  {
    name: 'two alg members in the header',
    token: (c) => craftToken(`{"alg":"HS256","alg":"RS256","kid":"${c.key.kid}"}`, c.claims(), rsaSigner(c.key.privateKey)),
    reason: Reasons.BAD_FORMAT,
  },
  {
    name: 'two kid members in the header, one spelt with an escape',
    token: (c) => craftToken(`{"alg":"RS256","kid":"other","\\u006bid":"${c.key.kid}"}`, c.claims(), rsaSigner(c.key.privateKey)),
    reason: Reasons.BAD_FORMAT,
  },
  {
    name: 'two sub claims',
    token: (c) => craftToken({ alg: 'RS256', kid: c.key.kid }, JSON.stringify(c.claims()).replace(/}$/, ',"sub":"admin"}'), rsaSigner(c.key.privateKey)),
    reason: Reasons.BAD_FORMAT,
  },
  { name: 'exp 1e20 (no Date can hold it)', token: (c) => signToken(c.key, c.claims({ exp: 1e20 })), reason: Reasons.BAD_FORMAT },
  { name: 'exp 1e308', token: (c) => signToken(c.key, c.claims({ exp: 1e308 })), reason: Reasons.BAD_FORMAT },
  { name: 'a negative iat', token: (c) => signToken(c.key, c.claims({ iat: -5 })), reason: Reasons.BAD_FORMAT },
  { name: 'iat beyond the 60 s leeway in the future', token: (c) => signToken(c.key, c.claims({ iat: c.clock.seconds + 61 })), reason: Reasons.TIME_CONSTRAINT_FAILURE },
  { name: 'segments with = padding', token: (c) => withBase64Padding(signToken(c.key, c.claims())), reason: Reasons.BAD_FORMAT },
  { name: 'segments in the standard base64 alphabet', token: (c) => withStandardBase64(signToken(c.key, c.claims({ note: '?????>>>>>' }))), reason: Reasons.BAD_FORMAT },
  {
    name: 'a signature with a pad bit set (non-canonical base64url)',
    token: (c) => mapSegments(signToken(c.key, c.claims()), (segment, index) => (index === 2 ? withNonCanonicalTail(segment) : segment)),
    reason: Reasons.BAD_FORMAT,
  },
];

/** Unusual but legitimate tokens the structural rules must not catch. */
const accepted: { name: string; token(ctx: CorpusContext): string }[] = [
  { name: 'typ "at+jwt" (RFC 9068 access token)', token: (c) => signToken(c.key, c.claims(), { header: { typ: 'at+jwt' } }) },
  { name: 'typ "application/at+jwt"', token: (c) => signToken(c.key, c.claims(), { header: { typ: 'application/at+jwt' } }) },
  { name: 'no typ', token: (c) => craftToken({ alg: 'RS256', kid: c.key.kid }, c.claims(), rsaSigner(c.key.privateKey)) },
  { name: 'a float iat', token: (c) => signToken(c.key, c.claims({ iat: c.clock.seconds - 0.25 })) },
  { name: 'iat 30 s in the future (within the leeway)', token: (c) => signToken(c.key, c.claims({ iat: c.clock.seconds + 30 })) },
  { name: 'exp in the year 9999', token: (c) => signToken(c.key, c.claims({ exp: 253402300799 })) },
  { name: 'the same member name in two different objects', token: (c) => signToken(c.key, c.claims({ a: { sub: 1 }, b: [{ sub: 2 }, { sub: 3 }] })) },
];

describe('JWT attack corpus', () => {
  let jwks: JwksServer;
  let attacker: JwksServer;
  let gateway: RunningGateway;
  let ctx: CorpusContext;

  beforeAll(async () => {
    const key = rsaKey('key-1');
    const ec = ecKey('ec-1');
    const foreign = rsaKey('foreign');
    jwks = await JwksServer.start([key.jwk, ec.jwk]);
    attacker = await JwksServer.start([foreign.jwk, { ...foreign.jwk, kid: 'attacker-1' }]);
    const clock = new TestClock();
    gateway = await startGateway({ jwksUri: jwks.url, clock });
    ctx = {
      clock,
      key,
      ec,
      foreign,
      attacker,
      claims: (overrides = {}) => {
        const claims: Record<string, unknown> = { iss: ISSUER, aud: AUDIENCE, sub: 'sms|5f1', iat: clock.seconds, exp: clock.seconds + 3600, ...overrides };
        for (const [name, value] of Object.entries(claims)) if (value === undefined) delete claims[name];
        return claims;
      },
    };
    // The gateway's own keys load fine: a good token passes before the corpus runs.
    const good = signToken(key, ctx.claims());
    expect((await request(gateway.url).get('/things/1').set('Authorization', `Bearer ${good}`)).status).toBe(200);
  });

  afterAll(async () => {
    await gateway.close();
    await jwks.close();
    await attacker.close();
  });

  it.each(corpus)('rejects $name', async ({ token, reason, via }) => {
    const sent = token(ctx);
    let call = request(gateway.url).get('/things/1');
    if (sent !== undefined && via === 'query') call = request(gateway.url).get('/things/1').query({ access_token: sent });
    else if (sent !== undefined && via === 'basic') call = call.set('Authorization', `Basic ${sent}`);
    else if (sent !== undefined) call = call.set('Authorization', `Bearer ${sent}`);
    const res = await call;

    expect(res.status).toBe(401);
    expect(res.body).toEqual(jwtRejection(reason));
    const tokenSent = sent !== undefined && via !== 'basic';
    expect(res.headers['www-authenticate']).toBe(tokenSent ? 'Bearer, error="invalid_token"' : 'Bearer');
    expect(attacker.fetchCount).toBe(0);
  });

  it.each(accepted)('accepts $name', async ({ token }) => {
    const res = await request(gateway.url).get('/things/1').set('Authorization', `Bearer ${token(ctx)}`);
    expect(res.status).toBe(200);
  });

  it('never fetched from any URL a token named', () => {
    expect(attacker.requests).toEqual([]);
  });

  it('never put a rejected token into a log line', () => {
    const log = gateway.logLines.join('\n');
    for (const row of corpus) {
      const sent = row.token(ctx);
      if (sent && sent.length > 20) expect(log).not.toContain(sent.split('.')[2] || sent);
    }
  });
});
