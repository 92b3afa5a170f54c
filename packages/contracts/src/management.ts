import { z } from 'zod';
import { PASSWORDLESS_OTP_GRANT } from './token';

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
] as const;
export const MANAGEMENT_SCOPES: readonly string[] = MANAGEMENT_RESOURCES.flatMap((resource) =>
  ['create', 'read', 'update', 'delete'].map((action) => `${action}:${resource}`),
);

/** The legacy resource-owner grant (`POST /oauth/ro`), named as in the reference product. */
export const LEGACY_RO_GRANT = 'http://auth0.com/oauth/legacy/grant-type/ro';

export const GRANT_TYPES = [
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
  native: [PASSWORDLESS_OTP_GRANT, LEGACY_RO_GRANT, 'refresh_token'],
  spa: [PASSWORDLESS_OTP_GRANT, LEGACY_RO_GRANT, 'refresh_token'],
  regular_web: [PASSWORDLESS_OTP_GRANT, LEGACY_RO_GRANT, 'refresh_token', 'client_credentials'],
  non_interactive: ['client_credentials'],
};

const HttpUrlSchema = z.url({ protocol: /^https?$/, message: 'must be an http: or https: URL' });

const clientFields = {
  name: z.string().trim().min(1).max(128),
  app_type: AppTypeSchema,
  callbacks: z.array(HttpUrlSchema).max(100),
  allowed_origins: z.array(HttpUrlSchema).max(100),
  grant_types: z.array(GrantTypeSchema).max(GRANT_TYPES.length),
  default_audience: z.string().min(1).max(600),
};

export const ClientCreateSchema = z.strictObject({
  name: clientFields.name,
  app_type: clientFields.app_type,
  callbacks: clientFields.callbacks.default([]),
  allowed_origins: clientFields.allowed_origins.default([]),
  grant_types: clientFields.grant_types.optional(),
  default_audience: clientFields.default_audience.optional(),
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
  /** `none` for public clients, `client_secret_post` for confidential ones. */
  token_endpoint_auth_method: z.enum(['none', 'client_secret_post']),
  /** Only in the responses of create and rotate-secret. */
  client_secret: z.string().optional(),
});
export type ClientRecord = z.infer<typeof ClientRecordSchema>;

export const ResourceServerScopeSchema = z.strictObject({
  value: z.string().regex(/^[\x21-\x7e]{1,280}$/, { message: 'must be 1-280 visible characters without spaces' }),
  description: z.string().max(500).default(''),
});

const ScopesSchema = z.array(ResourceServerScopeSchema).max(500).superRefine((scopes, ctx) => {
  const seen = new Set<string>();
  scopes.forEach((scope, index) => {
    if (seen.has(scope.value)) ctx.addIssue({ code: 'custom', path: [index, 'value'], message: 'duplicate scope' });
    seen.add(scope.value);
  });
});

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
});
export type ResourceServerCreate = z.infer<typeof ResourceServerCreateSchema>;

/** PATCH; `identifier` may be repeated unchanged but never changed. */
export const ResourceServerUpdateSchema = z.strictObject({
  name: resourceServerFields.name.optional(),
  identifier: resourceServerFields.identifier.optional(),
  signing_alg: resourceServerFields.signing_alg.optional(),
  token_lifetime: resourceServerFields.token_lifetime.optional(),
  scopes: ScopesSchema.optional(),
});
export type ResourceServerUpdate = z.infer<typeof ResourceServerUpdateSchema>;

export const ResourceServerRecordSchema = z.object({
  id: z.string(),
  name: z.string(),
  identifier: z.string(),
  signing_alg: z.literal('RS256'),
  token_lifetime: z.int(),
  scopes: z.array(z.object({ value: z.string(), description: z.string() })),
  /** True for the management API itself, which cannot be changed or deleted. */
  is_system: z.boolean(),
});
export type ResourceServerRecord = z.infer<typeof ResourceServerRecordSchema>;

const GrantScopeSchema = z.array(z.string().min(1)).max(500);

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
  identities: z.array(UserIdentitySchema),
  created_at: z.string(),
  updated_at: z.string(),
  last_login: z.string().nullable(),
  logins_count: z.int().nonnegative(),
});
export type UserRecord = z.infer<typeof UserRecordSchema>;

// List query strings (paging, projection, filters): management-lists.ts.

/** `GET|DELETE /api/v2/user-blocks?identifier=<phone number>`. */
export const UserBlocksQuerySchema = z.object({ identifier: z.string().min(1).max(32) });

export const UserBlocksResponseSchema = z.object({
  blocked_for: z.array(z.object({ identifier: z.string(), ip: z.string().optional() })),
});
export type UserBlocksResponse = z.infer<typeof UserBlocksResponseSchema>;

export const SigningKeyRecordSchema = z.object({
  kid: z.string(),
  alg: z.literal('RS256'),
  created_at: z.string(),
  current_since: z.string().nullable(),
  current_until: z.string().nullable(),
  current: z.boolean(),
  previous: z.boolean(),
  revoked: z.boolean(),
  revoked_at: z.string().nullable(),
});
export type SigningKeyRecord = z.infer<typeof SigningKeyRecordSchema>;

/** One RSA public key of `GET /.well-known/jwks.json`. */
export const JwkSchema = z.object({
  kty: z.literal('RSA'),
  n: z.string(),
  e: z.string(),
  kid: z.string(),
  use: z.literal('sig'),
  alg: z.literal('RS256'),
});
export const JwksSchema = z.object({ keys: z.array(JwkSchema) });
export type Jwks = z.infer<typeof JwksSchema>;
