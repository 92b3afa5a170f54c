import type { SecurityRequirements } from '@smsauth/service-kit';

// What the OAuth endpoints' declarations share (passwordless start, /oauth/ro, /oauth/token,
// /oauth/revoke): how a client authenticates, and the headers of an answer that must not be cached.

/** Client authentication, as each client's token_endpoint_auth_method demands. */
export const CLIENT_AUTHENTICATION =
  'Clients authenticate as their `token_endpoint_auth_method` says: `client_secret` in the body or HTTP Basic (`client_secret_post` / `client_secret_basic`), ' +
  'or `client_assertion` + `client_assertion_type=urn:ietf:params:oauth:client-assertion-type:jwt-bearer` (`private_key_jwt`: RS256, RS384, PS256 or ES256, ' +
  '`iss` = `sub` = client_id, `aud` = the issuer or the token URL, `exp` at most 5 minutes ahead, a `jti` used once); `none` clients send only `client_id` ' +
  'and are refused if they send a credential. Any failure is the same 401 `invalid_client`.';

// No scheme for client_secret_post or private_key_jwt: OpenAPI has none for a body field, and an
// apiKey stand-in would have generated clients put the secret in the URL. The body schemas have them.
export const CLIENT_SECURITY: SecurityRequirements = [{}, { clientSecretBasic: [] }];

/** JSON and form bodies (the token endpoints and start accept both). */
export const JSON_OR_FORM = ['application/json', 'application/x-www-form-urlencoded'] as const;

/** Token responses (and errors) must not be cached (RFC 6749 §5.1). */
export const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };
export const NO_STORE_HEADERS = { 'Cache-Control': { description: '`no-store`', schema: { type: 'string' } } };
