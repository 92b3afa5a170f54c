import { CLIENT_ASSERTION_ALGORITHMS, TOKEN_ENDPOINT_AUTH_METHODS, type OpenIdConfiguration } from '@smsauth/contracts';
import { Router } from 'express';
import type { TokenGrantRegistry } from '../domain/oauth/token-grants';
import type { KeyRing } from '../domain/tokens/key-ring';

/** Verifiers (the API gateway) cache the key set this long; a rotation keeps the old key published anyway. */
const JWKS_MAX_AGE_SECONDS = 300;

export function wellKnownRouter(deps: { keyRing: KeyRing; grants: TokenGrantRegistry; authUrl: string; issuer: string }): Router {
  const router = Router();
  router.get('/.well-known/jwks.json', async (_req, res) => {
    res.set('Cache-Control', `public, max-age=${JWKS_MAX_AGE_SECONDS}`);
    res.json(await deps.keyRing.jwks());
  });
  router.get('/.well-known/openid-configuration', (_req, res) => {
    const base = deps.authUrl;
    res.set('Cache-Control', `public, max-age=${JWKS_MAX_AGE_SECONDS}`);
    res.json({
      issuer: deps.issuer,
      jwks_uri: `${base}/.well-known/jwks.json`,
      // The hosted login page (implicit flow), named by the gateway's OpenAPI security definition (spec 2.7).
      authorization_endpoint: `${base}/authorize`,
      token_endpoint: `${base}/oauth/token`,
      userinfo_endpoint: `${base}/userinfo`,
      revocation_endpoint: `${base}/oauth/revoke`,
      end_session_endpoint: `${base}/v2/logout`,
      grant_types_supported: deps.grants.grantTypes(),
      response_types_supported: ['token', 'id_token', 'token id_token'],
      response_modes_supported: ['fragment'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['RS256'],
      token_endpoint_auth_methods_supported: [...TOKEN_ENDPOINT_AUTH_METHODS],
      token_endpoint_auth_signing_alg_values_supported: [...CLIENT_ASSERTION_ALGORITHMS],
      revocation_endpoint_auth_methods_supported: [...TOKEN_ENDPOINT_AUTH_METHODS],
      scopes_supported: ['openid', 'phone', 'offline_access'],
      claims_supported: ['aud', 'exp', 'iat', 'iss', 'sub', 'azp', 'nonce', 'phone_number', 'phone_number_verified'],
    } satisfies OpenIdConfiguration);
  });
  return router;
}
