/**
 * JWT attack corpus against the airport API: the real app (OpenAPI-configured gateway layer),
 * on a real HTTP server, validating against a real JWKS served by a stand-in identity
 * service. Every row states the exact answer: 200 with the airport name, or 401 with the
 * spec 2.8 body (code 16) and its precise reason. No row may answer 5xx, and no row may make
 * the API fetch a key from a URL the token names.
 */
import { createPublicKey, type JsonWebKey, type KeyObject } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GatewayRejectionSchema, jwtRejection, JwtRejectionReasons as Reasons } from '@smsauth/contracts';
import { createMemoryLogger, loadConfig } from '@smsauth/service-kit';
import {
  b64url,
  craftToken,
  hmacSigner,
  JwksServer,
  mapSegments,
  rsaSigner,
  withBase64Padding,
  withNonCanonicalTail,
  withPayload,
  withStandardBase64,
  detachedKeyPair,
} from '@smsauth/test-support';
import jwt from 'jsonwebtoken';
import request from 'supertest';
import { buildApp } from '../../src/app';
import { configSchema } from '../../src/config';
import { FakeIdentity } from '../support/identity';

const NOW = Date.UTC(2031, 5, 1, 8, 0, 0);
const NOW_S = NOW / 1000;
const AUDIENCE = 'https://airport-api.example.com';
/** What the identity service's connection would sign delivery tokens with (HS256). */
const GATEWAY_SECRET = 'test-gateway-secret-0123456789-abcdefghij';
const GATEWAY_AUDIENCE = 'urn:smsauth:sms-gateway';
const SFO = 'San Francisco International Airport';

/** The attacker's own server: a JWKS with its key under the real kid, and a record of every request. */
class AttackerServer {
  readonly privateKey: KeyObject;
  readonly jwk: JsonWebKey;
  private jwks: JwksServer | undefined;

  constructor(kid: string) {
    const pair = detachedKeyPair('rsa', { modulusLength: 2048 });
    this.privateKey = pair.privateKey;
    this.jwk = { ...pair.publicKey.export({ format: 'jwk' }), kid, alg: 'RS256', use: 'sig' };
  }

  async start(): Promise<this> {
    this.jwks = await JwksServer.start([this.jwk]);
    return this;
  }

  get requests(): string[] {
    return (this.jwks?.requests ?? []).map((r) => r.path);
  }

  get origin(): string {
    return this.jwks?.origin ?? '';
  }

  async close(): Promise<void> {
    await this.jwks?.close();
  }
}

interface Ctx {
  identity: FakeIdentity;
  /** The identity's public key as the JWKS publishes it, PEM and JWK. */
  publicKeyPem: string;
  publicJwk: JsonWebKey;
  attacker: AttackerServer;
  foreignKey: KeyObject;
  claims(overrides?: Record<string, unknown>): Record<string, unknown>;
  /** RS256 by the identity key, header {alg, typ: JWT, kid} plus `header`, raw or object. */
  signed(header?: Record<string, unknown> | string, claims?: Record<string, unknown> | string): string;
}

type Expected = { status: 200 } | { status: 401; reason: string };

interface Row {
  /** The attack family the row belongs to; the corpus must span at least 25. */
  kind: string;
  name: string;
  token(c: Ctx): string | undefined;
  expected: Expected;
  /** Where the token goes: Authorization: Bearer (default), the access_token parameter, or raw header text. */
  via?: 'bearer' | 'query' | 'authorization';
}

const ok: Expected = { status: 200 };
const rejected = (reason: string): Expected => ({ status: 401, reason });
const BAD_FORMAT = rejected(Reasons.BAD_FORMAT);

/** Raw JSON text: the only way to carry duplicate member names. */
const header = (members: string) => `{${members}}`;
const claimsText = (c: Ctx, extra: string) => JSON.stringify(c.claims()).replace(/}$/, `,${extra}}`);

const corpus: Row[] = [
  // Baselines: what the identity service really issues passes.
  { kind: 'baseline', name: 'an M2M test token (typ JWT)', token: (c) => c.signed(), expected: ok },
  { kind: 'baseline', name: 'a user access token (typ at+jwt)', token: (c) => c.signed({ typ: 'at+jwt' }), expected: ok },
  { kind: 'baseline', name: 'a valid token in the access_token query parameter', token: (c) => c.signed(), via: 'query', expected: ok },

  { kind: 'missing token', name: 'no token at all', token: () => undefined, expected: rejected(Reasons.MISSING_CREDENTIALS) },
  { kind: 'missing token', name: 'a Basic Authorization header', token: () => 'Basic dXNlcjpwYXNz', via: 'authorization', expected: rejected(Reasons.MISSING_CREDENTIALS) },

  { kind: 'alg none', name: 'alg "none" with an empty signature', token: (c) => craftToken({ alg: 'none', typ: 'JWT', kid: c.identity.kid }, c.claims()), expected: BAD_FORMAT },
  { kind: 'alg none', name: 'alg "None" in another case', token: (c) => craftToken({ alg: 'None', kid: c.identity.kid }, c.claims()), expected: BAD_FORMAT },
  {
    kind: 'alg none',
    name: 'alg "none" carrying a real RS256 signature',
    token: (c) => craftToken({ alg: 'none', kid: c.identity.kid }, c.claims(), rsaSigner(c.identity.privateKey)),
    expected: BAD_FORMAT,
  },
  {
    kind: 'alg confusion',
    name: 'HS256 keyed with the published RSA public key (PEM)',
    token: (c) => craftToken({ alg: 'HS256', kid: c.identity.kid }, c.claims(), hmacSigner(c.publicKeyPem)),
    expected: BAD_FORMAT,
  },
  {
    kind: 'alg confusion',
    name: 'HS256 keyed with the JWK modulus',
    token: (c) => craftToken({ alg: 'HS256', kid: c.identity.kid }, c.claims(), hmacSigner(c.publicJwk.n ?? '')),
    expected: BAD_FORMAT,
  },
  { kind: 'wrong secret', name: 'HS256 signed with a guessed secret', token: (c) => craftToken({ alg: 'HS256' }, c.claims(), hmacSigner('secret')), expected: BAD_FORMAT },
  {
    kind: 'alg/key mismatch',
    name: 'ES256 in the header over an RS256 signature',
    token: (c) => craftToken({ alg: 'ES256', kid: c.identity.kid }, c.claims(), rsaSigner(c.identity.privateKey)),
    expected: rejected(Reasons.SIGNATURE_FAILED),
  },
  {
    kind: 'alg/key mismatch',
    name: 'PS256 in the header for a key the JWKS pins to RS256',
    token: (c) => craftToken({ alg: 'PS256', kid: c.identity.kid }, c.claims(), rsaSigner(c.identity.privateKey)),
    expected: rejected(Reasons.SIGNATURE_FAILED),
  },

  { kind: 'wrong issuer', name: 'another issuer', token: (c) => c.signed({}, c.claims({ iss: 'https://evil.example.com/' })), expected: rejected(Reasons.ISSUER_NOT_ALLOWED) },
  { kind: 'wrong issuer', name: 'the issuer without its trailing slash', token: (c) => c.signed({}, c.claims({ iss: c.identity.authUrl })), expected: rejected(Reasons.ISSUER_NOT_ALLOWED) },
  { kind: 'wrong issuer', name: 'no issuer', token: (c) => c.signed({}, c.claims({ iss: undefined })), expected: rejected(Reasons.ISSUER_NOT_ALLOWED) },
  {
    kind: 'wrong issuer',
    name: 'a wrong issuer in the access_token query parameter',
    token: (c) => c.signed({}, c.claims({ iss: 'https://evil.example.com/' })),
    via: 'query',
    expected: rejected(Reasons.ISSUER_NOT_ALLOWED),
  },

  { kind: 'wrong audience', name: 'another API audience', token: (c) => c.signed({}, c.claims({ aud: 'https://other-api.example.com' })), expected: rejected(Reasons.AUDIENCE_NOT_ALLOWED) },
  { kind: 'wrong audience', name: 'no audience', token: (c) => c.signed({}, c.claims({ aud: undefined })), expected: rejected(Reasons.AUDIENCE_NOT_ALLOWED) },
  {
    kind: 'wrong audience',
    name: 'an audience array without ours',
    token: (c) => c.signed({}, c.claims({ aud: ['https://a.example.com', 'https://b.example.com'] })),
    expected: rejected(Reasons.AUDIENCE_NOT_ALLOWED),
  },
  { kind: 'wrong audience', name: 'our audience with a trailing slash', token: (c) => c.signed({}, c.claims({ aud: `${AUDIENCE}/` })), expected: rejected(Reasons.AUDIENCE_NOT_ALLOWED) },
  { kind: 'wrong audience', name: 'an audience array with ours accepted', token: (c) => c.signed({}, c.claims({ aud: ['https://a.example.com', AUDIENCE] })), expected: ok },

  {
    kind: 'cross-audience reuse',
    name: "the identity service's HS256 delivery token for the SMS gateway",
    token: () => jwt.sign({ sub: 'smsauth-identity', aud: GATEWAY_AUDIENCE, iat: NOW_S, exp: NOW_S + 300 }, GATEWAY_SECRET, { algorithm: 'HS256' }),
    expected: BAD_FORMAT,
  },
  {
    kind: 'cross-audience reuse',
    name: 'an identity-signed RS256 token for the SMS gateway audience',
    token: (c) => c.signed({}, c.claims({ aud: GATEWAY_AUDIENCE, sub: 'smsauth-identity' })),
    expected: rejected(Reasons.AUDIENCE_NOT_ALLOWED),
  },
  {
    kind: 'cross-audience reuse',
    name: 'an ID token (aud is the client id)',
    token: (c) => c.signed({}, c.claims({ aud: 'demo-client-id', phone_number: '+14155550123', phone_number_verified: true })),
    expected: rejected(Reasons.AUDIENCE_NOT_ALLOWED),
  },
  {
    kind: 'cross-audience reuse',
    name: 'a Management API token',
    token: (c) => c.signed({}, c.claims({ aud: `${c.identity.authUrl}/api/v2/`, scope: 'read:users' })),
    expected: rejected(Reasons.AUDIENCE_NOT_ALLOWED),
  },

  { kind: 'expired', name: 'exp 61 s ago (beyond the 60 s leeway)', token: (c) => c.signed({}, c.claims({ exp: NOW_S - 61 })), expected: rejected(Reasons.TIME_CONSTRAINT_FAILURE) },
  { kind: 'expired', name: 'exp 30 s ago (within the leeway) accepted', token: (c) => c.signed({}, c.claims({ exp: NOW_S - 30 })), expected: ok },
  { kind: 'expired', name: 'exp 0 (the epoch)', token: (c) => c.signed({}, c.claims({ exp: 0 })), expected: rejected(Reasons.TIME_CONSTRAINT_FAILURE) },
  { kind: 'nbf', name: 'nbf 61 s ahead', token: (c) => c.signed({}, c.claims({ nbf: NOW_S + 61 })), expected: rejected(Reasons.TIME_CONSTRAINT_FAILURE) },
  { kind: 'nbf', name: 'nbf 30 s ahead (within the leeway) accepted', token: (c) => c.signed({}, c.claims({ nbf: NOW_S + 30 })), expected: ok },
  { kind: 'missing exp', name: 'no exp', token: (c) => c.signed({}, c.claims({ exp: undefined })), expected: rejected(Reasons.TIME_CONSTRAINT_FAILURE) },
  { kind: 'time claim type', name: 'exp as a string', token: (c) => c.signed({}, c.claims({ exp: String(NOW_S + 600) })), expected: BAD_FORMAT },
  { kind: 'time claim type', name: 'nbf as a boolean', token: (c) => c.signed({}, c.claims({ nbf: true })), expected: BAD_FORMAT },
  { kind: 'time claim type', name: 'exp null', token: (c) => c.signed({}, c.claims({ exp: null })), expected: BAD_FORMAT },

  // Decision: a NumericDate beyond what a Date can hold (8.64e12 s) names no instant -> bad format;
  // a far but real date (year 9999) is the issuer's choice and is honoured.
  { kind: 'huge exp', name: 'exp 1e20', token: (c) => c.signed({}, c.claims({ exp: 1e20 })), expected: BAD_FORMAT },
  { kind: 'huge exp', name: 'exp Number.MAX_SAFE_INTEGER + 1', token: (c) => c.signed({}, c.claims({ exp: Number.MAX_SAFE_INTEGER + 1 })), expected: BAD_FORMAT },
  { kind: 'huge exp', name: 'exp 1e308', token: (c) => c.signed({}, c.claims({ exp: 1e308 })), expected: BAD_FORMAT },
  { kind: 'huge exp', name: 'exp 1e309 (JSON overflow to Infinity)', token: (c) => c.signed({}, JSON.stringify(c.claims()).replace(/"exp":\d+/, '"exp":1e309')), expected: BAD_FORMAT },
  { kind: 'huge exp', name: 'exp in the year 9999 accepted', token: (c) => c.signed({}, c.claims({ exp: 253402300799 })), expected: ok },

  { kind: 'iat', name: 'a negative iat', token: (c) => c.signed({}, c.claims({ iat: -1 })), expected: BAD_FORMAT },
  { kind: 'iat', name: 'a float iat accepted', token: (c) => c.signed({}, c.claims({ iat: NOW_S - 0.5 })), expected: ok },
  { kind: 'iat', name: 'a float exp accepted', token: (c) => c.signed({}, c.claims({ exp: NOW_S + 599.25 })), expected: ok },
  { kind: 'iat', name: 'iat 61 s in the future', token: (c) => c.signed({}, c.claims({ iat: NOW_S + 61 })), expected: rejected(Reasons.TIME_CONSTRAINT_FAILURE) },
  { kind: 'iat', name: 'iat 30 s in the future (within the leeway) accepted', token: (c) => c.signed({}, c.claims({ iat: NOW_S + 30 })), expected: ok },
  { kind: 'iat', name: 'no iat accepted (RFC 7519: optional)', token: (c) => c.signed({}, c.claims({ iat: undefined })), expected: ok },

  { kind: 'tampering', name: 'sub changed after signing', token: (c) => withPayload(c.signed(), c.claims({ sub: 'sms|admin' })), expected: rejected(Reasons.SIGNATURE_FAILED) },
  {
    kind: 'tampering',
    name: 'the header swapped for one with another typ after signing',
    token: (c) => `${b64url({ alg: 'RS256', typ: 'at+jwt', kid: c.identity.kid })}.${c.signed().split('.').slice(1).join('.')}`,
    expected: rejected(Reasons.SIGNATURE_FAILED),
  },
  { kind: 'stripped signature', name: 'an empty signature segment', token: (c) => `${c.signed().split('.').slice(0, 2).join('.')}.`, expected: rejected(Reasons.SIGNATURE_FAILED) },

  { kind: 'unknown kid', name: 'a kid the JWKS does not have', token: (c) => c.signed({ kid: 'no-such-key' }), expected: rejected(Reasons.keyNotFound('no-such-key')) },
  { kind: 'foreign key', name: 'a foreign key signing under the known kid', token: (c) => craftToken({ alg: 'RS256', kid: c.identity.kid }, c.claims(), rsaSigner(c.foreignKey)), expected: rejected(Reasons.SIGNATURE_FAILED) },

  {
    kind: 'key injection',
    name: 'a jku header pointing at the attacker JWKS',
    token: (c) => craftToken({ alg: 'RS256', kid: c.identity.kid, jku: `${c.attacker.origin}/.well-known/jwks.json` }, c.claims(), rsaSigner(c.attacker.privateKey)),
    expected: rejected(Reasons.SIGNATURE_FAILED),
  },
  {
    kind: 'key injection',
    name: 'an x5u header pointing at the attacker',
    token: (c) => craftToken({ alg: 'RS256', kid: c.identity.kid, x5u: `${c.attacker.origin}/cert.pem` }, c.claims(), rsaSigner(c.attacker.privateKey)),
    expected: rejected(Reasons.SIGNATURE_FAILED),
  },
  {
    kind: 'key injection',
    name: 'an embedded jwk carrying the attacker key',
    token: (c) => craftToken({ alg: 'RS256', kid: c.identity.kid, jwk: c.attacker.jwk }, c.claims(), rsaSigner(c.attacker.privateKey)),
    expected: rejected(Reasons.SIGNATURE_FAILED),
  },

  { kind: 'kid type', name: 'a numeric kid', token: (c) => c.signed({ kid: 7 }), expected: BAD_FORMAT },
  { kind: 'kid type', name: 'a kid that is an object', token: (c) => c.signed({ kid: { $ne: null } }), expected: BAD_FORMAT },
  { kind: 'kid text', name: 'a unicode kid', token: (c) => c.signed({ kid: 'ключ-🔑' }), expected: rejected(Reasons.keyNotFound('????-??')) },
  { kind: 'kid text', name: 'the known kid with surrounding spaces', token: (c) => c.signed({ kid: ` ${c.identity.kid} ` }), expected: rejected(Reasons.keyNotFound(' identity-key-1 ')) },
  { kind: 'kid text', name: 'the known kid with a newline and a NUL', token: (c) => c.signed({ kid: `${c.identity.kid}\n\u0000` }), expected: rejected(Reasons.keyNotFound('identity-key-1??')) },
  { kind: 'kid text', name: 'an empty kid', token: (c) => c.signed({ kid: '' }), expected: rejected(Reasons.keyNotFound('')) },
  { kind: 'kid text', name: 'a 4000-character kid (echoed truncated)', token: (c) => c.signed({ kid: 'k'.repeat(4000) }), expected: rejected(Reasons.keyNotFound(`${'k'.repeat(128)}...`)) },

  // RFC 7515 §4.1.11: we implement no extension, so every crit is one we do not understand.
  { kind: 'crit header', name: 'crit naming an unknown extension', token: (c) => c.signed({ crit: ['exp'], exp: NOW_S + 60 }), expected: BAD_FORMAT },
  { kind: 'crit header', name: 'crit ["b64"] with an unencoded payload flag (RFC 7797)', token: (c) => c.signed({ crit: ['b64'], b64: false }), expected: BAD_FORMAT },
  { kind: 'crit header', name: 'an empty crit list', token: (c) => c.signed({ crit: [] }), expected: BAD_FORMAT },
  { kind: 'crit header', name: 'crit that is a string, not a list', token: (c) => c.signed({ crit: 'kid' }), expected: BAD_FORMAT },
  { kind: 'crit header', name: 'crit naming a registered header (kid)', token: (c) => c.signed({ crit: ['kid'] }), expected: BAD_FORMAT },

  // typ: JWT (M2M) and at+jwt (user access tokens, RFC 9068) are access tokens; other explicit types are not.
  { kind: 'typ', name: 'no typ accepted', token: (c) => c.signed({ typ: undefined }), expected: ok },
  { kind: 'typ', name: 'typ "application/at+jwt" accepted', token: (c) => c.signed({ typ: 'application/at+jwt' }), expected: ok },
  { kind: 'typ', name: 'typ "jwt" in lower case accepted', token: (c) => c.signed({ typ: 'jwt' }), expected: ok },
  { kind: 'typ', name: 'typ "secevent+jwt" (a security event token)', token: (c) => c.signed({ typ: 'secevent+jwt' }), expected: BAD_FORMAT },
  { kind: 'typ', name: 'typ "dpop+jwt" (a DPoP proof)', token: (c) => c.signed({ typ: 'dpop+jwt' }), expected: BAD_FORMAT },
  { kind: 'typ', name: 'typ "logout+jwt" (a logout token)', token: (c) => c.signed({ typ: 'logout+jwt' }), expected: BAD_FORMAT },
  { kind: 'typ', name: 'typ "JOSE"', token: (c) => c.signed({ typ: 'JOSE' }), expected: BAD_FORMAT },
  { kind: 'typ', name: 'a numeric typ', token: (c) => c.signed({ typ: 1 }), expected: BAD_FORMAT },

  {
    kind: 'duplicate header keys',
    name: 'two alg members (HS256 first, RS256 last)',
    token: (c) => c.signed(header(`"alg":"HS256","alg":"RS256","kid":"${c.identity.kid}"`)),
    expected: BAD_FORMAT,
  },
  {
    kind: 'duplicate header keys',
    name: 'two kid members (unknown first, known last)',
    token: (c) => c.signed(header(`"alg":"RS256","kid":"no-such-key","kid":"${c.identity.kid}"`)),
    expected: BAD_FORMAT,
  },
  {
    kind: 'duplicate header keys',
    name: 'alg twice, once spelt with a unicode escape',
    token: (c) => c.signed(header(`"alg":"none","\\u0061lg":"RS256","kid":"${c.identity.kid}"`)),
    expected: BAD_FORMAT,
  },
  { kind: 'duplicate claims', name: 'two sub claims', token: (c) => c.signed({}, claimsText(c, '"sub":"sms|admin"')), expected: BAD_FORMAT },
  {
    kind: 'duplicate claims',
    name: 'two aud claims (another API first, ours last)',
    token: (c) => c.signed({}, `{"aud":"https://other-api.example.com",${claimsText(c, '"x":1').slice(1)}`),
    expected: BAD_FORMAT,
  },

  { kind: 'base64 variants', name: 'segments with = padding', token: (c) => withBase64Padding(c.signed()), expected: BAD_FORMAT },
  { kind: 'base64 variants', name: 'segments in the standard base64 alphabet (+ and /)', token: (c) => withStandardBase64(c.signed({ note: '?????>>>>>' })), expected: BAD_FORMAT },
  { kind: 'base64 variants', name: 'a space inside the header segment', token: (c) => mapSegments(c.signed(), (s, i) => (i === 0 ? `${s.slice(0, 5)} ${s.slice(5)}` : s)), expected: BAD_FORMAT },
  {
    kind: 'base64 variants',
    name: 'a tab inside the payload segment, in the access_token parameter',
    token: (c) => mapSegments(c.signed(), (s, i) => (i === 1 ? `${s.slice(0, 5)}\t${s.slice(5)}` : s)),
    via: 'query',
    expected: BAD_FORMAT,
  },
  { kind: 'base64 variants', name: 'a signature with a pad bit set (non-canonical)', token: (c) => mapSegments(c.signed(), (s, i) => (i === 2 ? withNonCanonicalTail(s) : s)), expected: BAD_FORMAT },

  { kind: 'garbage', name: 'text that is not a JWT', token: () => 'this-is-not-a-jwt', expected: BAD_FORMAT },
  { kind: 'garbage', name: 'three empty segments', token: () => '..', expected: BAD_FORMAT },
  { kind: 'segment count', name: 'two segments', token: (c) => c.signed().split('.').slice(0, 2).join('.'), expected: BAD_FORMAT },
  { kind: 'segment count', name: 'four segments', token: (c) => `${c.signed()}.extra`, expected: BAD_FORMAT },
  { kind: 'segment count', name: 'five segments (a JWE shape)', token: (c) => `${c.signed()}.a.b`, expected: BAD_FORMAT },
  { kind: 'not JSON', name: 'a header that is not JSON', token: () => `${b64url('{not json')}.${b64url({})}.sig`, expected: BAD_FORMAT },
  { kind: 'not JSON', name: 'a payload that is a JSON array', token: (c) => c.signed({}, '[1,2]'), expected: BAD_FORMAT },
  { kind: 'not JSON', name: 'a payload that is a JSON string', token: (c) => c.signed({}, '"sms|5f1"'), expected: BAD_FORMAT },
  { kind: 'huge token', name: 'a 20 KB token', token: (c) => c.signed({}, c.claims({ padding: 'x'.repeat(20 * 1024) })), expected: BAD_FORMAT },
];

describe('airport API JWT attack corpus', () => {
  let identity: FakeIdentity;
  let attacker: AttackerServer;
  let server: Server;
  let url: string;
  let ctx: Ctx;
  const memory = createMemoryLogger({ name: 'airport-api' });

  beforeAll(async () => {
    identity = await FakeIdentity.start();
    attacker = await new AttackerServer(identity.kid).start();
    const config = loadConfig(configSchema, { AUTH_URL: identity.authUrl, API_AUDIENCE: AUDIENCE });
    const { app } = buildApp({ config, logger: memory.logger, clock: { now: () => new Date(NOW) } });
    // 64 KB header limit so the 20 KB token reaches the gateway instead of Node's 431.
    server = createServer({ maxHeaderSize: 64 * 1024 }, app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const claims = (overrides: Record<string, unknown> = {}) => {
      const all: Record<string, unknown> = { iss: `${identity.authUrl}/`, aud: AUDIENCE, sub: 'sms|5f1', iat: NOW_S, exp: NOW_S + 3600, ...overrides };
      for (const [name, value] of Object.entries(all)) if (value === undefined) delete all[name];
      return all;
    };
    const publicKey = createPublicKey(identity.privateKey);
    ctx = {
      identity,
      publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
      publicJwk: publicKey.export({ format: 'jwk' }),
      attacker,
      foreignKey: detachedKeyPair('rsa', { modulusLength: 2048 }).privateKey,
      claims,
      signed: (head = {}, body = claims()) => {
        const fullHeader =
          typeof head === 'string' ? head : Object.fromEntries(Object.entries({ alg: 'RS256', typ: 'JWT', kid: identity.kid, ...head }).filter(([, v]) => v !== undefined));
        return craftToken(fullHeader, body, rsaSigner(identity.privateKey));
      },
    };
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await identity.close();
    await attacker.close();
  });

  function send(row: Row) {
    const token = row.token(ctx);
    const call = request(url).get('/airportName').query({ iataCode: 'SFO', ...(row.via === 'query' && token !== undefined ? { access_token: token } : {}) });
    if (token === undefined || row.via === 'query') return { token, call };
    return { token, call: call.set('Authorization', row.via === 'authorization' ? token : `Bearer ${token}`) };
  }

  it('spans at least 25 distinct kinds of attack', () => {
    const kinds = new Set(corpus.filter((row) => row.kind !== 'baseline').map((row) => row.kind));
    expect(kinds.size).toBeGreaterThanOrEqual(25);
  });

  it('crafts the encoding variants it claims to (same bytes, other text)', () => {
    const token = ctx.signed({ note: '?????>>>>>' });
    expect(withStandardBase64(token)).toMatch(/[+/]/);
    expect(withBase64Padding(token)).toContain('=');
    const signature = token.split('.')[2] ?? '';
    const bent = withNonCanonicalTail(signature);
    expect(bent).not.toBe(signature);
    expect(Buffer.from(bent, 'base64url').equals(Buffer.from(signature, 'base64url'))).toBe(true);
  });

  it.each(corpus)('[$kind] $name', async (row) => {
    const { token, call } = send(row);
    const res = await call;

    if (row.expected.status === 200) {
      expect(res.status).toBe(200);
      expect(res.text).toBe(SFO);
      return;
    }
    expect(res.status).toBe(401);
    expect(GatewayRejectionSchema.parse(res.body)).toEqual(jwtRejection(row.expected.reason));
    const tokenSent = token !== undefined && row.via !== 'authorization';
    expect(res.headers['www-authenticate']).toBe(tokenSent ? 'Bearer, error="invalid_token"' : 'Bearer');
  });

  it('never fetched a key from a URL a token named', () => {
    expect(attacker.requests).toEqual([]);
  });

  it('never wrote a presented signature to the log', () => {
    const log = memory.text();
    for (const row of corpus) {
      const signature = row.token(ctx)?.split('.')[2];
      if (signature && signature.length > 20) expect(log).not.toContain(signature);
    }
  });
});
