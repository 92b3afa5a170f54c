import { z } from 'zod';
import { HttpsUrlSchema } from './branding';
import { LOGIN_LANGUAGES } from './login-languages';

// Auth0's `/api/v2/tenants/settings`, the fields auth0-deploy-cli's tenant.json / tenant.yaml
// carries. `enabled_locales` acts (the hosted pages' languages); the session lifetimes show the
// service's own (SESSION_ABSOLUTE_LIFETIME_SECONDS, SESSION_IDLE_LIFETIME_SECONDS); the rest are
// settings for Auth0 features identity does not have, stored as given and shown, as the client
// settings are (auth0-client-settings.ts). Those that would promise what identity does not do
// are accepted only at their "off" value. docs/branding.md lists them.

const INERT = 'Auth0 setting for a feature identity does not have: stored and shown, nothing acts on it.';

/** Hours or minutes of a session lifetime, as Auth0 bounds them (up to 100 days). */
const HOURS = z.number().min(1 / 60).max(2400);
const MINUTES = z.int().min(1).max(144_000);

const LOCALES_MESSAGE = `the hosted pages speak these languages only: ${LOGIN_LANGUAGES.join(', ')}`;

/** Auth0's flags: any name, true or false; those that would promise a protection identity does not give, only false. */
const FlagsSchema = z
  .object({
    require_pushed_authorization_requests: z
      .literal(false, { message: 'identity has no pushed authorization requests (PAR): only false' })
      .optional()
      .describe('Accepted only as false: identity has no pushed authorization requests (PAR).'),
  })
  .catchall(z.boolean())
  .describe(`${INERT} Each flag true or false; require_pushed_authorization_requests only false.`);

/** The fields stored as given and shown (nothing acts on them), with Auth0's types. */
export const inertTenantSettingsFields = {
  friendly_name: z.string().max(255).describe(INERT),
  picture_url: z.union([z.literal(''), HttpsUrlSchema]).describe(`${INERT} An https: URL or empty.`),
  support_email: z.union([z.literal(''), z.string().max(255).regex(/^[^\s@]+@[^\s@]+\.[^\s@]+$/, { message: 'must be an email address' })]).describe(`${INERT} An email address or empty.`),
  support_url: z.union([z.literal(''), HttpsUrlSchema]).describe(`${INERT} An https: URL or empty.`),
  default_directory: z.string().max(128).describe(`${INERT} (identity has no password grant.)`),
  allowed_logout_urls: z
    .array(z.string().max(2048))
    .max(100)
    .describe(`${INERT} /v2/logout checks returnTo against the client's allowed_logout_urls only.`),
  sandbox_version: z.string().max(16).describe(INERT),
  legacy_sandbox_version: z.string().max(16).describe(INERT),
  sandbox_versions_available: z.array(z.string().max(16)).max(20).describe(`${INERT} (Auth0 shows it; its exports carry it.)`),
  universal_login: z.record(z.string(), z.unknown()).describe(`${INERT} Auth0's older Universal Login colours; the pages take theirs from /api/v2/branding.`),
  default_redirection_uri: z.union([z.literal(''), HttpsUrlSchema]).describe(`${INERT} An https: URL or empty.`),
  flags: FlagsSchema,
  change_password: z.record(z.string(), z.unknown()).nullable().describe(INERT),
  guardian_mfa_page: z.record(z.string(), z.unknown()).nullable().describe(INERT),
  error_page: z.record(z.string(), z.unknown()).nullable().describe(INERT),
  device_flow: z.record(z.string(), z.unknown()).nullable().describe(INERT),
  default_token_quota: z.record(z.string(), z.unknown()).nullable().describe(INERT),
  sessions: z.record(z.string(), z.unknown()).nullable().describe(INERT),
  oidc_logout: z.record(z.string(), z.unknown()).describe(INERT),
  customize_mfa_in_postlogin_action: z.boolean().nullable().describe(INERT),
  allow_organization_name_in_authentication_api: z.boolean().nullable().describe(INERT),
  skip_non_verifiable_callback_uri_confirmation_prompt: z.boolean().nullable().describe(INERT),
  authorization_response_iss_parameter_supported: z
    .boolean()
    .nullable()
    .describe('Stored and shown: identity adds iss to every authorization response whatever it says.'),
  resource_parameter_profile: z.enum(['audience', 'compatibility']).describe(INERT),
  enable_ai_guide: z.boolean().describe(INERT),
  phone_consolidated_experience: z.boolean().describe(INERT),
  include_session_metadata_in_tenant_logs: z.boolean().describe(INERT),
  client_id_metadata_document_supported: z
    .literal(false, { message: 'identity does not fetch client metadata documents: only false' })
    .describe('Accepted only as false: identity does not fetch client metadata from a client_id URL.'),
  pushed_authorization_requests_supported: z
    .literal(false, { message: 'identity has no pushed authorization requests (PAR): only false (or null)' })
    .nullable()
    .describe('Accepted only as false or null: identity has no pushed authorization requests (PAR).'),
  mtls: z
    .strictObject({
      enable_endpoint_aliases: z.literal(false, { message: 'identity has no mTLS endpoints: only false' }).optional(),
    })
    .nullable()
    .describe('Accepted only with enable_endpoint_aliases false (or null): identity has no mTLS endpoints.'),
  session_cookie: z
    .strictObject({
      mode: z.literal('persistent', { message: 'identity\'s session cookie is persistent (Max-Age): only persistent' }),
    })
    .nullable()
    .describe('Accepted only as {mode: persistent} or null: the session cookie carries Max-Age, SESSION_ABSOLUTE_LIFETIME_SECONDS.'),
  /** Ephemeral sessions end with the browser; identity's never do, so these never apply. */
  ephemeral_session_lifetime: HOURS.describe(`${INERT} Hours; identity's sessions are never ephemeral (shown in hours).`),
  idle_ephemeral_session_lifetime: HOURS.describe(`${INERT} Hours; identity's sessions are never ephemeral (shown in hours).`),
};

const SESSION_RULE =
  'must equal the service\'s own lifetime (shown by GET): it is set by the service\'s configuration, so a file carrying the exported value imports unchanged and a different one is refused';

/** The languages the hosted pages may speak, the first being the default (Auth0's `enabled_locales`). */
export const EnabledLocalesSchema = z
  .array(z.enum(LOGIN_LANGUAGES, { message: LOCALES_MESSAGE }))
  .min(1)
  .max(LOGIN_LANGUAGES.length)
  .refine((locales) => new Set(locales).size === locales.length, { message: 'lists a language twice' })
  .meta({ uniqueItems: true })
  .describe(`The languages the hosted pages may speak, the first being the default: each one of ${LOGIN_LANGUAGES.join(', ')}, none twice.`);

/** Auth0's `PATCH /api/v2/tenants/settings`. */
export const TenantSettingsUpdateSchema = z.strictObject({
  enabled_locales: EnabledLocalesSchema.optional(),
  default_audience: z
    .literal('', { message: 'identity has no tenant-wide default audience (a token request names its audience): only ""' })
    .optional()
    .describe('Accepted only as "": identity has no tenant-wide default audience; a token request names its audience.'),
  session_lifetime: HOURS.optional().describe(`Hours a login session lasts, at most; ${SESSION_RULE} (SESSION_ABSOLUTE_LIFETIME_SECONDS). Not with session_lifetime_in_minutes.`),
  session_lifetime_in_minutes: MINUTES.optional().describe(`session_lifetime in minutes (auth0-deploy-cli sends this); ${SESSION_RULE}. Not with session_lifetime.`),
  idle_session_lifetime: HOURS.optional().describe(`Hours a login session may go unused; ${SESSION_RULE} (SESSION_IDLE_LIFETIME_SECONDS). Not with idle_session_lifetime_in_minutes.`),
  idle_session_lifetime_in_minutes: MINUTES.optional().describe(`idle_session_lifetime in minutes (auth0-deploy-cli sends this); ${SESSION_RULE}. Not with idle_session_lifetime.`),
  ephemeral_session_lifetime_in_minutes: MINUTES.optional().describe(`${INERT} ephemeral_session_lifetime in minutes (stored, shown in hours).`),
  idle_ephemeral_session_lifetime_in_minutes: MINUTES.optional().describe(`${INERT} idle_ephemeral_session_lifetime in minutes (stored, shown in hours).`),
  ...Object.fromEntries(Object.entries(inertTenantSettingsFields).map(([name, schema]) => [name, schema.optional()])),
}) as z.ZodType<TenantSettingsUpdate>;

export type InertTenantSettings = Partial<{ [K in keyof typeof inertTenantSettingsFields]: z.infer<(typeof inertTenantSettingsFields)[K]> }>;
export type TenantSettingsUpdate = InertTenantSettings & {
  enabled_locales?: string[];
  default_audience?: '';
  session_lifetime?: number;
  session_lifetime_in_minutes?: number;
  idle_session_lifetime?: number;
  idle_session_lifetime_in_minutes?: number;
  ephemeral_session_lifetime_in_minutes?: number;
  idle_ephemeral_session_lifetime_in_minutes?: number;
};

/** Auth0's `GET /api/v2/tenants/settings`: the effective languages and lifetimes, and what was stored. */
export const TenantSettingsSchema = z
  .object({
    enabled_locales: z.array(z.string()).describe('The languages the hosted pages may speak, the first the default; every bundled language while none were set.'),
    default_audience: z.string(),
    session_lifetime: z.number().describe('Hours (SESSION_ABSOLUTE_LIFETIME_SECONDS).'),
    idle_session_lifetime: z.number().describe('Hours (SESSION_IDLE_LIFETIME_SECONDS).'),
  })
  .catchall(z.unknown())
  .describe('The effective languages and session lifetimes, and the stored Auth0 settings (see PATCH).');
