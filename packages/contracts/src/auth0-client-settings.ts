import { z } from 'zod';

// Auth0's clients carry settings for features identity does not have (SAML add-ons, custom
// login pages, organizations, native social login...). A tenant moved in from Auth0 (its
// deploy CLI's files, its Management API SDK) sends them; refusing them would make every such
// file need hand-editing, and dropping them would lose them on the way back out. So each is
// typed as Auth0 types it, stored as given, and shown, and nothing here acts on it
// (docs/auth0-deploy-cli.md lists them). The settings that would promise a protection identity
// does not give (pushed authorization requests, proof of possession, a FAPI compliance level)
// are accepted only at their "off" value: a client asking for them must not believe it got them.

const INERT = 'Auth0 setting for a feature identity does not have: stored and shown, nothing acts on it.';

/** Up to 10 string properties of up to 255 characters, as Auth0 bounds client_metadata. */
const ClientMetadataSchema = z
  .record(
    z.string().regex(/^[A-Za-z0-9:,\-+=_*?"!/\\@#]{1,255}$/, { message: 'keys are 1-255 letters, digits or :,-+=_*?"!/\\@#' }),
    z.string().max(255),
  )
  .refine((metadata) => Object.keys(metadata).length <= 10, { message: 'at most 10 properties' })
  .describe('Up to 10 string properties (keys and values up to 255 characters). Stored and shown, as at Auth0.');

const EnabledSchema = z.strictObject({ enabled: z.boolean() });

/** The Auth0 client fields identity stores and shows without acting on them, with Auth0's types. */
export const auth0ClientSettingsFields = {
  logo_uri: z.string().max(2048).describe(INERT),
  is_first_party: z.boolean().describe(INERT),
  is_token_endpoint_ip_header_trusted: z
    .boolean()
    .describe(`${INERT} identity never takes a client's word for the end user's IP address.`),
  sso: z.boolean().describe(INERT),
  sso_disabled: z.boolean().describe(INERT),
  custom_login_page_on: z.boolean().describe(INERT),
  custom_login_page: z.string().max(100_000).describe(INERT),
  custom_login_page_preview: z.string().max(100_000).describe(INERT),
  form_template: z.string().max(100_000).describe(INERT),
  client_aliases: z.array(z.string().max(1024)).max(100).describe(INERT),
  allowed_clients: z.array(z.string().max(1024)).max(100).describe(INERT),
  client_metadata: ClientMetadataSchema,
  mobile: z
    .strictObject({
      android: z.strictObject({ app_package_name: z.string().max(255), sha256_cert_fingerprints: z.array(z.string().max(255)).max(20) }).partial(),
      ios: z.strictObject({ team_id: z.string().max(255), app_bundle_identifier: z.string().max(255) }).partial(),
    })
    .partial()
    .describe(INERT),
  native_social_login: z
    .strictObject({ apple: EnabledSchema, facebook: EnabledSchema, google: EnabledSchema })
    .partial()
    .describe(INERT),
  organization_usage: z.enum(['deny', 'allow', 'require']).describe(INERT),
  organization_require_behavior: z.enum(['no_prompt', 'pre_login_prompt', 'post_login_prompt']).describe(INERT),
  addons: z.record(z.string().max(64), z.record(z.string(), z.unknown())).describe(`${INERT} (Auth0's SAML, WS-Fed and other add-ons)`),
};

/** The names of auth0ClientSettingsFields, in the order a client record shows them. */
export const AUTH0_CLIENT_SETTINGS = Object.keys(auth0ClientSettingsFields) as Array<keyof typeof auth0ClientSettingsFields>;

export const Auth0ClientSettingsSchema = z.strictObject(auth0ClientSettingsFields).partial();
export type Auth0ClientSettings = z.infer<typeof Auth0ClientSettingsSchema>;

/** Settings accepted only when off: turning one on would promise a protection identity does not give. */
export const offOnlyClientFields = {
  require_pushed_authorization_requests: z
    .literal(false, { message: 'identity has no pushed authorization requests (PAR): only false' })
    .describe('Accepted only as false: identity has no pushed authorization requests (PAR).'),
  require_proof_of_possession: z
    .literal(false, { message: 'identity issues no sender-constrained (DPoP/mTLS) tokens: only false' })
    .describe('Accepted only as false: identity issues no sender-constrained (DPoP, mTLS) tokens.'),
  compliance_level: z
    .enum(['none'], { message: 'identity has no FAPI profile: only none (or null)' })
    .nullable()
    .describe('Accepted only as none or null: identity has no FAPI profile.'),
};

/** Auth0's longest ID token lifetime (30 days). */
export const ID_TOKEN_LIFETIME_MAX_SECONDS = 2_592_000;
/** The ID token lifetime without `jwt_configuration.lifetime_in_seconds` (Auth0's default: 10 hours). */
export const DEFAULT_ID_TOKEN_LIFETIME_SECONDS = 36_000;

/**
 * Auth0's `jwt_configuration`: `lifetime_in_seconds` is the lifetime of the client's ID tokens;
 * `alg` only RS256 (identity signs every token with its RS256 keys; Auth0's HS256 signs with the
 * client secret, which identity does not keep); `secret_encoded` and `scopes` are stored and shown.
 */
export const JwtConfigurationSchema = z.strictObject({
  alg: z
    .literal('RS256', { message: 'identity signs ID tokens with RS256 only' })
    .optional()
    .describe('RS256 only: identity signs every token with its RS256 keys.'),
  lifetime_in_seconds: z
    .int()
    .min(1)
    .max(ID_TOKEN_LIFETIME_MAX_SECONDS)
    .optional()
    .describe(`Lifetime of this client's ID tokens, 1 to ${ID_TOKEN_LIFETIME_MAX_SECONDS} seconds (default ${DEFAULT_ID_TOKEN_LIFETIME_SECONDS}).`),
  secret_encoded: z.boolean().optional().describe(INERT),
  scopes: z.record(z.string(), z.unknown()).optional().describe(INERT),
});
export type JwtConfiguration = z.infer<typeof JwtConfigurationSchema>;
