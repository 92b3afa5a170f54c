/**
 * Management lists: every order a list pages in has an index ending in its unique key, so a
 * page (deep ones too) reads the index instead of sorting the table; connections gain the
 * reference product's top-level fields.
 */
export const sql = `
ALTER TABLE connections ADD COLUMN display_name text;
ALTER TABLE connections ADD COLUMN metadata jsonb NOT NULL DEFAULT '{}';
ALTER TABLE connections ADD COLUMN is_domain_connection boolean NOT NULL DEFAULT false;

-- the default order of GET /api/v2/users, and sort=created_at:±1
CREATE INDEX users_created_at_user_id ON users (created_at, user_id);
-- sort=last_login:±1 (the dashboards' default). last_login changes at each login, so logins
-- now update this index (and lose HOT updates): the price of that sort.
CREATE INDEX users_last_login_user_id ON users (last_login, user_id);
-- sort=phone_number:±1 and prefix searches (phone_number:+1415*). C collation whatever the
-- database's: numbers sort byte-wise and LIKE 'x%' can use the index; queries say COLLATE "C" too.
CREATE INDEX users_phone_number_c_user_id ON users ((phone_number COLLATE "C"), user_id);
-- identities.connection:"…" with the default order
CREATE INDEX users_connection_created_at ON users (connection_id, created_at, user_id);

CREATE INDEX connections_created_at_id ON connections (created_at, id);
CREATE INDEX client_grants_created_at_id ON client_grants (created_at, id);
CREATE INDEX clients_created_at_client_id ON clients (created_at, client_id);
`;
