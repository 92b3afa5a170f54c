import { z } from 'zod';
import { queryBoolean, queryInt, MAX_PAGE_SIZE } from './management-lists';

// Role-based access control for users, in Auth0's shapes (`/api/v2/roles`, `/users/{id}/roles`,
// `/users/{id}/permissions`). A permission is a scope of an API (resource server) given to a role
// or directly to a user; an API with `enforce_policies` grants a user login only those.

const roleFields = {
  name: z.string().trim().min(1).max(50),
  description: z.string().max(140),
  built_in: z.boolean(),
};

export const RoleCreateSchema = z.strictObject({
  name: roleFields.name,
  description: roleFields.description.optional(),
  built_in: z
    .literal(false)
    .optional()
    .describe('Read-only: `false` (what GET shows of a role created here) is accepted, so that a tool may send back an exported role; only the service creates built-in roles.'),
});
export type RoleCreate = z.infer<typeof RoleCreateSchema>;

export const RoleUpdateSchema = z.strictObject({
  name: roleFields.name.optional(),
  description: roleFields.description.optional(),
  built_in: roleFields.built_in
    .optional()
    .describe("Read-only: accepted when it is the role's current value (a tool sending back what GET showed); a different value is a 400."),
});
export type RoleUpdate = z.infer<typeof RoleUpdateSchema>;

export const RoleRecordSchema = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  /** One of the roles the service creates itself (Admin, Support, Viewer): never deleted. */
  built_in: z.boolean(),
});
export type RoleRecord = z.infer<typeof RoleRecordSchema>;

/** One permission: a scope (`permission_name`) of an API (`resource_server_identifier`). */
export const PermissionSchema = z.strictObject({
  resource_server_identifier: z.string().min(1).max(600),
  permission_name: z.string().min(1).max(280),
});
export type Permission = z.infer<typeof PermissionSchema>;

export const PermissionsBodySchema = z.strictObject({
  permissions: z.array(PermissionSchema).min(1).max(100).describe('Each a scope the named API defines.'),
});
export type PermissionsBody = z.infer<typeof PermissionsBodySchema>;

/** A role's permission as listed (Auth0 adds the API's name). */
export const PermissionRecordSchema = z.object({
  resource_server_identifier: z.string(),
  permission_name: z.string(),
  resource_server_name: z.string(),
  description: z.string(),
});
export type PermissionRecord = z.infer<typeof PermissionRecordSchema>;

/** A user's permission, with where it comes from: `sources` names the roles (or `DIRECT`). */
export const UserPermissionRecordSchema = PermissionRecordSchema.extend({
  sources: z.array(z.object({ source_id: z.string(), source_name: z.string(), source_type: z.enum(['DIRECT', 'ROLE']) })),
});
export type UserPermissionRecord = z.infer<typeof UserPermissionRecordSchema>;

export const RoleUsersBodySchema = z.strictObject({ users: z.array(z.string().min(1).max(300)).min(1).max(100) });
export type RoleUsersBody = z.infer<typeof RoleUsersBodySchema>;

export const UserRolesBodySchema = z.strictObject({ roles: z.array(z.string().min(1).max(100)).min(1).max(100) });
export type UserRolesBody = z.infer<typeof UserRolesBodySchema>;

/** A member of a role as `/roles/{id}/users` lists it (Auth0's shape, no email here). */
export const RoleMemberRecordSchema = z.object({
  user_id: z.string(),
  phone_number: z.string(),
});
export type RoleMemberRecord = z.infer<typeof RoleMemberRecordSchema>;

const offsetPaging = {
  page: queryInt(0, 1_000_000).optional(),
  per_page: queryInt(1, MAX_PAGE_SIZE).optional(),
  include_totals: queryBoolean.optional(),
};

/** `GET /api/v2/roles`: offset paging, `name_filter` (case-insensitive substring). */
export const RolesListQuerySchema = z.object({ ...offsetPaging, name_filter: z.string().max(50).optional() });
export type RolesListQuery = z.output<typeof RolesListQuerySchema>;

/** The offset-paged RBAC lists (a role's permissions and users, a user's roles and permissions). */
export const RbacListQuerySchema = z.object(offsetPaging);
export type RbacListQuery = z.output<typeof RbacListQuerySchema>;
