import { z } from 'zod';

// Token requests are not strict: RFC 6749 §3.2 says unrecognized parameters MUST be ignored.
// `username` and codes stay plain strings: the identity service reads `username` with
// libphonenumber (400 invalid_request saying what is wrong when it is not a valid number);
// a malformed code is a wrong credential (401/invalid_grant with WRONG_CODE_DESCRIPTION).

/**
 * Client authentication fields of a body (client_secret_post, or private_key_jwt's assertion);
 * which ones a client must send is its token_endpoint_auth_method, checked by the service.
 */
const clientAuthenticationFields = {
  client_secret: z.string().optional(),
  client_assertion: z.string().optional(),
  client_assertion_type: z.string().optional(),
};

/** 2.5: legacy resource-owner endpoint `POST /oauth/ro`. */
export const RoTokenRequestSchema = z.object({
  client_id: z.string().min(1),
  connection: z.string().min(1),
  grant_type: z.literal('password'),
  /** The phone number. */
  username: z.string().min(1),
  /** The one-time code. */
  password: z.string().min(1),
  scope: z.string().default('openid'),
  device: z.string().optional(),
  id_token: z.string().optional(),
  ...clientAuthenticationFields,
});
export type RoTokenRequest = z.infer<typeof RoTokenRequestSchema>;

/** 2.6 (lower-case `bearer`, as shown). */
export const RoTokenResponseSchema = z.object({
  id_token: z.string().optional(),
  access_token: z.string(),
  token_type: z.literal('bearer'),
  refresh_token: z.string().optional(),
});
export type RoTokenResponse = z.infer<typeof RoTokenResponseSchema>;

export const PASSWORDLESS_OTP_GRANT = 'http://auth0.com/oauth/grant-type/passwordless/otp';

/** `POST /oauth/token`, passwordless one-time-code grant; `realm` is the connection name. */
export const OtpGrantRequestSchema = z.object({
  grant_type: z.literal(PASSWORDLESS_OTP_GRANT),
  client_id: z.string().min(1),
  username: z.string().min(1),
  otp: z.string().min(1),
  realm: z.string().min(1),
  audience: z.string().optional(),
  scope: z.string().optional(),
  ...clientAuthenticationFields,
});
export type OtpGrantRequest = z.infer<typeof OtpGrantRequestSchema>;

/** `client_assertion_type` of private_key_jwt (RFC 7523 §2.2). */
export const JWT_BEARER_ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';


/** Machine-to-machine token for an API (an API's "test token"). */
export const ClientCredentialsRequestSchema = z.object({
  grant_type: z.literal('client_credentials'),
  client_id: z.string().min(1),
  /** Or HTTP Basic, or client_assertion (private_key_jwt). */
  client_secret: z.string().min(1).optional(),
  client_assertion: z.string().optional(),
  client_assertion_type: z.string().optional(),
  audience: z.string().min(1),
  scope: z.string().optional(),
});
export type ClientCredentialsRequest = z.infer<typeof ClientCredentialsRequestSchema>;

export const RefreshTokenRequestSchema = z.object({
  grant_type: z.literal('refresh_token'),
  client_id: z.string().min(1),
  refresh_token: z.string().min(1),
  ...clientAuthenticationFields,
});
export type RefreshTokenRequest = z.infer<typeof RefreshTokenRequestSchema>;

/**
 * `grant_type=authorization_code` (RFC 6749 §4.1.3, RFC 7636): the code /authorize sent to
 * `redirect_uri`, with the PKCE `code_verifier` (43-128 characters of [A-Za-z0-9-._~]).
 */
export const AuthorizationCodeRequestSchema = z.object({
  grant_type: z.literal('authorization_code'),
  client_id: z.string().min(1),
  code: z.string().min(1).max(512),
  redirect_uri: z.string().min(1).max(2048).optional(),
  code_verifier: z
    .string()
    .regex(/^[A-Za-z0-9._~-]{43,128}$/, { message: 'must be 43-128 characters of A-Z a-z 0-9 - . _ ~' })
    .optional(),
  ...clientAuthenticationFields,
});
export type AuthorizationCodeRequest = z.infer<typeof AuthorizationCodeRequestSchema>;

/**
 * `POST /oauth/revoke` (RFC 7009, Auth0's shape): a refresh token of the calling client.
 * `client_id` may come from HTTP Basic or the assertion instead.
 */
export const RevokeRequestSchema = z.object({
  client_id: z.string().min(1).optional(),
  token: z.string().min(1),
  token_type_hint: z.string().optional(),
  ...clientAuthenticationFields,
});
export type RevokeRequest = z.infer<typeof RevokeRequestSchema>;

/** `GET /v2/logout` query. */
export const LogoutQuerySchema = z.object({
  client_id: z.string().optional(),
  returnTo: z.string().optional(),
  federated: z.string().optional(),
});
export type LogoutQuery = z.infer<typeof LogoutQuerySchema>;

/** OpenID Connect RP-Initiated Logout 1.0 at the end_session_endpoint (`/oidc/logout`). */
export const OidcLogoutQuerySchema = z.object({
  id_token_hint: z.string().max(8192).optional(),
  client_id: z.string().optional(),
  post_logout_redirect_uri: z.string().max(2048).optional(),
  state: z.string().max(2048).optional(),
  logout_hint: z.string().optional(),
  ui_locales: z.string().optional(),
});
export type OidcLogoutQuery = z.infer<typeof OidcLogoutQuerySchema>;

/**
 * Any `/oauth/token` body. An unknown `grant_type` fails with an issue at path
 * `grant_type` (code `invalid_union`): answer `unsupported_grant_type`.
 */
export const OAuthTokenRequestSchema = z.discriminatedUnion('grant_type', [
  OtpGrantRequestSchema,
  ClientCredentialsRequestSchema,
  RefreshTokenRequestSchema,
  AuthorizationCodeRequestSchema,
]);
export type OAuthTokenRequest = z.infer<typeof OAuthTokenRequestSchema>;

export const OAuthTokenResponseSchema = z.object({
  access_token: z.string(),
  id_token: z.string().optional(),
  token_type: z.literal('Bearer'),
  /** Seconds. */
  expires_in: z.int().positive(),
  refresh_token: z.string().optional(),
  scope: z.string().optional(),
});
export type OAuthTokenResponse = z.infer<typeof OAuthTokenResponseSchema>;

/** The claims the access token's scopes release: `profile` (name, nickname, updated_at), `phone`. */
export const UserInfoResponseSchema = z.object({
  sub: z.string(),
  /** `profile`: the phone number, the only name an SMS user has. */
  name: z.string().optional(),
  /** `profile`: the phone number. */
  nickname: z.string().optional(),
  /** `profile`: seconds since the epoch. */
  updated_at: z.int().nonnegative().optional(),
  /** `phone`. */
  phone_number: z.string().optional(),
  /** `phone`. */
  phone_number_verified: z.boolean().optional(),
});
export type UserInfoResponse = z.infer<typeof UserInfoResponseSchema>;

/** Seconds since the epoch. */
const NumericDateSchema = z.int().nonnegative();

/** ID token claims; `aud` is the client_id, `iss` is `{auth_url}/` with the trailing slash. */
export const IdTokenClaimsSchema = z.object({
  iss: z.string(),
  sub: z.string(),
  aud: z.string(),
  iat: NumericDateSchema,
  exp: NumericDateSchema,
  /** `profile` (docs/identity.md, "Claims by scope"): the number, the only name an SMS user has. */
  name: z.string().optional(),
  nickname: z.string().optional(),
  updated_at: NumericDateSchema.optional(),
  /** `phone`. */
  phone_number: z.string().optional(),
  phone_number_verified: z.boolean().optional(),
  nonce: z.string().optional(),
  /** When the user proved the number (the login session's start). */
  auth_time: NumericDateSchema.optional(),
  /** The login session the token came from. */
  sid: z.string().optional(),
});
export type IdTokenClaims = z.infer<typeof IdTokenClaimsSchema>;

/** Access token claims; M2M tokens have `sub` `<client_id>@clients` and `gty` `client-credentials`. */
export const AccessTokenClaimsSchema = z.object({
  iss: z.string(),
  sub: z.string(),
  aud: z.union([z.string(), z.array(z.string()).min(1)]),
  azp: z.string().optional(),
  scope: z.string().optional(),
  iat: NumericDateSchema,
  exp: NumericDateSchema,
  gty: z.string().optional(),
});
export type AccessTokenClaims = z.infer<typeof AccessTokenClaimsSchema>;

/** HS256 token on delivery requests when `options.gateway_authentication` is set. */
export const GatewayDeliveryTokenClaimsSchema = z.object({
  sub: z.string(),
  aud: z.string(),
  iat: NumericDateSchema,
  exp: NumericDateSchema,
});
export type GatewayDeliveryTokenClaims = z.infer<typeof GatewayDeliveryTokenClaimsSchema>;

/** `GET /.well-known/openid-configuration` (OpenID Connect Discovery 1.0 §3). */
export const OpenIdConfigurationSchema = z.object({
  issuer: z.string(),
  jwks_uri: z.string(),
  authorization_endpoint: z.string(),
  token_endpoint: z.string(),
  userinfo_endpoint: z.string(),
  revocation_endpoint: z.string(),
  end_session_endpoint: z.string(),
  grant_types_supported: z.array(z.string()),
  response_types_supported: z.array(z.string()),
  response_modes_supported: z.array(z.string()),
  subject_types_supported: z.array(z.string()),
  id_token_signing_alg_values_supported: z.array(z.string()),
  token_endpoint_auth_methods_supported: z.array(z.string()),
  token_endpoint_auth_signing_alg_values_supported: z.array(z.string()),
  revocation_endpoint_auth_methods_supported: z.array(z.string()),
  code_challenge_methods_supported: z.array(z.string()),
  request_parameter_supported: z.boolean(),
  /** Stated false: its default when left out is true (OpenID Connect Discovery §3). */
  request_uri_parameter_supported: z.boolean(),
  claims_parameter_supported: z.boolean(),
  /** The acr values an ID token may carry when asked for (acr_values or the claims parameter). */
  acr_values_supported: z.array(z.string()),
  /** RFC 9207: authorization responses carry `iss`. */
  authorization_response_iss_parameter_supported: z.boolean(),
  /** OpenID Connect Back-Channel Logout 1.0: a logout_token (with `sid`) POSTed to clients' oidc_logout.backchannel_logout_urls. */
  backchannel_logout_supported: z.boolean(),
  backchannel_logout_session_supported: z.boolean(),
  /** OpenID Connect Front-Channel Logout 1.0: the logout page frames clients' oidc_logout.frontchannel_logout_url (with `iss` and `sid`). */
  frontchannel_logout_supported: z.boolean(),
  frontchannel_logout_session_supported: z.boolean(),
  scopes_supported: z.array(z.string()),
  claims_supported: z.array(z.string()),
});
export type OpenIdConfiguration = z.infer<typeof OpenIdConfigurationSchema>;
