/**
 * Embedded login (issue 44): Auth0's client settings `cross_origin_authentication` (off unless an
 * operator turns it on) and `cross_origin_loc`, and the login tickets `POST /co/authenticate`
 * hands a page of the client's origin for `/authorize?login_ticket=`. A ticket is stored by its
 * hash (as is its browser verifier), bound to the client and the origin, single-use and short-lived.
 * Only adds, so replicas of the previous release keep working on the new schema.
 */
export const sql = `
ALTER TABLE clients ADD COLUMN cross_origin_authentication boolean NOT NULL DEFAULT false;
ALTER TABLE clients ADD COLUMN cross_origin_loc text;

CREATE TABLE login_tickets (
  ticket_hash text PRIMARY KEY,
  co_id text NOT NULL,
  verifier_hash text NOT NULL,
  client_id text NOT NULL REFERENCES clients(client_id) ON DELETE CASCADE,
  origin text NOT NULL,
  connection_name text NOT NULL,
  user_id text NOT NULL,
  authenticated_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  used_at timestamptz
);
CREATE INDEX login_tickets_expires_at ON login_tickets (expires_at);
`;
