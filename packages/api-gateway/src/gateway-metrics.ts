import { Counter, type Registry } from 'prom-client';

/** Why a call was allowed or refused; the label of `gateway_auth_total`. */
export type AuthOutcome =
  | 'allowed'
  | 'missing_credentials'
  | 'bad_format'
  | 'issuer_not_allowed'
  | 'audience_not_allowed'
  | 'time_constraint_failure'
  | 'signature_failed'
  | 'key_not_found'
  | 'key_unavailable'
  | 'insufficient_scope';

export type JwksFetchOutcome = 'success' | 'no_keys' | 'failure';

export interface GatewayMetrics {
  auth: Counter<'outcome'>;
  jwksFetch: Counter<'jwks_uri' | 'outcome'>;
  signatureVerifications: Counter;
  tokenCache: Counter<'result'>;
}

/** Registers the gateway's counters on the app's registry (one registry per app). */
export function createGatewayMetrics(registry: Registry): GatewayMetrics {
  const registers = [registry];
  return {
    auth: new Counter({
      name: 'gateway_auth_total',
      help: 'JWT checks on protected operations, by outcome (allowed or the rejection cause)',
      labelNames: ['outcome'] as const,
      registers,
    }),
    jwksFetch: new Counter({
      name: 'gateway_jwks_fetch_total',
      help: 'JWKS fetches, by JWKS URI and outcome (success, no_keys, failure)',
      labelNames: ['jwks_uri', 'outcome'] as const,
      registers,
    }),
    signatureVerifications: new Counter({
      name: 'gateway_jwt_signature_verifications_total',
      help: 'Signature verifications performed (verified-token cache misses that reached a key)',
      registers,
    }),
    tokenCache: new Counter({
      name: 'gateway_token_cache_total',
      help: 'Verified-token cache lookups, by result (hit or miss)',
      labelNames: ['result'] as const,
      registers,
    }),
  };
}
