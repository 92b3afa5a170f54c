import { CLIENT_ASSERTION_ALGORITHMS, JwksSchema, OpenIdConfigurationSchema, TOKEN_ENDPOINT_AUTH_METHODS, type OpenIdConfiguration } from '@smsauth/contracts';
import { defineOperation, mountOperations, type Operation } from '@smsauth/service-kit';
import { Router } from 'express';
import { CODE_CHALLENGE_METHODS, RESPONSE_TYPES } from '../domain/authorize/request';
import { ACR_VALUES_SUPPORTED } from '../domain/authorize/requested-claims';
import { RESPONSE_MODES } from '../domain/authorize/response';
import type { TokenGrantRegistry } from '../domain/oauth/token-grants';
import { USER_SCOPES } from '../domain/oauth/user-tokens';
import type { KeyRing } from '../domain/tokens/key-ring';
import { NO_BODY_ERRORS } from './management/responses';

/** Verifiers (the API gateway) cache the key set this long; a rotation keeps the old key published anyway. */
const JWKS_MAX_AGE_SECONDS = 300;
const CACHED = { 'Cache-Control': { description: '`public, max-age=300`', schema: { type: 'string' } } };

export interface WellKnownDependencies {
  keyRing: KeyRing;
  grants: TokenGrantRegistry;
  authUrl: string;
  issuer: string;
}

/** `/.well-known/jwks.json` and `/.well-known/openid-configuration`. */
export function wellKnownOperations(deps: WellKnownDependencies): Operation[] {
  const tags = ['Discovery'];
  return [
    defineOperation({
      method: 'get',
      path: '/.well-known/jwks.json',
      operationId: 'jwks',
      tags,
      summary: 'The public signing keys: current, next (published before it signs) and previous, each with `x5c` and `x5t`',
      responses: { '200': { description: 'Key set.', headers: CACHED, schema: JwksSchema, component: 'Jwks' }, ...NO_BODY_ERRORS },
      handle: ({ res }) => {
        res.set('Cache-Control', `public, max-age=${JWKS_MAX_AGE_SECONDS}`);
        return deps.keyRing.jwks();
      },
    }),
    defineOperation({
      method: 'get',
      path: '/.well-known/openid-configuration',
      operationId: 'openidConfiguration',
      tags,
      summary: 'OpenID Connect discovery document',
      responses: { '200': { description: 'Discovery document.', headers: CACHED, schema: OpenIdConfigurationSchema, component: 'OpenIdConfiguration' } },
      handle: ({ res }): OpenIdConfiguration => {
        const base = deps.authUrl;
        res.set('Cache-Control', `public, max-age=${JWKS_MAX_AGE_SECONDS}`);
        return {
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
          request_uri_parameter_supported: false,
          // OIDC Core §5.5: user claims asked for by name are released at UserInfo and in the ID token (docs/hosted-login.md).
          claims_parameter_supported: true,
          acr_values_supported: [...ACR_VALUES_SUPPORTED],
          authorization_response_iss_parameter_supported: true,
          // Sessions ending tell the clients they signed in to (oidc_logout), with the sid their ID tokens carry.
          backchannel_logout_supported: true,
          backchannel_logout_session_supported: true,
          frontchannel_logout_supported: true,
          frontchannel_logout_session_supported: true,
          subject_types_supported: ['public'],
          id_token_signing_alg_values_supported: ['RS256'],
          token_endpoint_auth_methods_supported: [...TOKEN_ENDPOINT_AUTH_METHODS],
          token_endpoint_auth_signing_alg_values_supported: [...CLIENT_ASSERTION_ALGORITHMS],
          revocation_endpoint_auth_methods_supported: [...TOKEN_ENDPOINT_AUTH_METHODS],
          scopes_supported: [...USER_SCOPES],
          claims_supported: ['aud', 'auth_time', 'exp', 'iat', 'iss', 'sub', 'sid', 'azp', 'nonce', 'acr', 'at_hash', 'name', 'nickname', 'updated_at', 'phone_number', 'phone_number_verified'],
        };
      },
    }),
  ];
}

export function wellKnownRouter(deps: WellKnownDependencies, operations = wellKnownOperations(deps)): Router {
  return mountOperations(Router(), operations);
}
