import { JwtRejectionReasons } from '@smsauth/contracts';
import type { Request } from 'express';
import type { HttpError } from '@smsauth/service-kit';
import type { GatewayOperation } from './document';
import type { AuthOutcome } from './gateway-metrics';
import type { JwtVerifier, Verification } from './jwt-verifier';
import { insufficientScope, unauthenticated } from './rejection';
import { findToken } from './token-location';
import type { JwtClaims } from './types';

export type AuthResult =
  | { ok: true; claims: JwtClaims; payloadSegment: string }
  /** An empty requirement (`security: [{}]`) lets the call through without a token. */
  | { ok: true; claims: undefined; payloadSegment: undefined }
  | { ok: false; error: HttpError; outcome: AuthOutcome; reason: string };

/** Scopes granted by a token: `scope` (space-separated, or an array), or `scp`. */
export function grantedScopes(claims: JwtClaims): Set<string> {
  const raw = claims.scope ?? claims.scp;
  if (typeof raw === 'string') return new Set(raw.split(' ').filter(Boolean));
  if (Array.isArray(raw)) return new Set(raw.filter((scope): scope is string => typeof scope === 'string'));
  return new Set();
}

function hasScopes(claims: JwtClaims, scopes: readonly string[]): boolean {
  const granted = grantedScopes(claims);
  return scopes.every((scope) => granted.has(scope));
}

/** Less telling failures lose to more telling ones when several alternatives fail. */
const OUTCOME_RANK: Partial<Record<AuthOutcome, number>> = { missing_credentials: 0, issuer_not_allowed: 1 };

function failure(outcome: AuthOutcome, reason: string, error: HttpError): AuthResult {
  return { ok: false, outcome, reason, error };
}

/**
 * Checks the operation's security: alternatives (OR) of scheme sets (AND). On success the
 * claims are those of the first scheme of the satisfied alternative. The answer is a plain
 * value whenever no verification waits (a cached token, or one refused before its signature):
 * no promise, no microtask turn per request; a verification waiting for its signature (on the
 * thread pool) or for a JWKS fetch continues asynchronously.
 */
export function authenticate(req: Request, operation: GatewayOperation, verifier: JwtVerifier): AuthResult | Promise<AuthResult> {
  const steps = evaluate(req, operation, verifier);
  let step = steps.next();
  while (!step.done) {
    if (step.value instanceof Promise) return continueAfter(steps, step.value);
    step = steps.next(step.value);
  }
  return step.value;
}

type Steps = Generator<Verification | Promise<Verification>, AuthResult, Verification>;

async function continueAfter(steps: Steps, pending: Promise<Verification>): Promise<AuthResult> {
  let step = steps.next(await pending);
  while (!step.done) step = steps.next(step.value instanceof Promise ? await step.value : step.value);
  return step.value;
}

/** The checks in order; yields each verification and is resumed with its settled result. */
function* evaluate(req: Request, operation: GatewayOperation, verifier: JwtVerifier): Steps {
  let best: AuthResult | undefined;
  for (const requirement of operation.security) {
    if (requirement.schemes.length === 0) return { ok: true, claims: undefined, payloadSegment: undefined };
    let result: AuthResult | undefined;
    let first: AuthResult | undefined;
    for (const { scheme, scopes } of requirement.schemes) {
      const token = findToken(req, scheme.jwtLocations);
      if (token === undefined) {
        const reason = JwtRejectionReasons.MISSING_CREDENTIALS;
        result = failure('missing_credentials', reason, unauthenticated(reason, false));
        break;
      }
      const verification = yield verifier.verify(token, scheme);
      if (!verification.ok) {
        result = failure(verification.outcome, verification.reason, unauthenticated(verification.reason, true));
        break;
      }
      if (scopes.length > 0 && !hasScopes(verification.claims, scopes)) {
        const error = insufficientScope(scopes);
        result = failure('insufficient_scope', error.errorDescription, error);
        break;
      }
      first ??= { ok: true, claims: verification.claims, payloadSegment: verification.payloadSegment };
    }
    if (!result && first) return first;
    if (result && !result.ok) {
      const rank = (outcome: AuthOutcome) => OUTCOME_RANK[outcome] ?? 2;
      if (!best || best.ok || rank(result.outcome) > rank(best.outcome)) best = result;
    }
  }
  return best ?? failure('missing_credentials', JwtRejectionReasons.MISSING_CREDENTIALS, unauthenticated(JwtRejectionReasons.MISSING_CREDENTIALS, false));
}
