import {
  ClientCreateSchema,
  ClientGrantCreateSchema,
  ConnectionCreateSchema,
  PermissionSchema,
  ResourceServerCreateSchema,
  RoleCreateSchema,
} from '@smsauth/contracts';
import { z } from 'zod';
import type { SettingsDocument } from './appearance';

/*
 * The entries of a tenant file: each is the management API's create body (the same zod schema
 * the route validates with), plus what only a file needs: a client's own `client_id` and
 * `client_secret`, a role's `permissions`.
 */

export const ClientEntrySchema = ClientCreateSchema.extend({
  /** Created with this id (found by it) instead of a generated one, as ADMIN_CLIENT_ID is. */
  client_id: z.string().regex(/^[\w.-]{1,128}$/, { message: 'must be 1-128 letters, digits, _, . or -' }).optional(),
  /** A confidential client's secret, instead of a generated one nobody is shown. */
  client_secret: z.string().min(32, { message: 'must be at least 32 characters' }).max(256).optional(),
});
export type ClientEntry = z.output<typeof ClientEntrySchema>;

export const RoleEntrySchema = RoleCreateSchema.extend({
  /** Given to the role (added: permissions it holds that the file does not name stay). */
  permissions: z.array(PermissionSchema).max(100).optional(),
});
export type RoleEntry = z.output<typeof RoleEntrySchema>;

/** The sections, in the order they are applied: what an entry refers to exists before it. */
export const SECTIONS = {
  resource_servers: ResourceServerCreateSchema,
  clients: ClientEntrySchema,
  connections: ConnectionCreateSchema,
  client_grants: ClientGrantCreateSchema,
  roles: RoleEntrySchema,
} as const;
export type SectionName = keyof typeof SECTIONS;
export const SECTION_NAMES = Object.keys(SECTIONS) as SectionName[];

/** A tenant file's entries, each as written (after `${NAME}`s) and as its schema parsed it. */
export interface TenantEntry<S extends SectionName> {
  section: S;
  index: number;
  label?: string;
  raw: Record<string, unknown>;
  parsed: z.output<(typeof SECTIONS)[S]>;
}

export interface TenantDocument {
  resource_servers: Array<TenantEntry<'resource_servers'>>;
  clients: Array<TenantEntry<'clients'>>;
  connections: Array<TenantEntry<'connections'>>;
  client_grants: Array<TenantEntry<'client_grants'>>;
  roles: Array<TenantEntry<'roles'>>;
  /** The one-object sections (languages, brand, texts), as their schemas parsed them. */
  settings: SettingsDocument;
}

const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

/** How an entry is named in messages: what it is found by. */
export function labelOf(section: SectionName, raw: Record<string, unknown>): string | undefined {
  switch (section) {
    case 'resource_servers':
      return text(raw.identifier);
    case 'clients':
      return text(raw.client_id) ?? text(raw.name);
    case 'connections':
      return text(raw.name) ?? text((raw.options as Record<string, unknown> | undefined)?.name);
    case 'client_grants':
      return text(raw.client_id) && text(raw.audience) ? `${text(raw.client_id)} -> ${text(raw.audience)}` : undefined;
    case 'roles':
      return text(raw.name);
  }
}
