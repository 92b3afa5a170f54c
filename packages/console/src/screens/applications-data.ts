import { type IdentityApi, itemsOf, ok, type Schema } from '../api';

export type Client = Schema<'ClientRecord'>;
export type ResourceServer = Schema<'ResourceServerRecord'>;
export type ClientGrant = Schema<'ClientGrantRecord'>;
export type Role = Schema<'RoleRecord'>;
export type Permission = Schema<'PermissionRecord'>;
export type GrantType = NonNullable<Schema<'ClientUpdate'>['grant_types']>[number];

/** The application types the API knows, in words (`app_type`). */
export const APP_TYPES: Array<[string, string, string]> = [
  ['spa', 'Single-page app (public: no secret)', 'single-page app'],
  ['regular_web', 'Regular web app (confidential: a client secret)', 'regular web app'],
  ['native', 'Native or mobile app (public: no secret)', 'native app'],
  ['non_interactive', 'Machine to machine (confidential: client credentials only)', 'machine-to-machine application'],
];
export const CONFIDENTIAL_TYPES = new Set(['regular_web', 'non_interactive']);

/** The grant types the API knows (`grant_types`), in words. */
export const GRANT_TYPES: Array<[string, string]> = [
  ['authorization_code', 'Authorization code (sign-in through the hosted login)'],
  ['refresh_token', 'Refresh token'],
  ['http://auth0.com/oauth/grant-type/passwordless/otp', 'Passwordless OTP (an SMS code at /oauth/token)'],
  ['client_credentials', 'Client credentials (machine-to-machine tokens)'],
  ['implicit', 'Implicit (legacy)'],
  ['http://auth0.com/oauth/legacy/grant-type/ro', 'Legacy resource owner (/oauth/ro)'],
];

export const grantTypeWords = (value: string) => GRANT_TYPES.find(([v]) => v === value)?.[1] ?? value;

/** Splits a textarea into its entries (lines, commas or spaces). */
export const lines = (text: string) =>
  text
    .split(/[\s,]+/)
    .map((s) => s.trim())
    .filter(Boolean);

/** What was added to and taken from a set of strings. */
export function difference(before: Iterable<string>, after: Iterable<string>): { added: string[]; removed: string[] } {
  const was = new Set(before);
  const now = new Set(after);
  return { added: [...now].filter((s) => !was.has(s)), removed: [...was].filter((s) => !now.has(s)) };
}

/** The API takes at most 100 permissions a request. */
export function inChunks<T>(items: T[], size = 100): T[][] {
  const chunks: T[][] = [];
  for (let i = 0; i < items.length; i += size) chunks.push(items.slice(i, i + size));
  return chunks;
}

export async function listRoles(api: IdentityApi): Promise<Role[]> {
  return itemsOf<Role>(await ok(api.GET('/api/v2/roles', { params: { query: { per_page: 100 } } })), 'roles');
}
