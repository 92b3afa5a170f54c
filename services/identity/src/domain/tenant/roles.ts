import { ResourceServerUpdateSchema, RoleUpdateSchema } from '@smsauth/contracts';
import type { IdentityStore } from '../../store';
import { createResourceServer, toResourceServerRecord, updateResourceServer } from '../management/resource-servers';
import { addRolePermissions, createRole, updateRole } from '../management/roles';
import { changedFields, isEmpty, without, type EntryAction } from './compare';
import type { TenantEntry } from './entries';

/**
 * An API, found by identifier. Of the management API only enforce_policies, token_dialect and
 * token_lifetime may differ from what it is (the API's own rule: 403 naming them otherwise).
 */
export async function applyResourceServer(store: IdentityStore, entry: TenantEntry<'resource_servers'>): Promise<EntryAction> {
  const current = await store.resourceServers.findByIdentifier(entry.parsed.identifier);
  if (!current) {
    await createResourceServer(store, entry.parsed);
    return 'created';
  }
  const patch = changedFields(ResourceServerUpdateSchema.parse(without(entry.raw, ['identifier'])), toResourceServerRecord(current));
  if (isEmpty(patch)) return 'unchanged';
  await updateResourceServer(store, current.id, patch);
  return 'updated';
}

/** All of a role's permissions (a role holds at most a few hundred). */
async function permissionsOf(store: IdentityStore, roleId: string): Promise<Set<string>> {
  const held = await store.roles.rolePermissions(roleId, { offset: 0, limit: 10_000 });
  return new Set(held.map((p) => `${p.resource_server_identifier}\0${p.permission_name}`));
}

/** A role, found by name (case-insensitive, as names are unique); the permissions it lacks are given. */
export async function applyRole(store: IdentityStore, entry: TenantEntry<'roles'>): Promise<EntryAction> {
  const { permissions = [], ...body } = entry.parsed;
  const current = await store.roles.findByName(body.name);
  let action: EntryAction = 'unchanged';
  let roleId = current?.id;
  if (!current) {
    roleId = (await createRole(store, body)).id;
    action = 'created';
  } else {
    const patch = changedFields(RoleUpdateSchema.parse(without(entry.raw, ['permissions'])), { ...current });
    if (!isEmpty(patch)) {
      await updateRole(store, current.id, patch);
      action = 'updated';
    }
  }
  const held = await permissionsOf(store, roleId!);
  if (permissions.some((p) => !held.has(`${p.resource_server_identifier}\0${p.permission_name}`))) {
    // All of them, so that a 400 names the entry's own index; those held are left as they are.
    await addRolePermissions(store, roleId!, { permissions });
    if (action === 'unchanged') action = 'updated';
  }
  return action;
}
