import { createPublicKey, generateKeyPairSync, sign, verify, X509Certificate, type KeyObject } from 'node:crypto';
import { CLIENT_ASSERTION_ALGORITHMS, type ClientAssertionAlgorithm } from '@smsauth/contracts';
import type { Clock } from '@smsauth/service-kit';
import jwt from 'jsonwebtoken';
import type { IdentityStore, StoredClient, StoredClientCredential } from '../../store';

/** Seconds of clock difference tolerated on `exp`, `nbf` and `iat` (RFC 8725: ≤ 60). */
export const ASSERTION_CLOCK_TOLERANCE_SECONDS = 30;
/** Longest accepted lifetime of an assertion (`exp` - now): the SDKs use 60-120 s. */
export const ASSERTION_MAX_LIFETIME_SECONDS = 300;

export interface ClientAssertionDependencies {
  store: IdentityStore;
  clock: Clock;
  /** Accepted `aud` values: our issuer (`{AUTH_URL}/`), AUTH_URL itself, the token endpoint URL. */
  audiences: readonly string[];
}

/** The public key of a registered credential: a certificate's key, or the SPKI key itself. */
export function credentialPublicKey(pem: string): KeyObject {
  if (pem.includes('BEGIN CERTIFICATE')) return new X509Certificate(pem).publicKey;
  return createPublicKey({ key: pem, format: 'pem' });
}

/** The `sub` of an assertion, unverified: to find the client when the body names none. */
export function assertionSubject(assertion: string): string | undefined {
  const payload = jwt.decode(assertion, { json: true });
  return typeof payload?.sub === 'string' ? payload.sub : undefined;
}

function isAlgorithm(value: unknown): value is ClientAssertionAlgorithm {
  return typeof value === 'string' && (CLIENT_ASSERTION_ALGORITHMS as readonly string[]).includes(value);
}

/**
 * private_key_jwt (RFC 7523 §3): signed by one of the client's registered keys with the
 * credential's algorithm, `iss` = `sub` = client_id, `aud` one of ours, `exp` present and
 * at most ASSERTION_MAX_LIFETIME_SECONDS ahead, a `jti` never seen before (recorded in the
 * database, so a replay fails on every replica). True only when all of that holds; the
 * caller answers every failure the same way.
 */
export async function verifyClientAssertion(
  deps: ClientAssertionDependencies,
  client: StoredClient,
  assertion: string,
): Promise<boolean> {
  const decoded = jwt.decode(assertion, { complete: true });
  const alg = decoded?.header.alg;
  if (!decoded || !isAlgorithm(alg)) {
    spendVerificationTime();
    return false;
  }
  const now = deps.clock.now();
  const usable = (await deps.store.clientCredentials.listForAuthentication(client.client_id)).filter(
    (c) => c.alg === alg && (!c.expires_at || c.expires_at > now),
  );
  // A `kid` naming a registered key narrows the search; any other `kid` (SDKs may set their
  // own) does not matter, as only a registered key's signature is ever accepted.
  const named = usable.filter((c) => c.kid === decoded.header.kid);
  const credentials = named.length > 0 ? named : usable;
  const payload = verifyWithAny(credentials, assertion, alg, client.client_id, deps.audiences, now);
  if (!payload) return false;
  const nowSeconds = Math.floor(now.getTime() / 1000);
  const { exp, jti } = payload;
  if (typeof exp !== 'number' || exp - nowSeconds > ASSERTION_MAX_LIFETIME_SECONDS) return false;
  if (typeof jti !== 'string' || jti.length === 0 || jti.length > 256) return false;
  const keepUntil = new Date((exp + ASSERTION_CLOCK_TOLERANCE_SECONDS) * 1000);
  return deps.store.clientCredentials.recordAssertionJti(client.client_id, jti, keepUntil, now);
}

function verifyWithAny(
  credentials: readonly StoredClientCredential[],
  assertion: string,
  alg: ClientAssertionAlgorithm,
  clientId: string,
  audiences: readonly string[],
  now: Date,
): jwt.JwtPayload | undefined {
  if (credentials.length === 0) spendVerificationTime();
  for (const credential of credentials) {
    try {
      const payload = jwt.verify(assertion, credentialPublicKey(credential.pem), {
        algorithms: [alg],
        audience: audiences as [string, ...string[]],
        issuer: clientId,
        subject: clientId,
        clockTimestamp: Math.floor(now.getTime() / 1000),
        clockTolerance: ASSERTION_CLOCK_TOLERANCE_SECONDS,
      });
      if (typeof payload === 'object') return payload;
    } catch {
      // Try the next key; none matching is a failed authentication.
    }
  }
  return undefined;
}

let dummy: { key: KeyObject; signature: Buffer } | undefined;

/**
 * One RSA signature check on a throw-away key, where no real one runs (unknown client, no
 * usable key, unsupported algorithm), so a refusal takes about as long whatever its reason.
 */
export function spendVerificationTime(): void {
  if (!dummy) {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    dummy = { key: publicKey, signature: sign('sha256', Buffer.from('dummy'), privateKey) };
  }
  verify('sha256', Buffer.from('dummy'), dummy.key, dummy.signature);
}
