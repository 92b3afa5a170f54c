import type { Schema } from '../api';
import { lines, type Client, type ResourceServer } from './applications-data';

// A client's and an API's settings as the detail pages' forms hold them (strings of text fields,
// booleans of checkboxes), and back: the PATCH of what changed and, for the confirmation, each
// change in words. Pure, so the component tests check the diff without a browser.

export type ClientUpdate = Schema<'ClientUpdate'>;
export type ResourceServerUpdate = Schema<'ResourceServerUpdate'>;

/** One changed setting: the API's field (`refresh_token.leeway`), its label, what it was and becomes. */
export interface Change {
  field: string;
  label: string;
  from: string;
  to: string;
}

/** The token endpoint methods a form offers (private_key_jwt is set by registering keys through the API). */
export const AUTH_METHODS: Array<[string, string]> = [
  ['none', 'None (a public app: PKCE, no secret)'],
  ['client_secret_post', 'Client secret in the request body (client_secret_post)'],
  ['client_secret_basic', 'Client secret in the Authorization header (client_secret_basic)'],
];

/** The session-ending events a back-channel logout can be sent for (Auth0's initiators). */
export const LOGOUT_INITIATORS: Array<[string, string]> = [
  ['rp-logout', 'The application signs the user out (/v2/logout, /oidc/logout)'],
  ['session-revoked', 'A session is revoked (management API, or a new sign-in in the same browser)'],
  ['session-expired', 'A session expires'],
  ['account-deleted', 'The user is deleted'],
  ['account-deactivated', 'The user is blocked'],
];

/** The Auth0 settings identity stores and shows without acting on them (edited as JSON). */
export const INERT_SETTINGS = [
  'logo_uri',
  'is_first_party',
  'is_token_endpoint_ip_header_trusted',
  'sso',
  'sso_disabled',
  'custom_login_page_on',
  'custom_login_page',
  'custom_login_page_preview',
  'form_template',
  'client_aliases',
  'allowed_clients',
  'client_metadata',
  'mobile',
  'native_social_login',
  'organization_usage',
  'organization_require_behavior',
  'addons',
] as const;

export interface ClientForm {
  name: string;
  description: string;
  app_type: Client['app_type'];
  callbacks: string;
  allowed_logout_urls: string;
  allowed_origins: string;
  web_origins: string;
  initiate_login_uri: string;
  /** '' for a private_key_jwt client (its method is its registered keys). */
  token_endpoint_auth_method: string;
  grant_types: string[];
  default_audience: string;
  rotation_type: 'rotating' | 'non-rotating';
  leeway: string;
  expiration_type: 'expiring' | 'non-expiring';
  token_lifetime: string;
  infinite_token_lifetime: boolean;
  idle_token_lifetime: string;
  infinite_idle_token_lifetime: boolean;
  id_token_lifetime: string;
  backchannel_logout_url: string;
  backchannel_mode: 'custom' | 'all';
  backchannel_initiators: string[];
  frontchannel_logout_url: string;
  frontchannel_logout_session_required: boolean;
  cross_origin_authentication: boolean;
  cross_origin_loc: string;
  oidc_conformant: boolean;
  /** The inert Auth0 settings present, as JSON. */
  other_settings: string;
}

const list = (values: readonly string[] | undefined) => (values ?? []).join('\n');

function inertSettingsOf(client: Client): Record<string, unknown> {
  const record = client as unknown as Record<string, unknown>;
  return Object.fromEntries(INERT_SETTINGS.filter((name) => record[name] !== undefined).map((name) => [name, record[name]]));
}

export function clientFormOf(client: Client): ClientForm {
  const refresh = client.refresh_token;
  const logout = client.oidc_logout;
  return {
    name: client.name,
    description: client.description ?? '',
    app_type: client.app_type,
    callbacks: list(client.callbacks),
    allowed_logout_urls: list(client.allowed_logout_urls),
    allowed_origins: list(client.allowed_origins),
    web_origins: list(client.web_origins),
    initiate_login_uri: client.initiate_login_uri ?? '',
    token_endpoint_auth_method: client.token_endpoint_auth_method ?? '',
    grant_types: [...(client.grant_types ?? [])],
    default_audience: client.default_audience ?? '',
    rotation_type: refresh.rotation_type,
    leeway: String(refresh.leeway),
    expiration_type: refresh.expiration_type,
    token_lifetime: String(refresh.token_lifetime),
    infinite_token_lifetime: refresh.infinite_token_lifetime,
    idle_token_lifetime: String(refresh.idle_token_lifetime),
    infinite_idle_token_lifetime: refresh.infinite_idle_token_lifetime,
    id_token_lifetime: client.jwt_configuration?.lifetime_in_seconds !== undefined ? String(client.jwt_configuration.lifetime_in_seconds) : '',
    backchannel_logout_url: logout?.backchannel_logout_urls[0] ?? '',
    backchannel_mode: logout?.backchannel_logout_initiators?.mode ?? 'custom',
    backchannel_initiators: [...(logout?.backchannel_logout_initiators?.selected_initiators ?? [])],
    frontchannel_logout_url: logout?.frontchannel_logout_url ?? '',
    frontchannel_logout_session_required: logout?.frontchannel_logout_session_required ?? true,
    cross_origin_authentication: client.cross_origin_authentication,
    cross_origin_loc: client.cross_origin_loc ?? '',
    oidc_conformant: client.oidc_conformant,
    other_settings: JSON.stringify(inertSettingsOf(client), null, 2),
  };
}

/** A number field's value as the API takes it (text that is no number is sent as is: the API refuses it in its words). */
function numberOf(text: string): number {
  const trimmed = text.trim();
  return trimmed === '' || Number.isNaN(Number(trimmed)) ? (trimmed as unknown as number) : Number(trimmed);
}

const shown = (value: unknown): string =>
  value === undefined || value === null || value === '' ? '(none)' : Array.isArray(value) ? value.join(', ') || '(none)' : typeof value === 'boolean' ? (value ? 'on' : 'off') : typeof value === 'object' ? JSON.stringify(value) : String(value);

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** Collects changes field by field; `set` puts a changed field into the patch. */
class Diff<Patch extends object> {
  readonly patch = {} as Patch;
  readonly changes: Change[] = [];
  compare(field: string, label: string, before: unknown, after: unknown, set?: () => void): boolean {
    if (same(before, after)) return false;
    this.changes.push({ field, label, from: shown(before), to: shown(after) });
    set?.();
    return true;
  }
  put<K extends keyof Patch>(key: K, value: Patch[K]) {
    this.patch[key] = value;
  }
}

/**
 * What the form changes of the client: the PATCH (only changed fields; refresh_token, oidc_logout
 * and jwt_configuration whole, as the API replaces them) and each change in words. A form whose
 * JSON of other settings does not parse throws, with a message saying so.
 */
export function clientChanges(client: Client, form: ClientForm): { patch: ClientUpdate; changes: Change[] } {
  const diff = new Diff<ClientUpdate>();
  diff.compare('name', 'Name', client.name, form.name.trim(), () => diff.put('name', form.name.trim()));
  diff.compare('description', 'Description', client.description ?? '', form.description, () => diff.put('description', form.description));
  diff.compare('app_type', 'Type', client.app_type, form.app_type, () => diff.put('app_type', form.app_type));
  for (const [field, label] of [
    ['callbacks', 'Callback URLs'],
    ['allowed_logout_urls', 'Allowed logout URLs'],
    ['allowed_origins', 'Allowed origins'],
    ['web_origins', 'Web origins'],
  ] as const) {
    const after = lines(form[field]);
    diff.compare(field, label, client[field] ?? [], after, () => diff.put(field, after));
  }
  const loginUri = form.initiate_login_uri.trim();
  diff.compare('initiate_login_uri', 'Initiate login URI', client.initiate_login_uri ?? '', loginUri, () => diff.put('initiate_login_uri', loginUri || null));
  if (form.token_endpoint_auth_method !== '')
    diff.compare('token_endpoint_auth_method', 'Token endpoint authentication', client.token_endpoint_auth_method ?? '', form.token_endpoint_auth_method, () =>
      diff.put('token_endpoint_auth_method', form.token_endpoint_auth_method as ClientUpdate['token_endpoint_auth_method']),
    );
  diff.compare('grant_types', 'Grant types', [...(client.grant_types ?? [])].sort(), [...form.grant_types].sort(), () =>
    diff.put('grant_types', form.grant_types as ClientUpdate['grant_types']),
  );
  diff.compare('default_audience', 'Default audience', client.default_audience ?? '', form.default_audience, () => diff.put('default_audience', form.default_audience || null));

  const refreshBefore = client.refresh_token;
  const refreshAfter: NonNullable<ClientUpdate['refresh_token']> = {
    rotation_type: form.rotation_type,
    expiration_type: form.expiration_type,
    leeway: numberOf(form.leeway),
    token_lifetime: numberOf(form.token_lifetime),
    infinite_token_lifetime: form.infinite_token_lifetime,
    idle_token_lifetime: numberOf(form.idle_token_lifetime),
    infinite_idle_token_lifetime: form.infinite_idle_token_lifetime,
  };
  let refreshChanged = false;
  for (const [key, label] of [
    ['rotation_type', 'Refresh-token rotation'],
    ['leeway', 'Reuse leeway of a rotated refresh token (seconds)'],
    ['expiration_type', 'Refresh-token expiration'],
    ['token_lifetime', 'Refresh-token absolute lifetime (seconds)'],
    ['infinite_token_lifetime', 'No absolute refresh-token lifetime'],
    ['idle_token_lifetime', 'Refresh-token idle lifetime (seconds)'],
    ['infinite_idle_token_lifetime', 'No refresh-token idle lifetime'],
  ] as const)
    refreshChanged = diff.compare(`refresh_token.${key}`, label, refreshBefore[key], refreshAfter[key]) || refreshChanged;
  if (refreshChanged) diff.put('refresh_token', refreshAfter);

  const idBefore = client.jwt_configuration?.lifetime_in_seconds;
  const idAfter = form.id_token_lifetime.trim() === '' ? undefined : numberOf(form.id_token_lifetime);
  diff.compare('jwt_configuration.lifetime_in_seconds', 'ID token lifetime (seconds)', idBefore ?? '', idAfter ?? '', () => {
    const { lifetime_in_seconds: _lifetime, ...rest } = client.jwt_configuration ?? {};
    diff.put('jwt_configuration', idAfter === undefined ? rest : { ...rest, lifetime_in_seconds: idAfter });
  });

  const logoutBefore = client.oidc_logout;
  const backchannel = form.backchannel_logout_url.trim();
  const frontchannel = form.frontchannel_logout_url.trim();
  const mode = form.backchannel_mode;
  const selected = mode === 'custom' ? form.backchannel_initiators : [];
  let logoutChanged = diff.compare('oidc_logout.backchannel_logout_urls', 'Back-channel logout URL', logoutBefore?.backchannel_logout_urls[0] ?? '', backchannel);
  logoutChanged = diff.compare('oidc_logout.backchannel_logout_initiators.mode', 'Back-channel logout sent for', logoutBefore?.backchannel_logout_initiators?.mode ?? 'custom', mode) || logoutChanged;
  logoutChanged =
    diff.compare(
      'oidc_logout.backchannel_logout_initiators.selected_initiators',
      'Back-channel logout events',
      [...(logoutBefore?.backchannel_logout_initiators?.selected_initiators ?? [])].sort(),
      [...selected].sort(),
    ) || logoutChanged;
  logoutChanged = diff.compare('oidc_logout.frontchannel_logout_url', 'Front-channel logout URL', logoutBefore?.frontchannel_logout_url ?? '', frontchannel) || logoutChanged;
  logoutChanged =
    diff.compare(
      'oidc_logout.frontchannel_logout_session_required',
      'Front-channel logout URL gets iss and sid',
      logoutBefore?.frontchannel_logout_session_required ?? true,
      form.frontchannel_logout_session_required,
    ) || logoutChanged;
  if (logoutChanged) {
    const empty = !backchannel && !frontchannel && mode === 'custom' && selected.length === 0;
    diff.put(
      'oidc_logout',
      empty
        ? null
        : {
            backchannel_logout_urls: backchannel ? [backchannel] : [],
            backchannel_logout_initiators: mode === 'all' ? { mode } : { mode, selected_initiators: selected as never },
            ...(logoutBefore?.backchannel_logout_session_metadata !== undefined ? { backchannel_logout_session_metadata: logoutBefore.backchannel_logout_session_metadata } : {}),
            ...(frontchannel ? { frontchannel_logout_url: frontchannel, frontchannel_logout_session_required: form.frontchannel_logout_session_required } : {}),
          },
    );
  }

  diff.compare('cross_origin_authentication', 'Cross-origin authentication', client.cross_origin_authentication, form.cross_origin_authentication, () =>
    diff.put('cross_origin_authentication', form.cross_origin_authentication),
  );
  const loc = form.cross_origin_loc.trim();
  diff.compare('cross_origin_loc', 'Cross-origin verification page', client.cross_origin_loc ?? '', loc, () => diff.put('cross_origin_loc', loc || null));
  diff.compare('oidc_conformant', 'OIDC conformant', client.oidc_conformant, form.oidc_conformant, () => diff.put('oidc_conformant', form.oidc_conformant));

  let other: Record<string, unknown>;
  try {
    other = JSON.parse(form.other_settings || '{}') as Record<string, unknown>;
  } catch {
    throw new Error('Other Auth0 settings: not valid JSON');
  }
  if (typeof other !== 'object' || other === null || Array.isArray(other)) throw new Error('Other Auth0 settings: must be a JSON object');
  const inert = inertSettingsOf(client);
  for (const [name, value] of Object.entries(other))
    diff.compare(name, name, inert[name], value, () => ((diff.patch as Record<string, unknown>)[name] = value));
  return { patch: diff.patch, changes: diff.changes };
}

export interface ApiForm {
  name: string;
  /** "scope description words" a line. */
  scopes: string;
  token_lifetime: string;
  enforce_policies: boolean;
  token_dialect: 'access_token' | 'access_token_authz';
}

export function apiFormOf(api: ResourceServer): ApiForm {
  return {
    name: api.name,
    scopes: (api.scopes ?? []).map((s) => (s.description ? `${s.value} ${s.description}` : s.value)).join('\n'),
    token_lifetime: String(api.token_lifetime),
    enforce_policies: api.enforce_policies,
    token_dialect: api.token_dialect,
  };
}

/** "scope description words" a line: the scope, then an optional description. */
export function scopesOf(text: string): Array<{ value: string; description: string }> {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .map((line) => {
      const [value, ...words] = line.split(/\s+/);
      return { value: value!, description: words.join(' ') };
    });
}

/** What the form changes of the API: scopes added, removed and described again, each named; the management API only its RBAC settings and lifetime. */
export function apiChanges(api: ResourceServer, form: ApiForm): { patch: ResourceServerUpdate; changes: Change[] } {
  const diff = new Diff<ResourceServerUpdate>();
  if (!api.is_system) {
    diff.compare('name', 'Name', api.name, form.name.trim(), () => diff.put('name', form.name.trim()));
    const before = new Map((api.scopes ?? []).map((s) => [s.value, s.description]));
    const after = scopesOf(form.scopes);
    const afterMap = new Map(after.map((s) => [s.value, s.description]));
    let scopesChanged = false;
    for (const { value, description } of after) {
      if (!before.has(value)) scopesChanged = diff.compare(`scopes.${value}`, `Scope ${value}`, undefined, description ? `added: ${description}` : 'added') || scopesChanged;
      else scopesChanged = diff.compare(`scopes.${value}`, `Description of ${value}`, before.get(value), description) || scopesChanged;
    }
    for (const value of before.keys()) if (!afterMap.has(value)) scopesChanged = diff.compare(`scopes.${value}`, `Scope ${value}`, 'defined', 'removed') || scopesChanged;
    if (scopesChanged || !same([...before.keys()], after.map((s) => s.value))) diff.put('scopes', after);
  }
  diff.compare('token_lifetime', 'Access token lifetime (seconds)', api.token_lifetime, numberOf(form.token_lifetime), () => diff.put('token_lifetime', numberOf(form.token_lifetime)));
  diff.compare('enforce_policies', 'RBAC (enforce policies)', api.enforce_policies, form.enforce_policies, () => diff.put('enforce_policies', form.enforce_policies));
  diff.compare('token_dialect', 'Token dialect', api.token_dialect, form.token_dialect, () => diff.put('token_dialect', form.token_dialect));
  return { patch: diff.patch, changes: diff.changes };
}

/** A role's name and description as PATCH /roles/{id} takes them, and each change in words. */
export function roleChanges(role: { name: string; description: string }, form: { name: string; description: string }): { patch: Schema<'RoleUpdate'>; changes: Change[] } {
  const diff = new Diff<Schema<'RoleUpdate'>>();
  diff.compare('name', 'Name', role.name, form.name.trim(), () => diff.put('name', form.name.trim()));
  diff.compare('description', 'Description', role.description, form.description, () => diff.put('description', form.description));
  return { patch: diff.patch, changes: diff.changes };
}
