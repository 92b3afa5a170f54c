import type {
  PermissionRecord,
  PermissionsBody,
  RbacListQuery,
  RoleCreate,
  RoleMemberRecord,
  RoleRecord,
  RolesListQuery,
  RoleUpdate,
  UserPermissionRecord,
} from '@smsauth/contracts';
import { UniqueViolationError, type IdentityStore, type StoredPermission, type StoredRole } from '../../store';
import { newId } from '../ids';
import { ADMIN_ROLE_KEY } from './built-in-roles';
import { listResponse, offsetPagingOf } from './paging';
import { conflict, forbidden, invalidField, notFound } from './validation';

// Auth0's RBAC for users: roles hold permissions (scopes of APIs); users hold roles and direct
// permissions. What a user login gets on an API with enforce_policies: oauth/user-tokens.ts.

export function toRoleRecord(role: StoredRole): RoleRecord {
  return { id: role.id, name: role.name, description: role.description, built_in: role.built_in !== null };
}

async function roleById(store: IdentityStore, id: string): Promise<StoredRole> {
  const role = await store.roles.findById(id);
  if (!role) throw notFound('Role');
  return role;
}

async function userExists(store: IdentityStore, userId: string): Promise<void> {
  if (!(await store.users.findById(userId))) throw notFound('User');
}

function nameTaken(name: string): never {
  throw conflict(`A role named ${name} already exists`);
}

export async function listRoles(store: IdentityStore, query: RolesListQuery): Promise<unknown> {
  const paging = offsetPagingOf(query);
  const [roles, total] = await Promise.all([
    store.roles.page(query.name_filter, paging),
    paging.includeTotals ? store.roles.count(query.name_filter) : undefined,
  ]);
  return listResponse('roles', { items: roles.map(toRoleRecord) }, { kind: 'offset', ...paging }, total);
}

/** `built_in` is read-only: sent back as GET shows it, it is accepted; any other value is refused. */
function checkBuiltInUnchanged(sent: boolean | undefined, current: boolean): void {
  if (sent !== undefined && sent !== current) {
    throw invalidField('built_in', `is read-only (${current ? 'a built-in role stays built in' : 'only the service creates built-in roles'})`);
  }
}

export async function createRole(store: IdentityStore, input: RoleCreate): Promise<RoleRecord> {
  checkBuiltInUnchanged(input.built_in, false);
  if (await store.roles.findByName(input.name)) nameTaken(input.name);
  try {
    return toRoleRecord(await store.roles.insert({ id: newId('rol'), name: input.name, description: input.description ?? '' }));
  } catch (err) {
    if (err instanceof UniqueViolationError) nameTaken(input.name);
    throw err;
  }
}

export async function getRole(store: IdentityStore, id: string): Promise<RoleRecord> {
  return toRoleRecord(await roleById(store, id));
}

export async function updateRole(store: IdentityStore, id: string, patch: RoleUpdate): Promise<RoleRecord> {
  const role = await roleById(store, id);
  checkBuiltInUnchanged(patch.built_in, role.built_in !== null);
  if (patch.name !== undefined) {
    const other = await store.roles.findByName(patch.name);
    if (other && other.id !== role.id) nameTaken(patch.name);
  }
  try {
    const updated = await store.roles.update(role.id, { name: patch.name, description: patch.description });
    if (!updated) throw notFound('Role');
    return toRoleRecord(updated);
  } catch (err) {
    if (err instanceof UniqueViolationError) nameTaken(patch.name ?? role.name);
    throw err;
  }
}

/** Built-in roles stay (their members would otherwise lose access with no way back but the command line). */
export async function deleteRole(store: IdentityStore, id: string): Promise<void> {
  const role = await roleById(store, id);
  if (role.built_in !== null) throw forbidden(`The built-in role ${role.name} cannot be deleted`);
  await store.roles.delete(role.id);
}

/** Each permission must be a scope its API defines (a 400 names the first that is not). */
async function checkPermissions(store: IdentityStore, body: PermissionsBody): Promise<StoredPermission[]> {
  const apis = new Map<string, Set<string> | undefined>();
  for (const [index, permission] of body.permissions.entries()) {
    if (!apis.has(permission.resource_server_identifier)) {
      const api = await store.resourceServers.findByIdentifier(permission.resource_server_identifier);
      apis.set(permission.resource_server_identifier, api ? new Set(api.scopes.map((s) => s.value)) : undefined);
    }
    const scopes = apis.get(permission.resource_server_identifier);
    if (!scopes) throw invalidField(`permissions.${index}.resource_server_identifier`, 'no API has this identifier');
    if (!scopes.has(permission.permission_name)) {
      throw invalidField(`permissions.${index}.permission_name`, `the API ${permission.resource_server_identifier} defines no such scope`);
    }
  }
  return body.permissions;
}

function refuseAdminChange(role: StoredRole): void {
  if (role.built_in === ADMIN_ROLE_KEY) {
    throw forbidden('The built-in Admin role always holds every management scope, and only those; its permissions cannot be changed');
  }
}

export async function listRolePermissions(store: IdentityStore, id: string, query: RbacListQuery): Promise<unknown> {
  const role = await roleById(store, id);
  const paging = offsetPagingOf(query);
  const [items, total] = await Promise.all([
    store.roles.rolePermissions(role.id, paging),
    paging.includeTotals ? store.roles.countRolePermissions(role.id) : undefined,
  ]);
  return listResponse('permissions', { items: items.map(toPermissionRecord) }, { kind: 'offset', ...paging }, total);
}

/** Whether every permission named is a scope of the management API (which the built-in Admin always holds). */
async function namesOnlyManagementScopes(store: IdentityStore, permissions: PermissionsBody['permissions']): Promise<boolean> {
  for (const identifier of new Set(permissions.map((p) => p.resource_server_identifier))) {
    if (!(await store.resourceServers.findByIdentifier(identifier))?.is_system) return false;
  }
  return true;
}

/** Adding what a role holds changes nothing: so the built-in Admin accepts its own management scopes (a tool re-applying an export sends them). */
export async function addRolePermissions(store: IdentityStore, id: string, body: PermissionsBody): Promise<void> {
  const role = await roleById(store, id);
  const permissions = await checkPermissions(store, body);
  if (role.built_in === ADMIN_ROLE_KEY) {
    if (await namesOnlyManagementScopes(store, permissions)) return;
    refuseAdminChange(role);
  }
  await store.roles.addRolePermissions(role.id, permissions);
}

/**
 * Permissions the role does not hold are ignored, as Auth0 does. The built-in Admin holds every
 * management scope by definition: removing them from it is accepted and changes nothing
 * (auth0-deploy-cli re-applies a role's permissions by removing all, then adding the file's);
 * naming anything else for it is refused.
 */
export async function removeRolePermissions(store: IdentityStore, id: string, body: PermissionsBody): Promise<void> {
  const role = await roleById(store, id);
  if (role.built_in === ADMIN_ROLE_KEY) {
    if (await namesOnlyManagementScopes(store, body.permissions)) return;
    refuseAdminChange(role);
  }
  await store.roles.removeRolePermissions(role.id, body.permissions);
}

export async function listRoleUsers(store: IdentityStore, id: string, query: RbacListQuery): Promise<unknown> {
  const role = await roleById(store, id);
  const paging = offsetPagingOf(query);
  const [items, total] = await Promise.all([
    store.roles.roleMembers(role.id, paging),
    paging.includeTotals ? store.roles.countRoleMembers(role.id) : undefined,
  ]);
  return listResponse('users', { items: items.map((m): RoleMemberRecord => ({ user_id: m.user_id, phone_number: m.phone_number })) }, { kind: 'offset', ...paging }, total);
}

export async function assignRoleUsers(store: IdentityStore, id: string, userIds: readonly string[]): Promise<void> {
  const role = await roleById(store, id);
  const unique = [...new Set(userIds)];
  const found = await store.users.findByIds(unique);
  const missing = unique.find((userId) => !found.some((u) => u.user_id === userId));
  if (missing !== undefined) throw invalidField(`users.${userIds.indexOf(missing)}`, 'no user has this id');
  await store.roles.assign(unique, [role.id]);
}

async function checkRoles(store: IdentityStore, roleIds: readonly string[]): Promise<string[]> {
  const unique = [...new Set(roleIds)];
  const found = await store.roles.findByIds(unique);
  const missing = unique.find((roleId) => !found.some((r) => r.id === roleId));
  if (missing !== undefined) throw invalidField(`roles.${roleIds.indexOf(missing)}`, 'no role has this id');
  return unique;
}

export async function listUserRoles(store: IdentityStore, userId: string, query: RbacListQuery): Promise<unknown> {
  await userExists(store, userId);
  const paging = offsetPagingOf(query);
  const [items, total] = await Promise.all([
    store.roles.rolesOfUser(userId, paging),
    paging.includeTotals ? store.roles.countRolesOfUser(userId) : undefined,
  ]);
  return listResponse('roles', { items: items.map(toRoleRecord) }, { kind: 'offset', ...paging }, total);
}

export async function assignUserRoles(store: IdentityStore, userId: string, roleIds: readonly string[]): Promise<void> {
  await userExists(store, userId);
  await store.roles.assign([userId], await checkRoles(store, roleIds));
}

export async function removeUserRoles(store: IdentityStore, userId: string, roleIds: readonly string[]): Promise<void> {
  await userExists(store, userId);
  await store.roles.unassign(userId, roleIds);
}

export async function listUserPermissions(store: IdentityStore, userId: string, query: RbacListQuery): Promise<unknown> {
  await userExists(store, userId);
  const paging = offsetPagingOf(query);
  const [items, total] = await Promise.all([
    store.roles.userPermissions(userId, paging),
    paging.includeTotals ? store.roles.countUserPermissions(userId) : undefined,
  ]);
  return listResponse(
    'permissions',
    { items: items.map((p): UserPermissionRecord => ({ ...toPermissionRecord(p), sources: p.sources })) },
    { kind: 'offset', ...paging },
    total,
  );
}

export async function addUserPermissions(store: IdentityStore, userId: string, body: PermissionsBody): Promise<void> {
  await userExists(store, userId);
  await store.roles.addUserPermissions(userId, await checkPermissions(store, body));
}

export async function removeUserPermissions(store: IdentityStore, userId: string, body: PermissionsBody): Promise<void> {
  await userExists(store, userId);
  await store.roles.removeUserPermissions(userId, body.permissions);
}

function toPermissionRecord(p: PermissionRecord): PermissionRecord {
  return {
    resource_server_identifier: p.resource_server_identifier,
    permission_name: p.permission_name,
    resource_server_name: p.resource_server_name,
    description: p.description,
  };
}
