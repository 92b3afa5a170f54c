import type { SqlExecutor } from '../sql-client';
import { translateConstraintErrors } from '../errors';

/** A role: a named set of permissions. `built_in` is the key of a role the service creates itself. */
export interface StoredRole {
  id: string;
  name: string;
  description: string;
  built_in: string | null;
  created_at: Date;
  updated_at: Date;
}

/** A scope of an API, as given to a role or a user. */
export interface StoredPermission {
  resource_server_identifier: string;
  permission_name: string;
}

/** A permission as listed: with its API's name and the scope's description. */
export interface ListedPermission extends StoredPermission {
  resource_server_name: string;
  description: string;
}

export interface PermissionSource {
  source_id: string;
  source_name: string;
  source_type: 'DIRECT' | 'ROLE';
}

export interface ListedUserPermission extends ListedPermission {
  sources: PermissionSource[];
}

export interface RoleMember {
  user_id: string;
  phone_number: string;
}

interface Window {
  offset: number;
  limit: number;
}

/** The description the API gives the scope (empty when it no longer defines it). */
const SCOPE_DESCRIPTION = `COALESCE((SELECT s->>'description' FROM jsonb_array_elements(rs.scopes) s WHERE s->>'value' = p.permission_name LIMIT 1), '')`;

/** Every permission a user holds, each once per source (direct or one of its roles). */
const USER_PERMISSION_SOURCES = `
  SELECT up.resource_server_identifier, up.permission_name, 'DIRECT' AS source_type, '' AS source_id, '' AS source_name
    FROM user_permissions up WHERE up.user_id = $1
  UNION ALL
  SELECT rp.resource_server_identifier, rp.permission_name, 'ROLE', r.id, r.name
    FROM user_roles ur JOIN roles r ON r.id = ur.role_id JOIN role_permissions rp ON rp.role_id = r.id
   WHERE ur.user_id = $1`;

export function rolesRepo(db: SqlExecutor) {
  return {
    async insert(role: { id: string; name: string; description: string; built_in?: string | null }): Promise<StoredRole> {
      const { rows } = await translateConstraintErrors(() =>
        db.query<StoredRole>('INSERT INTO roles (id, name, description, built_in) VALUES ($1, $2, $3, $4) RETURNING *', [
          role.id,
          role.name,
          role.description,
          role.built_in ?? null,
        ]),
      );
      return rows[0]!;
    },

    async findById(id: string): Promise<StoredRole | undefined> {
      const { rows } = await db.query<StoredRole>('SELECT * FROM roles WHERE id = $1', [id]);
      return rows[0];
    },

    async findByIds(ids: readonly string[]): Promise<StoredRole[]> {
      const { rows } = await db.query<StoredRole>('SELECT * FROM roles WHERE id = ANY($1::text[])', [ids]);
      return rows;
    },

    async findBuiltIn(key: string): Promise<StoredRole | undefined> {
      const { rows } = await db.query<StoredRole>('SELECT * FROM roles WHERE built_in = $1', [key]);
      return rows[0];
    },

    async findByName(name: string): Promise<StoredRole | undefined> {
      const { rows } = await db.query<StoredRole>('SELECT * FROM roles WHERE lower(name) = lower($1)', [name]);
      return rows[0];
    },

    /** Offset paging, by name; `nameFilter` is a case-insensitive substring. */
    async page(nameFilter: string | undefined, window: Window): Promise<StoredRole[]> {
      const { rows } = await db.query<StoredRole>(
        `SELECT * FROM roles WHERE ($1::text IS NULL OR strpos(lower(name), lower($1)) > 0)
         ORDER BY name, id OFFSET $2 LIMIT $3`,
        [nameFilter ?? null, window.offset, window.limit],
      );
      return rows;
    },

    async count(nameFilter: string | undefined): Promise<number> {
      const { rows } = await db.query<{ total: number }>(
        'SELECT count(*)::int AS total FROM roles WHERE ($1::text IS NULL OR strpos(lower(name), lower($1)) > 0)',
        [nameFilter ?? null],
      );
      return rows[0]!.total;
    },

    async update(id: string, changes: { name?: string; description?: string }): Promise<StoredRole | undefined> {
      const { rows } = await translateConstraintErrors(() =>
        db.query<StoredRole>(
          `UPDATE roles SET name = COALESCE($2, name), description = COALESCE($3, description), updated_at = now()
           WHERE id = $1 RETURNING *`,
          [id, changes.name ?? null, changes.description ?? null],
        ),
      );
      return rows[0];
    },

    async delete(id: string): Promise<boolean> {
      const { rowCount } = await db.query('DELETE FROM roles WHERE id = $1', [id]);
      return rowCount > 0;
    },

    async rolePermissions(roleId: string, window: Window): Promise<ListedPermission[]> {
      const { rows } = await db.query<ListedPermission>(
        `SELECT p.resource_server_identifier, p.permission_name, rs.name AS resource_server_name, ${SCOPE_DESCRIPTION} AS description
           FROM role_permissions p JOIN resource_servers rs ON rs.identifier = p.resource_server_identifier
          WHERE p.role_id = $1 ORDER BY p.resource_server_identifier, p.permission_name OFFSET $2 LIMIT $3`,
        [roleId, window.offset, window.limit],
      );
      return rows;
    },

    async countRolePermissions(roleId: string): Promise<number> {
      const { rows } = await db.query<{ total: number }>('SELECT count(*)::int AS total FROM role_permissions WHERE role_id = $1', [roleId]);
      return rows[0]!.total;
    },

    /** Adds the permissions a role lacks (those it has stay as they are). */
    async addRolePermissions(roleId: string, permissions: readonly StoredPermission[]): Promise<void> {
      await db.query(
        `INSERT INTO role_permissions (role_id, resource_server_identifier, permission_name)
         SELECT $1, p.identifier, p.name FROM unnest($2::text[], $3::text[]) AS p (identifier, name)
         ON CONFLICT DO NOTHING`,
        [roleId, permissions.map((p) => p.resource_server_identifier), permissions.map((p) => p.permission_name)],
      );
    },

    async removeRolePermissions(roleId: string, permissions: readonly StoredPermission[]): Promise<void> {
      await db.query(
        `DELETE FROM role_permissions rp USING unnest($2::text[], $3::text[]) AS p (identifier, name)
          WHERE rp.role_id = $1 AND rp.resource_server_identifier = p.identifier AND rp.permission_name = p.name`,
        [roleId, permissions.map((p) => p.resource_server_identifier), permissions.map((p) => p.permission_name)],
      );
    },

    async roleMembers(roleId: string, window: Window): Promise<RoleMember[]> {
      const { rows } = await db.query<RoleMember>(
        `SELECT u.user_id, u.phone_number FROM user_roles ur JOIN users u ON u.user_id = ur.user_id
          WHERE ur.role_id = $1 ORDER BY u.user_id OFFSET $2 LIMIT $3`,
        [roleId, window.offset, window.limit],
      );
      return rows;
    },

    async countRoleMembers(roleId: string): Promise<number> {
      const { rows } = await db.query<{ total: number }>('SELECT count(*)::int AS total FROM user_roles WHERE role_id = $1', [roleId]);
      return rows[0]!.total;
    },

    /** Gives `roleIds` to `userIds` (every pair; those already held stay). */
    async assign(userIds: readonly string[], roleIds: readonly string[]): Promise<void> {
      await translateConstraintErrors(() =>
        db.query(
          `INSERT INTO user_roles (user_id, role_id)
           SELECT u, r FROM unnest($1::text[]) AS u, unnest($2::text[]) AS r ON CONFLICT DO NOTHING`,
          [userIds, roleIds],
        ),
      );
    },

    async unassign(userId: string, roleIds: readonly string[]): Promise<void> {
      await db.query('DELETE FROM user_roles WHERE user_id = $1 AND role_id = ANY($2::text[])', [userId, roleIds]);
    },

    async rolesOfUser(userId: string, window: Window): Promise<StoredRole[]> {
      const { rows } = await db.query<StoredRole>(
        `SELECT r.* FROM user_roles ur JOIN roles r ON r.id = ur.role_id WHERE ur.user_id = $1 ORDER BY r.name, r.id OFFSET $2 LIMIT $3`,
        [userId, window.offset, window.limit],
      );
      return rows;
    },

    async countRolesOfUser(userId: string): Promise<number> {
      const { rows } = await db.query<{ total: number }>('SELECT count(*)::int AS total FROM user_roles WHERE user_id = $1', [userId]);
      return rows[0]!.total;
    },

    /** A user's permissions on every API, from its roles and given directly, each with its sources. */
    async userPermissions(userId: string, window: Window): Promise<ListedUserPermission[]> {
      const { rows } = await db.query<ListedUserPermission>(
        `WITH p AS (${USER_PERMISSION_SOURCES})
         SELECT p.resource_server_identifier, p.permission_name, rs.name AS resource_server_name, ${SCOPE_DESCRIPTION} AS description,
                jsonb_agg(jsonb_build_object('source_id', p.source_id, 'source_name', p.source_name, 'source_type', p.source_type)
                          ORDER BY p.source_type, p.source_name) AS sources
           FROM p JOIN resource_servers rs ON rs.identifier = p.resource_server_identifier
          GROUP BY p.resource_server_identifier, p.permission_name, rs.name, rs.scopes
          ORDER BY p.resource_server_identifier, p.permission_name OFFSET $2 LIMIT $3`,
        [userId, window.offset, window.limit],
      );
      return rows;
    },

    async countUserPermissions(userId: string): Promise<number> {
      const { rows } = await db.query<{ total: number }>(
        `SELECT count(*)::int AS total FROM (SELECT DISTINCT resource_server_identifier, permission_name FROM (${USER_PERMISSION_SOURCES}) s) d`,
        [userId],
      );
      return rows[0]!.total;
    },

    /** The scopes a user holds on one API (roles and direct): what an RBAC token may carry. */
    async permissionNames(userId: string, identifier: string): Promise<string[]> {
      const { rows } = await db.query<{ permission_name: string }>(
        `SELECT permission_name FROM user_permissions WHERE user_id = $1 AND resource_server_identifier = $2
         UNION
         SELECT rp.permission_name FROM user_roles ur JOIN role_permissions rp ON rp.role_id = ur.role_id
          WHERE ur.user_id = $1 AND rp.resource_server_identifier = $2
         ORDER BY 1`,
        [userId, identifier],
      );
      return rows.map((r) => r.permission_name);
    },

    async addUserPermissions(userId: string, permissions: readonly StoredPermission[]): Promise<void> {
      await db.query(
        `INSERT INTO user_permissions (user_id, resource_server_identifier, permission_name)
         SELECT $1, p.identifier, p.name FROM unnest($2::text[], $3::text[]) AS p (identifier, name)
         ON CONFLICT DO NOTHING`,
        [userId, permissions.map((p) => p.resource_server_identifier), permissions.map((p) => p.permission_name)],
      );
    },

    async removeUserPermissions(userId: string, permissions: readonly StoredPermission[]): Promise<void> {
      await db.query(
        `DELETE FROM user_permissions up USING unnest($2::text[], $3::text[]) AS p (identifier, name)
          WHERE up.user_id = $1 AND up.resource_server_identifier = p.identifier AND up.permission_name = p.name`,
        [userId, permissions.map((p) => p.resource_server_identifier), permissions.map((p) => p.permission_name)],
      );
    },
  };
}
