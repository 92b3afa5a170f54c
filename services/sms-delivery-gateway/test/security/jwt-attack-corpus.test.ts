/**
 * JWT attack corpus against the SMS delivery gateway's bearer check on POST /sms (HS256
 * with GATEWAY_AUTH_SECRET, aud and sub configured). Every row states the exact answer:
 * 200 and the message delivered, or 401 `invalid_token` with its precise description, the
 * RFC 6750 challenge, and nothing delivered. No row may answer 5xx.
 */

import { OAuthErrorBodySchema } from '@smsauth/contracts';
import {
  b64url,
  craftToken,
  hmacSigner,
  mapSegments,
  rsaSigner,
  withBase64Padding,
  withNonCanonicalTail,
  withPayload,
  withStandardBase64,
  detachedKeyPair,
} from '@smsauth/test-support';
import request from 'supertest';
import { buildGateway, deliveryBody, nowSeconds, type TestGateway } from '../support/gateway';
import { AUDIENCE, SECRET, SUBJECT } from '../support/tokens';

const AUTH_ENV = { GATEWAY_AUTH_SECRET: SECRET, GATEWAY_AUTH_AUDIENCE: AUDIENCE, GATEWAY_AUTH_SUBJECT: SUBJECT };
const NOW_S = nowSeconds();
const AIRPORT_AUDIENCE = 'https://airport-api.example.com';
const IDENTITY_ISSUER = 'https://id.example.com/';
/** The identity service's RS256 signing key (for its access and ID tokens). */
const identityKey = detachedKeyPair('rsa', { modulusLength: 2048 }).privateKey;

type Expected = { status: 200 } | { status: 401; description: string; challenge: string };

interface Row {
  /** The attack family the row belongs to; the corpus must span at least 25. */
  kind: string;
  name: string;
  /** The Authorization header value; undefined sends none. */
  authorization: () => string | undefined;
}

const ok: Expected = { status: 200 };
const INVALID = 'Bearer error="invalid_token"';
const rejected = (description: string, challenge = INVALID): Expected => ({ status: 401, description, challenge });

const D = {
  required: 'Authorization: Bearer <token> is required',
  empty: 'The bearer token is empty',
  scheme: 'The Authorization header must use the Bearer scheme',
  malformed: 'The token is malformed',
  hs256: 'The token must be signed with HS256',
  signature: 'The token signature is invalid',
  noSignature: 'The token signature is missing',
  audience: 'The token audience (aud) is not allowed',
  subject: 'The token subject (sub) is not allowed',
  expired: 'The token has expired (exp)',
  notBefore: 'The token is not valid yet (nbf)',
  noIat: 'The token has no iat claim',
  futureIat: 'The token was issued in the future (iat)',
  tooOld: 'The token is older than 10 minutes (iat)',
  typ: 'The token type (typ) must be JWT',
  crit: 'The token header lists critical extensions (crit) this gateway does not support',
  duplicate: 'The token repeats a JSON member name',
  kidType: 'The token header kid must be a string',
  notNumericDate: (claim: string) => `The token claim ${claim} is not a valid NumericDate`,
  tooLong: 'The token is longer than 8192 characters',
} as const;

/** What the identity service signs (spec: sub, aud, iat, exp in 5 minutes); undefined drops a claim. */
function claims(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const all: Record<string, unknown> = { sub: SUBJECT, aud: AUDIENCE, iat: NOW_S, exp: NOW_S + 300, ...overrides };
  for (const [name, value] of Object.entries(all)) if (value === undefined) delete all[name];
  return all;
}

/** HS256 with the shared secret; header {alg, typ: JWT} plus `header` (or raw JSON text). */
function hs(header: Record<string, unknown> | string = {}, body: Record<string, unknown> | string = claims(), secret: string = SECRET): string {
  const fullHeader =
    typeof header === 'string' ? header : Object.fromEntries(Object.entries({ alg: 'HS256', typ: 'JWT', ...header }).filter(([, v]) => v !== undefined));
  return craftToken(fullHeader, body, hmacSigner(secret));
}

const claimsText = (extra: string) => JSON.stringify(claims()).replace(/}$/, `,${extra}}`);
const bearer = (token: string) => () => `Bearer ${token}`;
const bearerOf = (make: () => string) => () => `Bearer ${make()}`;

const corpus: (Row & { expected: Expected })[] = [
  { kind: 'baseline', name: 'the token the identity service sends', authorization: bearerOf(() => hs()), expected: ok },
  { kind: 'baseline', name: 'the bearer scheme in lower case', authorization: () => `bearer ${hs()}`, expected: ok },

  { kind: 'missing token', name: 'no Authorization header', authorization: () => undefined, expected: rejected(D.required, 'Bearer') },
  { kind: 'missing token', name: 'an empty bearer token', authorization: () => 'Bearer ', expected: rejected(D.empty, 'Bearer') },
  { kind: 'missing token', name: 'a Basic Authorization header', authorization: () => 'Basic dXNlcjpwYXNz', expected: rejected(D.scheme, 'Bearer') },

  { kind: 'alg none', name: 'alg "none" with an empty signature', authorization: bearerOf(() => craftToken({ alg: 'none', typ: 'JWT' }, claims())), expected: rejected(D.hs256) },
  { kind: 'alg none', name: 'alg "None" in another case', authorization: bearerOf(() => craftToken({ alg: 'None' }, claims())), expected: rejected(D.hs256) },
  { kind: 'alg none', name: 'alg "none" carrying a real HS256 signature', authorization: bearerOf(() => hs({ alg: 'none' })), expected: rejected(D.hs256) },
  { kind: 'alg confusion', name: 'an RS256 token (any key)', authorization: bearerOf(() => craftToken({ alg: 'RS256', typ: 'JWT' }, claims(), rsaSigner(identityKey))), expected: rejected(D.hs256) },
  { kind: 'alg confusion', name: 'HS512 signed with the shared secret', authorization: bearerOf(() => craftToken({ alg: 'HS512' }, claims(), hmacSigner(SECRET))), expected: rejected(D.hs256) },
  { kind: 'alg confusion', name: 'alg "hs256" in lower case', authorization: bearerOf(() => hs({ alg: 'hs256' })), expected: rejected(D.hs256) },
  { kind: 'alg confusion', name: 'alg missing', authorization: bearerOf(() => hs({ alg: undefined })), expected: rejected(D.hs256) },
  { kind: 'wrong secret', name: 'HS256 signed with another secret', authorization: bearerOf(() => hs({}, claims(), 'another-secret-that-is-long-enough-0123456')), expected: rejected(D.signature) },
  { kind: 'wrong secret', name: 'HS256 signed with an empty secret', authorization: bearerOf(() => hs({}, claims(), '')), expected: rejected(D.signature) },

  { kind: 'wrong audience', name: 'another audience', authorization: bearerOf(() => hs({}, claims({ aud: 'urn:someone-else' }))), expected: rejected(D.audience) },
  { kind: 'wrong audience', name: 'no audience', authorization: bearerOf(() => hs({}, claims({ aud: undefined }))), expected: rejected(D.audience) },
  { kind: 'wrong audience', name: 'an audience array without ours', authorization: bearerOf(() => hs({}, claims({ aud: ['urn:a', 'urn:b'] }))), expected: rejected(D.audience) },
  { kind: 'wrong audience', name: 'an audience array with ours accepted', authorization: bearerOf(() => hs({}, claims({ aud: ['urn:a', AUDIENCE] }))), expected: ok },
  { kind: 'wrong subject', name: 'another subject', authorization: bearerOf(() => hs({}, claims({ sub: 'someone-else' }))), expected: rejected(D.subject) },
  { kind: 'wrong subject', name: 'no subject', authorization: bearerOf(() => hs({}, claims({ sub: undefined }))), expected: rejected(D.subject) },

  {
    kind: 'cross-audience reuse',
    name: "an airport API access token (RS256, at+jwt) from the identity service",
    authorization: bearerOf(() =>
      craftToken({ alg: 'RS256', typ: 'at+jwt', kid: 'identity-key-1' }, { iss: IDENTITY_ISSUER, aud: AIRPORT_AUDIENCE, sub: 'sms|5f1', iat: NOW_S, exp: NOW_S + 3600 }, rsaSigner(identityKey)),
    ),
    expected: rejected(D.hs256),
  },
  {
    kind: 'cross-audience reuse',
    name: 'an ID token (RS256, aud is the client id)',
    authorization: bearerOf(() =>
      craftToken({ alg: 'RS256', typ: 'JWT', kid: 'identity-key-1' }, { iss: IDENTITY_ISSUER, aud: 'demo-client-id', sub: 'sms|5f1', phone_number: '+14155550123', iat: NOW_S, exp: NOW_S + 36000 }, rsaSigner(identityKey)),
    ),
    expected: rejected(D.hs256),
  },
  { kind: 'cross-audience reuse', name: 'an HS256 token with the shared secret minted for the airport API', authorization: bearerOf(() => hs({}, claims({ aud: AIRPORT_AUDIENCE }))), expected: rejected(D.audience) },

  { kind: 'expired', name: 'exp 61 s ago (beyond the 60 s leeway)', authorization: bearerOf(() => hs({}, claims({ iat: NOW_S - 361, exp: NOW_S - 61 }))), expected: rejected(D.expired) },
  { kind: 'expired', name: 'exp 30 s ago (within the leeway) accepted', authorization: bearerOf(() => hs({}, claims({ iat: NOW_S - 330, exp: NOW_S - 30 }))), expected: ok },
  { kind: 'nbf', name: 'nbf 61 s ahead', authorization: bearerOf(() => hs({}, claims({ nbf: NOW_S + 61 }))), expected: rejected(D.notBefore) },
  { kind: 'nbf', name: 'nbf 30 s ahead (within the leeway) accepted', authorization: bearerOf(() => hs({}, claims({ nbf: NOW_S + 30 }))), expected: ok },
  { kind: 'missing exp', name: 'no exp but a fresh iat accepted (age is bounded by iat)', authorization: bearerOf(() => hs({}, claims({ exp: undefined }))), expected: ok },
  { kind: 'time claim type', name: 'exp as a string', authorization: bearerOf(() => hs({}, claims({ exp: String(NOW_S + 300) }))), expected: rejected(D.notNumericDate('exp')) },
  { kind: 'time claim type', name: 'iat as a string', authorization: bearerOf(() => hs({}, claims({ iat: String(NOW_S) }))), expected: rejected(D.notNumericDate('iat')) },
  { kind: 'time claim type', name: 'nbf null', authorization: bearerOf(() => hs({}, claims({ nbf: null }))), expected: rejected(D.notNumericDate('nbf')) },

  // Decision: beyond what a Date can hold (8.64e12 s) a NumericDate names no instant -> malformed;
  // a far but real exp is harmless here because iat bounds a delivery token's age to 10 minutes.
  { kind: 'huge exp', name: 'exp 1e20', authorization: bearerOf(() => hs({}, claims({ exp: 1e20 }))), expected: rejected(D.notNumericDate('exp')) },
  { kind: 'huge exp', name: 'exp Number.MAX_SAFE_INTEGER + 1', authorization: bearerOf(() => hs({}, claims({ exp: Number.MAX_SAFE_INTEGER + 1 }))), expected: rejected(D.notNumericDate('exp')) },
  { kind: 'huge exp', name: 'exp 1e308', authorization: bearerOf(() => hs({}, claims({ exp: 1e308 }))), expected: rejected(D.notNumericDate('exp')) },
  { kind: 'huge exp', name: 'exp 1e309 (JSON overflow to Infinity)', authorization: bearerOf(() => hs({}, JSON.stringify(claims()).replace(/"exp":\d+/, '"exp":1e309'))), expected: rejected(D.notNumericDate('exp')) },
  { kind: 'huge exp', name: 'exp in the year 9999 accepted', authorization: bearerOf(() => hs({}, claims({ exp: 253402300799 }))), expected: ok },
  { kind: 'huge exp', name: 'exp in the year 9999 does not rescue a stale iat', authorization: bearerOf(() => hs({}, claims({ iat: NOW_S - 601, exp: 253402300799 }))), expected: rejected(D.tooOld) },

  { kind: 'iat', name: 'no iat', authorization: bearerOf(() => hs({}, claims({ iat: undefined }))), expected: rejected(D.noIat) },
  { kind: 'iat', name: 'iat more than 10 minutes old', authorization: bearerOf(() => hs({}, claims({ iat: NOW_S - 601, exp: undefined }))), expected: rejected(D.tooOld) },
  { kind: 'iat', name: 'iat 61 s in the future', authorization: bearerOf(() => hs({}, claims({ iat: NOW_S + 61 }))), expected: rejected(D.futureIat) },
  { kind: 'iat', name: 'iat 30 s in the future (within the leeway) accepted', authorization: bearerOf(() => hs({}, claims({ iat: NOW_S + 30 }))), expected: ok },
  { kind: 'iat', name: 'a negative iat', authorization: bearerOf(() => hs({}, claims({ iat: -1 }))), expected: rejected(D.notNumericDate('iat')) },
  { kind: 'iat', name: 'a float iat accepted', authorization: bearerOf(() => hs({}, claims({ iat: NOW_S - 0.5 }))), expected: ok },

  { kind: 'tampering', name: 'sub changed after signing', authorization: bearerOf(() => withPayload(hs(), claims({ sub: 'attacker' }))), expected: rejected(D.signature) },
  { kind: 'tampering', name: 'recipient-irrelevant claim added after signing', authorization: bearerOf(() => withPayload(hs(), claims({ admin: true }))), expected: rejected(D.signature) },
  { kind: 'stripped signature', name: 'an empty signature segment', authorization: bearerOf(() => `${hs().split('.').slice(0, 2).join('.')}.`), expected: rejected(D.noSignature) },

  // Keys never come from the token: an embedded oct JWK or a jku naming the attacker's key changes nothing.
  {
    kind: 'key injection',
    name: "an embedded jwk carrying the attacker's HMAC key",
    authorization: bearerOf(() => hs({ jwk: { kty: 'oct', k: b64url('attacker-secret-attacker-secret-0123') } }, claims(), 'attacker-secret-attacker-secret-0123')),
    expected: rejected(D.signature),
  },
  {
    kind: 'key injection',
    name: 'a jku header naming an attacker key set',
    authorization: bearerOf(() => hs({ jku: 'http://127.0.0.1:9/jwks.json' }, claims(), 'attacker-secret-attacker-secret-0123')),
    expected: rejected(D.signature),
  },

  // kid selects nothing here (one shared secret): any string is ignored, the signature decides.
  { kind: 'kid', name: 'a unicode kid on a valid token accepted', authorization: bearerOf(() => hs({ kid: 'ключ-🔑' })), expected: ok },
  { kind: 'kid', name: 'a whitespace kid on a valid token accepted', authorization: bearerOf(() => hs({ kid: ' \t\n ' })), expected: ok },
  { kind: 'kid', name: 'a 4000-character kid on a valid token accepted', authorization: bearerOf(() => hs({ kid: 'k'.repeat(4000) })), expected: ok },
  { kind: 'kid', name: 'a unicode kid on a forged token', authorization: bearerOf(() => hs({ kid: 'ключ-🔑' }, claims(), 'another-secret-that-is-long-enough-0123456')), expected: rejected(D.signature) },
  { kind: 'kid', name: 'a numeric kid', authorization: bearerOf(() => hs({ kid: 7 })), expected: rejected(D.kidType) },

  // RFC 7515 §4.1.11: the gateway implements no extension, so every crit is one it does not understand.
  { kind: 'crit header', name: 'crit naming an unknown extension', authorization: bearerOf(() => hs({ crit: ['exp'], exp: NOW_S + 60 })), expected: rejected(D.crit) },
  { kind: 'crit header', name: 'crit ["b64"] with an unencoded payload flag (RFC 7797)', authorization: bearerOf(() => hs({ crit: ['b64'], b64: false })), expected: rejected(D.crit) },
  { kind: 'crit header', name: 'an empty crit list', authorization: bearerOf(() => hs({ crit: [] })), expected: rejected(D.crit) },
  { kind: 'crit header', name: 'crit that is not a list', authorization: bearerOf(() => hs({ crit: 'alg' })), expected: rejected(D.crit) },

  // typ: the identity service sends typ JWT; an access token (at+jwt) or any other type is not a delivery token.
  { kind: 'typ', name: 'no typ accepted', authorization: bearerOf(() => hs({ typ: undefined })), expected: ok },
  { kind: 'typ', name: 'typ "application/jwt" accepted', authorization: bearerOf(() => hs({ typ: 'application/jwt' })), expected: ok },
  { kind: 'typ', name: 'typ "at+jwt" signed with the shared secret', authorization: bearerOf(() => hs({ typ: 'at+jwt' })), expected: rejected(D.typ) },
  { kind: 'typ', name: 'typ "secevent+jwt"', authorization: bearerOf(() => hs({ typ: 'secevent+jwt' })), expected: rejected(D.typ) },
  { kind: 'typ', name: 'typ "JOSE"', authorization: bearerOf(() => hs({ typ: 'JOSE' })), expected: rejected(D.typ) },
  { kind: 'typ', name: 'a numeric typ', authorization: bearerOf(() => hs({ typ: 1 })), expected: rejected(D.typ) },

  { kind: 'duplicate header keys', name: 'two alg members (none first, HS256 last)', authorization: bearerOf(() => hs('{"alg":"none","typ":"JWT","alg":"HS256"}')), expected: rejected(D.duplicate) },
  { kind: 'duplicate header keys', name: 'two typ members', authorization: bearerOf(() => hs('{"alg":"HS256","typ":"at+jwt","typ":"JWT"}')), expected: rejected(D.duplicate) },
  { kind: 'duplicate header keys', name: 'alg twice, once spelt with a unicode escape', authorization: bearerOf(() => hs('{"alg":"HS256","\\u0061lg":"HS256"}')), expected: rejected(D.duplicate) },
  { kind: 'duplicate claims', name: 'two sub claims', authorization: bearerOf(() => hs({}, claimsText(`"sub":"attacker"`))), expected: rejected(D.duplicate) },
  { kind: 'duplicate claims', name: 'two aud claims (ours last)', authorization: bearerOf(() => hs({}, `{"aud":"urn:someone-else",${claimsText('"x":1').slice(1)}`)), expected: rejected(D.duplicate) },

  { kind: 'base64 variants', name: 'segments with = padding', authorization: bearerOf(() => withBase64Padding(hs())), expected: rejected(D.malformed) },
  { kind: 'base64 variants', name: 'segments in the standard base64 alphabet (+ and /)', authorization: bearerOf(() => withStandardBase64(hs({ note: '?????>>>>>' }))), expected: rejected(D.malformed) },
  { kind: 'base64 variants', name: 'a space inside the payload segment', authorization: bearerOf(() => mapSegments(hs(), (s, i) => (i === 1 ? `${s.slice(0, 5)} ${s.slice(5)}` : s))), expected: rejected(D.malformed) },
  { kind: 'base64 variants', name: 'a signature with a pad bit set (non-canonical)', authorization: bearerOf(() => mapSegments(hs(), (s, i) => (i === 2 ? withNonCanonicalTail(s) : s))), expected: rejected(D.malformed) },

  { kind: 'garbage', name: 'text that is not a JWT', authorization: bearer('not-a-jwt'), expected: rejected(D.malformed) },
  { kind: 'garbage', name: 'three empty segments', authorization: bearer('..'), expected: rejected(D.malformed) },
  { kind: 'segment count', name: 'two segments', authorization: bearerOf(() => hs().split('.').slice(0, 2).join('.')), expected: rejected(D.malformed) },
  { kind: 'segment count', name: 'four segments', authorization: bearerOf(() => `${hs()}.extra`), expected: rejected(D.malformed) },
  { kind: 'not JSON', name: 'a header that is not JSON', authorization: bearer(`${b64url('{not json')}.${b64url(claims())}.sig`), expected: rejected(D.malformed) },
  { kind: 'not JSON', name: 'a payload that is a JSON array', authorization: bearerOf(() => hs({}, '[1,2]')), expected: rejected(D.malformed) },
  { kind: 'not JSON', name: 'a payload that is a JSON string', authorization: bearerOf(() => hs({}, '"smsauth-identity"')), expected: rejected(D.malformed) },
  { kind: 'huge token', name: 'a 10 KB token', authorization: bearerOf(() => hs({}, claims({ padding: 'x'.repeat(10 * 1024) }))), expected: rejected(D.tooLong) },
];

describe('SMS delivery gateway JWT attack corpus (POST /sms)', () => {
  let gateway: TestGateway;
  beforeEach(() => {
    gateway = buildGateway(AUTH_ENV);
  });

  async function outboxSize(): Promise<number> {
    return ((await request(gateway.app).get('/outbox/messages')).body as unknown[]).length;
  }

  it('spans at least 25 distinct kinds of attack', () => {
    const kinds = new Set(corpus.filter((row) => row.kind !== 'baseline').map((row) => row.kind));
    expect(kinds.size).toBeGreaterThanOrEqual(25);
  });

  it('crafts the encoding variants it claims to (same bytes, other text)', () => {
    const token = hs({ note: '?????>>>>>' });
    expect(withStandardBase64(token)).toMatch(/[+/]/);
    expect(withBase64Padding(token)).toContain('=');
    const signature = token.split('.')[2] ?? '';
    const bent = withNonCanonicalTail(signature);
    expect(bent).not.toBe(signature);
    expect(Buffer.from(bent, 'base64url').equals(Buffer.from(signature, 'base64url'))).toBe(true);
  });

  it.each(corpus)('[$kind] $name', async ({ authorization, expected }) => {
    const call = request(gateway.app).post('/sms');
    const header = authorization();
    if (header !== undefined) call.set('Authorization', header);
    const res = await call.send(deliveryBody());

    if (expected.status === 200) {
      expect(res.status).toBe(200);
      expect(res.text).toBe('');
      expect(await outboxSize()).toBe(1);
      return;
    }
    expect(res.status).toBe(401);
    expect(OAuthErrorBodySchema.parse(res.body)).toEqual({ error: 'invalid_token', error_description: expected.description });
    expect(res.headers['www-authenticate']).toBe(expected.challenge);
    expect(await outboxSize()).toBe(0);
  });

  it('never writes a presented token or its signature to the log', async () => {
    for (const row of corpus) {
      const call = request(gateway.app).post('/sms');
      const header = row.authorization();
      if (header !== undefined) call.set('Authorization', header);
      await call.send(deliveryBody());
    }
    const log = gateway.logs.text();
    for (const row of corpus) {
      const signature = row.authorization()?.split('.')[2];
      if (signature && signature.length > 20) expect(log).not.toContain(signature);
    }
  });
});
