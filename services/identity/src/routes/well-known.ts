import { CLIENT_ASSERTION_ALGORITHMS, TOKEN_ENDPOINT_AUTH_METHODS, type OpenIdConfiguration } from '@smsauth/contracts';
import { Router } from 'express';
import { CODE_CHALLENGE_METHODS, RESPONSE_TYPES } from '../domain/authorize/request';
import { RESPONSE_MODES } from '../domain/authorize/response';
import type { TokenGrantRegistry } from '../domain/oauth/token-grants';
import { USER_SCOPES } from '../domain/oauth/user-tokens';
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
      // The hosted login (code flow with PKCE, implicit flow), named by the gateway's OpenAPI security definition (spec 2.7).
      authorization_endpoint: `${base}/authorize`,
      token_endpoint: `${base}/oauth/token`,
      userinfo_endpoint: `${base}/userinfo`,
      revocation_endpoint: `${base}/oauth/revoke`,
      // OpenID Connect RP-initiated logout (id_token_hint, post_logout_redirect_uri); /v2/logout is Auth0's own.
      end_session_endpoint: `${base}/oidc/logout`,
      // implicit is granted at /authorize, not at the token endpoint.
      grant_types_supported: [...deps.grants.grantTypes(), 'implicit'],
      response_types_supported: [...RESPONSE_TYPES],
      response_modes_supported: [...RESPONSE_MODES],
      code_challenge_methods_supported: [...CODE_CHALLENGE_METHODS],
      request_parameter_supported: false,
      claims_parameter_supported: false,
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['RS256'],
      token_endpoint_auth_methods_supported: [...TOKEN_ENDPOINT_AUTH_METHODS],
      token_endpoint_auth_signing_alg_values_supported: [...CLIENT_ASSERTION_ALGORITHMS],
      revocation_endpoint_auth_methods_supported: [...TOKEN_ENDPOINT_AUTH_METHODS],
      scopes_supported: [...USER_SCOPES],
      claims_supported: ['aud', 'auth_time', 'exp', 'iat', 'iss', 'sub', 'sid', 'azp', 'nonce', 'phone_number', 'phone_number_verified'],
    } satisfies OpenIdConfiguration);
  });
  return router;
}
