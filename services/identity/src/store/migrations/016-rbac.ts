/**
 * Role-based access control for users (issue 30), as Auth0 has it.
 *
 * - resource_servers: `enforce_policies` (a user login gets only the scopes the user holds as
 *   permissions) and `token_dialect` (`access_token_authz` adds a `permissions` claim). The
 *   management API enforces them from now on: a user login may ask for its audience and gets
 *   exactly the management scopes the user's roles and direct permissions grant.
 * - roles: named sets of permissions; `built_in` marks the ones the service creates at start
 *   (Admin, Support, Viewer), which are never deleted.
 * - role_permissions / user_permissions: a scope of an API, given to a role or directly to a
 *   user; they follow the API's identifier (the management API's follows AUTH_URL) and go with it.
 * - user_roles: who holds which role.
 */
export const sql = `
ALTER TABLE resource_servers
  ADD COLUMN enforce_policies boolean NOT NULL DEFAULT false,
  ADD COLUMN token_dialect text NOT NULL DEFAULT 'access_token' CHECK (token_dialect IN ('access_token', 'access_token_authz'));
UPDATE resource_servers SET enforce_policies = true, token_dialect = 'access_token_authz' WHERE is_system;

CREATE TABLE roles (
  id          text PRIMARY KEY,
  name        text NOT NULL UNIQUE,
  description text NOT NULL DEFAULT '',
  built_in    text UNIQUE,
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX roles_created ON roles (created_at, id);

CREATE TABLE role_permissions (
  role_id                    text NOT NULL REFERENCES roles (id) ON DELETE CASCADE,
  resource_server_identifier text NOT NULL REFERENCES resource_servers (identifier) ON DELETE CASCADE ON UPDATE CASCADE,
  permission_name            text NOT NULL,
  created_at                 timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (role_id, resource_server_identifier, permission_name)
);

CREATE TABLE user_roles (
  user_id    text NOT NULL REFERENCES users (user_id) ON DELETE CASCADE,
  role_id    text NOT NULL REFERENCES roles (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, role_id)
);
CREATE INDEX user_roles_role ON user_roles (role_id, user_id);

CREATE TABLE user_permissions (
  user_id                    text NOT NULL REFERENCES users (user_id) ON DELETE CASCADE,
  resource_server_identifier text NOT NULL REFERENCES resource_servers (identifier) ON DELETE CASCADE ON UPDATE CASCADE,
  permission_name            text NOT NULL,
  created_at                 timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, resource_server_identifier, permission_name)
);
`;
