import { z } from 'zod';
import { PASSWORDLESS_OTP_GRANT } from './token';
import { auth0ClientSettingsFields, JwtConfigurationSchema, offOnlyClientFields } from './auth0-client-settings';

// Management API (`/api/v2`) records and request bodies other than connections (connection.ts).
// Bodies are strict: a misspelt field is a 400 naming it, as in the reference product.

/** Management API scopes: create/read/update/delete on each resource. */
export const MANAGEMENT_RESOURCES = [
  'connections',
  'clients',
  'resource_servers',
  'client_grants',
  'users',
  'user_blocks',
  'signing_keys',
  'client_credentials',
  'log_streams',
  'sessions',
  // The SMS fraud guard's blocked prefixes (GET and DELETE /connections/{id}/sms-fraud-blocks).
  'sms_fraud_blocks',
  'roles',
  // Who holds a role or a direct permission: kept apart from update:users, so that an operator
  // who may block users cannot give themselves more rights.
  'role_members',
] as const;
export const MANAGEMENT_SCOPES: readonly string[] = [
  ...MANAGEMENT_RESOURCES.flatMap((resource) => ['create', 'read', 'update', 'delete'].map((action) => `${action}:${resource}`)),
  // Tenant logs are written by the events themselves; the API only reads them.
  'read:logs',
  // Figures computed from what the service records; nothing to write.
  'read:stats',
  // Singletons of the tenant (Auth0's names): read and update only.
  'read:branding',
  'update:branding',
  'read:prompts',
  'update:prompts',
  'read:tenant_settings',
  'update:tenant_settings',
];

/** The legacy resource-owner grant (`POST /oauth/ro`), named as in the reference product. */
export const LEGACY_RO_GRANT = 'http://auth0.com/oauth/legacy/grant-type/ro';

export const GRANT_TYPES = [
  'authorization_code',
  'implicit',
  'client_credentials',
  'refresh_token',
  PASSWORDLESS_OTP_GRANT,
  LEGACY_RO_GRANT,
] as const;
export const GrantTypeSchema = z.enum(GRANT_TYPES);

export const AppTypeSchema = z.enum(['native', 'spa', 'regular_web', 'non_interactive']);
export type AppType = z.infer<typeof AppTypeSchema>;

/** Confidential clients hold a secret; native and spa clients cannot keep one. */
export const CONFIDENTIAL_APP_TYPES: readonly AppType[] = ['regular_web', 'non_interactive'];

/** grant_types when a create body leaves them out. */
export const DEFAULT_GRANT_TYPES: Record<AppType, readonly string[]> = {
  native: ['authorization_code', 'implicit', PASSWORDLESS_OTP_GRANT, LEGACY_RO_GRANT, 'refresh_token'],
  spa: ['authorization_code', 'implicit', PASSWORDLESS_OTP_GRANT, LEGACY_RO_GRANT, 'refresh_token'],
  regular_web: ['authorization_code', 'implicit', PASSWORDLESS_OTP_GRANT, LEGACY_RO_GRANT, 'refresh_token', 'client_credentials'],
  non_interactive: ['client_credentials'],
};

const HttpUrlSchema = z.url({ protocol: /^https?$/, message: 'must be an http: or https: URL' });

/**
 * How a client authenticates at /passwordless/start, /oauth/token, /oauth/ro and /oauth/revoke.
 * Auth0's client schema names the first three; `private_key_jwt` is Auth0's
 * `client_authentication_methods.private_key_jwt` (also accepted here by name).
 */
export const TOKEN_ENDPOINT_AUTH_METHODS = ['none', 'client_secret_post', 'client_secret_basic', 'private_key_jwt'] as const;
export const TokenEndpointAuthMethodSchema = z.enum(TOKEN_ENDPOINT_AUTH_METHODS);
export type TokenEndpointAuthMethod = z.infer<typeof TokenEndpointAuthMethodSchema>;

/** Signature algorithms of a client assertion (Auth0 names RS256, RS384, PS256; ES256 added). */
export const CLIENT_ASSERTION_ALGORITHMS = ['RS256', 'RS384', 'PS256', 'ES256'] as const;
export const ClientAssertionAlgorithmSchema = z.enum(CLIENT_ASSERTION_ALGORITHMS);
export type ClientAssertionAlgorithm = z.infer<typeof ClientAssertionAlgorithmSchema>;

/** `POST /api/v2/clients/{id}/credentials` (Auth0's shape): a public key for private_key_jwt. */
export const ClientCredentialCreateSchema = z.strictObject({
  credential_type: z.literal('public_key', { message: 'only public_key credentials are supported' }),
  name: z.string().trim().min(1).max(128).optional(),
  /** PEM of an SPKI public key or of an X.509 certificate; never a private key. */
  pem: z
    .string()
    .min(1)
    .max(20_000)
    .describe(
      'PEM of a public key (SPKI) or an X.509 certificate, never a private key: an RSA key of at least 2048 bits for RS256, RS384 and PS256, an EC P-256 key for ES256. parse_expiry_from_cert needs a certificate.',
    ),
  alg: ClientAssertionAlgorithmSchema.default('RS256'),
  /** With a certificate: take expires_at from its notAfter. */
  parse_expiry_from_cert: z.boolean().optional(),
  expires_at: z.iso.datetime({ offset: true }).optional(),
});
export type ClientCredentialCreate = z.infer<typeof ClientCredentialCreateSchema>;

/** `PATCH /api/v2/clients/{id}/credentials/{credential_id}` (Auth0's shape); `null` removes the expiry. */
export const ClientCredentialUpdateSchema = z.strictObject({
  expires_at: z.iso.datetime({ offset: true }).nullable(),
});
export type ClientCredentialUpdate = z.infer<typeof ClientCredentialUpdateSchema>;

export const ClientCredentialRecordSchema = z.object({
  id: z.string(),
  credential_type: z.literal('public_key'),
  name: z.string().optional(),
  /** RFC 7638 thumbprint of the key; an assertion may name it in its `kid` header. */
  kid: z.string(),
  alg: ClientAssertionAlgorithmSchema,
  created_at: z.string(),
  updated_at: z.string(),
  expires_at: z.string().optional(),
});
export type ClientCredentialRecord = z.infer<typeof ClientCredentialRecordSchema>;

/**
 * Auth0's `client_authentication_methods`: on create, full credentials to register; on update,
 * ids of credentials already registered on the client. Either sets the method to private_key_jwt.
 */
const ClientAuthenticationMethodsCreateSchema = z.strictObject({
  private_key_jwt: z.strictObject({ credentials: z.array(ClientCredentialCreateSchema).min(1).max(10) }),
});
const ClientAuthenticationMethodsUpdateSchema = z.strictObject({
  private_key_jwt: z.strictObject({ credentials: z.array(z.strictObject({ id: z.string().min(1) })).min(1).max(10) }),
});

/** A host as an origin spells it: lower-case DNS labels (the last not numeric) or dotted IPv4. */
const ORIGIN_HOST =
  '(?:(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\\.)*[a-z](?:[a-z0-9-]{0,61}[a-z0-9])?|(?:(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)\\.){3}(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d))';
const ORIGIN_PORT = '(?::(?:[1-9]\\d{0,3}|[1-5]\\d{4}|6[0-4]\\d{3}|65[0-4]\\d{2}|655[0-2]\\d|6553[0-5]))?';
/** The rule WebOriginSchema's refinement checks, as the pattern the API document states (a default port is not part of an origin). */
export const WEB_ORIGIN_PATTERN = `^(?:https://${ORIGIN_HOST}(?!:443(?:/|$))|http://${ORIGIN_HOST}(?!:80(?:/|$)))${ORIGIN_PORT}/?$`;

/** A web origin: scheme, host and port, nothing else (`https://app.example.com`). */
const WebOriginSchema = z
  .string()
  .max(200)
  .refine(
    (value) => {
      try {
        const url = new URL(value);
        return (url.protocol === 'https:' || url.protocol === 'http:') && url.origin === value.replace(/\/$/, '');
      } catch {
        return false;
      }
    },
    { message: 'must be an origin: http(s)://host[:port], without path, query or fragment' },
  )
  .meta({ pattern: WEB_ORIGIN_PATTERN });

/** Seconds of a refresh token lifetime: 1 second to 3 years, as Auth0 bounds them. */
const RefreshLifetimeSchema = z.int().min(1).max(94_608_000);

/**
 * Auth0's client `refresh_token` settings. `rotation_type` rotating: every use answers a new
 * refresh token and the used one may be presented again only within `leeway` seconds (later:
 * reuse, the family is revoked); non-rotating: the same token keeps working. `expiration_type`
 * expiring: the family ends `token_lifetime` seconds after the login and a token unused for
 * `idle_token_lifetime` seconds expires (`infinite_*` lifts either bound); non-expiring: neither.
 */
export const RefreshTokenSettingsSchema = z.strictObject({
  rotation_type: z.enum(['rotating', 'non-rotating']),
  expiration_type: z.enum(['expiring', 'non-expiring']),
  leeway: z.int().min(0).max(60).default(0),
  token_lifetime: RefreshLifetimeSchema.default(2_592_000),
  infinite_token_lifetime: z.boolean().default(true),
  idle_token_lifetime: RefreshLifetimeSchema.default(2_592_000),
  infinite_idle_token_lifetime: z.boolean().default(false),
});
export type RefreshTokenSettings = z.infer<typeof RefreshTokenSettingsSchema>;

/** What a client without `refresh_token` settings gets: rotating, expiring after 30 idle days, no absolute bound. */
export const DEFAULT_REFRESH_TOKEN_SETTINGS: RefreshTokenSettings = {
  rotation_type: 'rotating',
  expiration_type: 'expiring',
  leeway: 0,
  token_lifetime: 2_592_000,
  infinite_token_lifetime: true,
  idle_token_lifetime: 2_592_000,
  infinite_idle_token_lifetime: false,
};

/** Every field of a shape, optional. */
function optionalFields<T extends Record<string, z.ZodType>>(fields: T): { [K in keyof T]: z.ZodOptional<T[K]> } {
  return Object.fromEntries(Object.entries(fields).map(([name, schema]) => [name, schema.optional()])) as { [K in keyof T]: z.ZodOptional<T[K]> };
}
/** A host a browser and this service reach on the same machine: the only one a logout URL may name over plain http. */
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * A URL this service calls (back-channel) or frames (front-channel) to sign a user out of an
 * application: https, or http to localhost only (local development). No fragment.
 */
const LogoutUrlSchema = z
  .string()
  .max(2048)
  .refine(
    (value) => {
      try {
        const url = new URL(value);
        if (url.hash !== '' || url.username !== '' || url.password !== '') return false;
        return url.protocol === 'https:' || (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname));
      } catch {
        return false;
      }
    },
    { message: 'must be an https: URL (http: only for localhost), without fragment or credentials' },
  )
  .describe('An https: URL (http: only for localhost, 127.0.0.1 or [::1]), without fragment or credentials.');

/**
 * Auth0's back-channel logout initiators (the session-ending events a client is told about).
 * Here: `rp-logout` (/v2/logout, /oidc/logout), `session-revoked` (a session deleted through the
 * management API, or replaced by a new sign-in in the same browser), `account-deleted`,
 * `account-deactivated` (the user blocked), `session-expired` (an expired session cleaned up).
 * The others are accepted and never happen here (no password, email or external IdP).
 */
export const BACKCHANNEL_LOGOUT_INITIATORS = [
  'rp-logout',
  'idp-logout',
  'password-changed',
  'session-expired',
  'session-revoked',
  'account-deleted',
  'email-identifier-changed',
  'mfa-phone-unenrolled',
  'account-deactivated',
] as const;
export const BackchannelLogoutInitiatorSchema = z.enum(BACKCHANNEL_LOGOUT_INITIATORS);
export type BackchannelLogoutInitiator = z.infer<typeof BackchannelLogoutInitiatorSchema>;

/**
 * Auth0's client `oidc_logout` (OpenID Connect Back-Channel Logout 1.0), plus this service's
 * front-channel fields (OpenID Connect Front-Channel Logout 1.0; Auth0 has none).
 */
export const OidcLogoutSettingsSchema = z.strictObject({
  backchannel_logout_urls: z
    .array(LogoutUrlSchema)
    .max(1)
    .default([])
    .describe('Where a logout_token is POSTed when a session this client signed in to ends (at most one URL, as at Auth0).'),
  backchannel_logout_initiators: z
    .strictObject({
      mode: z.enum(['custom', 'all']).describe('all: every session-ending event; custom: rp-logout and idp-logout, and the selected_initiators.'),
      selected_initiators: z.array(BackchannelLogoutInitiatorSchema).max(BACKCHANNEL_LOGOUT_INITIATORS.length).optional(),
    })
    .optional()
    .describe('Which session-ending events send a logout_token. Without it: custom with none selected, so only RP-initiated logout.'),
  backchannel_logout_session_metadata: z
    .strictObject({ include: z.boolean() })
    .nullable()
    .optional()
    .describe("Auth0's switch for session metadata in the logout_token: stored and shown; sessions here carry no metadata, so the token never has any."),
  frontchannel_logout_url: LogoutUrlSchema.optional().describe(
    'Not an Auth0 field. Framed (hidden iframe) by the logout page of /v2/logout and /oidc/logout when a session this client signed in to ends there (OpenID Connect Front-Channel Logout).',
  ),
  frontchannel_logout_session_required: z
    .boolean()
    .optional()
    .describe('Not an Auth0 field. true (the default here): the front-channel URL gets `iss` and `sid` in its query; false: the URL as registered.'),
});
export type OidcLogoutSettings = z.output<typeof OidcLogoutSettingsSchema>;

/** Auth0's older name of oidc_logout (back-channel URLs only); still accepted on create and update. */
const LegacyBackchannelLogoutSchema = z.strictObject({ backchannel_logout_urls: z.array(LogoutUrlSchema).max(1) });

/** Auth0's older name of cross_origin_authentication, still in its answers and so in exported files. */
const CrossOriginAuthSchema = z
  .boolean()
  .describe("Deprecated (Auth0's older name): sets cross_origin_authentication; with it, both must be equal.");

const clientFields = {
  name: z.string().trim().min(1).max(128),
  app_type: AppTypeSchema,
  callbacks: z.array(HttpUrlSchema).max(100),
  allowed_origins: z.array(HttpUrlSchema).max(100),
  grant_types: z
    .array(GrantTypeSchema)
    .max(GRANT_TYPES.length)
    .describe(
      'client_credentials needs a confidential app_type (regular_web or non_interactive) that authenticates (token_endpoint_auth_method other than none); a non_interactive client cannot have authorization_code or implicit.',
    ),
  default_audience: z.string().min(1).max(600),
  /** Auth0 sends `null` when private_key_jwt is configured through client_authentication_methods. */
  token_endpoint_auth_method: TokenEndpointAuthMethodSchema.nullable().describe(
    'A public app_type (spa, native) can only use none. With client_authentication_methods it must be null or private_key_jwt.',
  ),
  /** Where `GET /v2/logout` may send the browser back to (compared exactly). */
  allowed_logout_urls: z.array(HttpUrlSchema).max(100),
  /** Origins whose pages may run silent authentication (response_mode=web_message) and call the token endpoint (CORS). */
  web_origins: z.array(WebOriginSchema).max(100),
  /** Where a login can be started from outside the application (Auth0's field; stored and shown). */
  initiate_login_uri: z.url({ protocol: /^https$/, message: 'must be an https: URL' }).max(2048),
  /** Auth0's free-text description of the application; stored and shown, nothing reads it. */
  description: z.string().max(140),
  /** Auth0's OIDC-conformant flag; every client here behaves conformant, the value is stored and shown. */
  oidc_conformant: z.boolean(),
  refresh_token: RefreshTokenSettingsSchema,
  oidc_logout: OidcLogoutSettingsSchema,
  oidc_backchannel_logout: LegacyBackchannelLogoutSchema.describe('Deprecated (Auth0\'s older name): sets oidc_logout.backchannel_logout_urls; not with oidc_logout.'),
  /**
   * Auth0's switch for embedded login (Lock, auth0-js `login`/`passwordlessLogin`): whether pages of
   * the client's `web_origins` / `allowed_origins` may call `POST /co/authenticate`. Off by default.
   */
  cross_origin_authentication: z
    .boolean()
    .describe('Whether the client may sign users in from its own pages (POST /co/authenticate from its web_origins / allowed_origins). Off by default.'),
  /**
   * Auth0's `cross_origin_loc`: the client's page that runs auth0-js `crossOriginVerification()`,
   * framed by `/co/verify` where the browser blocks third-party cookies.
   */
  cross_origin_loc: z
    .url({ protocol: /^https?$/, message: 'must be an http(s) URL' })
    .max(2048)
    .describe('The client\'s page that calls auth0-js crossOriginVerification(); /co/verify frames it only when its origin is one of the client\'s web_origins / allowed_origins and the login ticket\'s origin.'),
};

export const ClientCreateSchema = z.strictObject({
  name: clientFields.name,
  app_type: clientFields.app_type,
  callbacks: clientFields.callbacks.default([]),
  allowed_origins: clientFields.allowed_origins.default([]),
  grant_types: clientFields.grant_types.optional(),
  default_audience: clientFields.default_audience.optional(),
  token_endpoint_auth_method: clientFields.token_endpoint_auth_method.optional(),
  client_authentication_methods: ClientAuthenticationMethodsCreateSchema.optional(),
  allowed_logout_urls: clientFields.allowed_logout_urls.default([]),
  web_origins: clientFields.web_origins.default([]),
  initiate_login_uri: clientFields.initiate_login_uri.optional(),
  description: clientFields.description.optional(),
  oidc_conformant: clientFields.oidc_conformant.default(true),
  refresh_token: clientFields.refresh_token.nullable().optional(),
  jwt_configuration: JwtConfigurationSchema.optional(),
  ...optionalFields(auth0ClientSettingsFields),
  ...optionalFields(offOnlyClientFields),
  oidc_logout: clientFields.oidc_logout.optional(),
  oidc_backchannel_logout: clientFields.oidc_backchannel_logout.optional(),
  cross_origin_authentication: clientFields.cross_origin_authentication.optional(),
  cross_origin_auth: CrossOriginAuthSchema.optional(),
  cross_origin_loc: clientFields.cross_origin_loc.optional(),
  built_in: z
    .literal(false)
    .optional()
    .describe('Read-only: `false` is accepted, so that a tool may send back an exported client; only the service creates built-in clients.'),
});
export type ClientCreate = z.infer<typeof ClientCreateSchema>;

/** PATCH; `default_audience: null` clears it. */
export const ClientUpdateSchema = z.strictObject({
  name: clientFields.name.optional(),
  app_type: clientFields.app_type.optional(),
  callbacks: clientFields.callbacks.optional(),
  allowed_origins: clientFields.allowed_origins.optional(),
  grant_types: clientFields.grant_types.optional(),
  default_audience: clientFields.default_audience.nullable().optional(),
  token_endpoint_auth_method: clientFields.token_endpoint_auth_method.optional(),
  client_authentication_methods: ClientAuthenticationMethodsUpdateSchema.optional(),
  allowed_logout_urls: clientFields.allowed_logout_urls.optional(),
  web_origins: clientFields.web_origins.optional(),
  initiate_login_uri: clientFields.initiate_login_uri.nullable().optional(),
  description: clientFields.description.optional(),
  oidc_conformant: clientFields.oidc_conformant.optional(),
  refresh_token: clientFields.refresh_token.nullable().optional(),
  /** Replaces the stored configuration as a whole (Auth0 merges; every field here is optional either way). */
  jwt_configuration: JwtConfigurationSchema.optional(),
  ...optionalFields(auth0ClientSettingsFields),
  ...optionalFields(offOnlyClientFields),
  /** Replaces the whole object; null removes it (no logout notifications). */
  oidc_logout: clientFields.oidc_logout.nullable().optional(),
  oidc_backchannel_logout: clientFields.oidc_backchannel_logout.nullable().optional(),
  cross_origin_authentication: clientFields.cross_origin_authentication.optional(),
  cross_origin_auth: CrossOriginAuthSchema.optional(),
  cross_origin_loc: clientFields.cross_origin_loc.nullable().optional(),
  built_in: z
    .boolean()
    .optional()
    .describe("Read-only: accepted when it is the client's current value (a tool sending back what GET showed); a different value is a 400."),
});
export type ClientUpdate = z.infer<typeof ClientUpdateSchema>;

export const ClientRecordSchema = z.object({
  client_id: z.string(),
  name: z.string(),
  app_type: AppTypeSchema,
  callbacks: z.array(z.string()),
  allowed_origins: z.array(z.string()),
  grant_types: z.array(z.string()),
  default_audience: z.string().optional(),
  /**
   * Set on create/update; by default `none` for public clients, `client_secret_post` for
   * confidential ones. `null` for a private_key_jwt client, as Auth0 answers: its method is then
   * `client_authentication_methods`.
   */
  token_endpoint_auth_method: TokenEndpointAuthMethodSchema.exclude(['private_key_jwt']).nullable(),
  /** Only for private_key_jwt clients: the ids of the credentials registered on the client (Auth0's shape). */
  client_authentication_methods: z
    .object({ private_key_jwt: z.object({ credentials: z.array(z.object({ id: z.string() })) }) })
    .optional(),
  allowed_logout_urls: z.array(z.string()),
  web_origins: z.array(z.string()),
  initiate_login_uri: z.string().optional(),
  /** Absent when none was given (Auth0's dashboard shows nothing then either). */
  description: z.string().optional(),
  oidc_conformant: z.boolean(),
  /** The settings in force (the defaults when none were stored). */
  refresh_token: RefreshTokenSettingsSchema,
  /** Absent when none was stored: RS256, ID tokens for 36000 seconds. */
  jwt_configuration: JwtConfigurationSchema.optional(),
  ...optionalFields(auth0ClientSettingsFields),
  /** Present when the client registered logout URLs. */
  oidc_logout: z
    .object({
      backchannel_logout_urls: z.array(z.string()),
      backchannel_logout_initiators: z.object({ mode: z.enum(['custom', 'all']), selected_initiators: z.array(z.string()).optional() }).optional(),
      backchannel_logout_session_metadata: z.object({ include: z.boolean() }).nullable().optional(),
      frontchannel_logout_url: z.string().optional(),
      frontchannel_logout_session_required: z.boolean().optional(),
    })
    .optional(),
  cross_origin_authentication: z.boolean(),
  cross_origin_loc: z.string().optional(),
  /** Only in the responses of create and rotate-secret. */
  client_secret: z.string().optional(),
  /**
   * Not an Auth0 field; present (true) only on the clients the service keeps itself: the bootstrap
   * admin (ADMIN_CLIENT_ID: never deleted, its app_type never changed) and the console's own client
   * (created again at the next start when deleted).
   */
  built_in: z
    .literal(true)
    .optional()
    .describe('Not an Auth0 field. Present (true) only on the clients the service keeps itself: the bootstrap admin (never deleted) and the console\'s own client (created again at the next start).'),
});
export type ClientRecord = z.infer<typeof ClientRecordSchema>;

export const ResourceServerScopeSchema = z.strictObject({
  value: z.string().regex(/^[\x21-\x7e]{1,280}$/, { message: 'must be 1-280 visible characters without spaces' }),
  description: z.string().max(500).default(''),
});

const ScopesSchema = z
  .array(ResourceServerScopeSchema)
  .max(500)
  .superRefine((scopes, ctx) => {
    const seen = new Set<string>();
    scopes.forEach((scope, index) => {
      if (seen.has(scope.value)) ctx.addIssue({ code: 'custom', path: [index, 'value'], message: 'duplicate scope' });
      seen.add(scope.value);
    });
  })
  .describe('Each scope value at most once.');

/**
 * Auth0's `token_dialect`: `access_token` carries the granted scopes in `scope`;
 * `access_token_authz` adds `permissions`, every permission the user holds on the API
 * (needs enforce_policies).
 */
export const TOKEN_DIALECTS = ['access_token', 'access_token_authz'] as const;
export const TokenDialectSchema = z
  .enum(TOKEN_DIALECTS)
  .describe('access_token: the granted scopes in `scope`; access_token_authz: also `permissions`, every permission the user holds on the API, and only with enforce_policies: true (400 otherwise).');
export type TokenDialect = z.infer<typeof TokenDialectSchema>;

const resourceServerFields = {
  name: z.string().trim().min(1).max(200),
  /** The audience; compared exactly (a trailing slash makes a different identifier). */
  identifier: z.string().min(1).max(600).regex(/^\S+$/, { message: 'must not contain spaces' }),
  signing_alg: z.literal('RS256', { message: 'only RS256 is supported' }),
  token_lifetime: z.int().min(60).max(2_592_000),
};

export const ResourceServerCreateSchema = z.strictObject({
  name: resourceServerFields.name,
  identifier: resourceServerFields.identifier,
  signing_alg: resourceServerFields.signing_alg.default('RS256'),
  token_lifetime: resourceServerFields.token_lifetime.default(86_400),
  scopes: ScopesSchema.default([]),
  enforce_policies: z.boolean().default(false),
  token_dialect: TokenDialectSchema.default('access_token'),
});
export type ResourceServerCreate = z.infer<typeof ResourceServerCreateSchema>;

/** PATCH; `identifier` may be repeated unchanged but never changed. */
export const ResourceServerUpdateSchema = z.strictObject({
  name: resourceServerFields.name.optional(),
  identifier: resourceServerFields.identifier.optional(),
  signing_alg: resourceServerFields.signing_alg.optional(),
  token_lifetime: resourceServerFields.token_lifetime.optional(),
  scopes: ScopesSchema.optional(),
  enforce_policies: z
    .boolean()
    .optional()
    .describe('RBAC: a user login gets only the scopes its roles and direct permissions grant. Of the management API only this, token_dialect and token_lifetime can change.'),
  token_dialect: TokenDialectSchema.optional(),
});
export type ResourceServerUpdate = z.infer<typeof ResourceServerUpdateSchema>;

export const ResourceServerRecordSchema = z.object({
  id: z.string(),
  name: z.string(),
  identifier: z.string(),
  signing_alg: z.literal('RS256'),
  token_lifetime: z.int(),
  scopes: z.array(z.object({ value: z.string(), description: z.string() })),
  /** True for the management API itself, which cannot be deleted nor changed but for enforce_policies, token_dialect and token_lifetime. */
  is_system: z.boolean(),
  /** RBAC: user logins get requested scopes ∩ the user's permissions (roles and direct). */
  enforce_policies: z.boolean(),
  token_dialect: TokenDialectSchema,
});
export type ResourceServerRecord = z.infer<typeof ResourceServerRecordSchema>;

const GrantScopeSchema = z.array(z.string().min(1)).max(500).describe('Each a scope the API (audience) defines.');

export const ClientGrantCreateSchema = z.strictObject({
  client_id: z.string().min(1),
  audience: z.string().min(1),
  scope: GrantScopeSchema,
});
export type ClientGrantCreate = z.infer<typeof ClientGrantCreateSchema>;

export const ClientGrantUpdateSchema = z.strictObject({ scope: GrantScopeSchema });
export type ClientGrantUpdate = z.infer<typeof ClientGrantUpdateSchema>;

export const ClientGrantRecordSchema = z.object({
  id: z.string(),
  client_id: z.string(),
  audience: z.string(),
  scope: z.array(z.string()),
});
export type ClientGrantRecord = z.infer<typeof ClientGrantRecordSchema>;

export const UserIdentitySchema = z.object({
  provider: z.literal('sms'),
  connection: z.string(),
  user_id: z.string(),
  isSocial: z.literal(false),
});

/** SMS user as the management API returns it (reference product shape); dates ISO 8601. */
export const UserRecordSchema = z.object({
  user_id: z.string(),
  phone_number: z.string(),
  phone_verified: z.boolean(),
  /** The phone number, as the reference product names SMS users (no `picture`: docs/identity.md). */
  name: z.string(),
  /** The phone number. */
  nickname: z.string(),
  identities: z.array(UserIdentitySchema),
  created_at: z.string(),
  updated_at: z.string(),
  last_login: z.string().nullable(),
  logins_count: z.int().nonnegative(),
  /** Refused at start, at every grant and on the hosted page while true. */
  blocked: z.boolean(),
  user_metadata: z.record(z.string(), z.unknown()),
  app_metadata: z.record(z.string(), z.unknown()),
});
export type UserRecord = z.infer<typeof UserRecordSchema>;

// List query strings (paging, projection, filters): management-lists.ts.

/** `GET|DELETE /api/v2/user-blocks?identifier=<phone number>`. */
export const UserBlocksQuerySchema = z.object({ identifier: z.string().min(1).max(32) });
export type UserBlocksQuery = z.output<typeof UserBlocksQuerySchema>;

/**
 * Also the answer of `GET /api/v2/user-blocks/{user id}`: the blocks on the user's phone number,
 * each naming the user's connection as the reference product does.
 */
export const UserBlocksResponseSchema = z.object({
  blocked_for: z.array(z.object({ identifier: z.string(), ip: z.string().optional(), connection: z.string().optional() })),
});
export type UserBlocksResponse = z.infer<typeof UserBlocksResponseSchema>;

export const SigningKeyRecordSchema = z.object({
  kid: z.string(),
  alg: z.literal('RS256'),
  /** PEM self-signed X.509 certificate of the key. */
  cert: z.string(),
  /** SHA-1 of the certificate: colon-separated and plain upper-case hex. */
  fingerprint: z.string(),
  thumbprint: z.string(),
  created_at: z.string(),
  current_since: z.string().nullable(),
  current_until: z.string().nullable(),
  current: z.boolean(),
  /** Published and accepted, not yet signing: rotation makes it current. */
  next: z.boolean(),
  previous: z.boolean(),
  revoked: z.boolean(),
  revoked_at: z.string().nullable(),
});
export type SigningKeyRecord = z.infer<typeof SigningKeyRecordSchema>;

/** `POST /api/v2/keys/signing/rotate`: the new next key, as the reference product answers. */
export const SigningKeyRotationSchema = z.object({ kid: z.string(), cert: z.string() });
export type SigningKeyRotation = z.infer<typeof SigningKeyRotationSchema>;

/** One RSA public key of `GET /.well-known/jwks.json`. */
export const JwkSchema = z.object({
  kty: z.literal('RSA'),
  n: z.string(),
  e: z.string(),
  kid: z.string(),
  use: z.literal('sig'),
  alg: z.literal('RS256'),
  /** The key's self-signed certificate chain: one DER certificate, standard base64. */
  x5c: z.array(z.string()).length(1),
  /** base64url SHA-1 thumbprint of that certificate. */
  x5t: z.string(),
});
export const JwksSchema = z.object({ keys: z.array(JwkSchema) });
export type Jwks = z.infer<typeof JwksSchema>;

/** A login session of the hosted login, as `GET /api/v2/users/{id}/sessions` lists it (Auth0's session shape, trimmed). */
export const SessionRecordSchema = z.object({
  id: z.string(),
  user_id: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
  authenticated_at: z.string(),
  /** The session ends at the earlier of these: idle (extended by each use) and absolute. */
  idle_expires_at: z.string(),
  expires_at: z.string(),
  last_interacted_at: z.string(),
  /** The applications the session signed in to. */
  clients: z.array(z.object({ client_id: z.string() })),
  authentication: z.object({ methods: z.array(z.object({ name: z.string(), timestamp: z.string() })) }),
  device: z.object({ initial_ip: z.string().optional(), initial_user_agent: z.string().optional() }),
  connection: z.string(),
});
export type SessionRecord = z.infer<typeof SessionRecordSchema>;
