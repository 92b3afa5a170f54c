/**
 * One row per hosted-login attempt (`GET /authorize` until the browser is sent back). The
 * validated request lives here, not in hidden form fields, so nothing the browser posts can
 * change the client, redirect_uri, nonce, audience or phone number. The browser holds only
 * the row id (in the form) and a random binding secret (in an HttpOnly cookie) whose SHA-256
 * is `binding_hash`: a request without that cookie cannot act on the row.
 */
export const sql = `
CREATE TABLE authorize_transactions (
  id              text PRIMARY KEY,
  binding_hash    text NOT NULL,
  client_id       text NOT NULL REFERENCES clients (client_id) ON DELETE CASCADE,
  connection_name text NOT NULL,
  redirect_uri    text NOT NULL,
  response_type   text NOT NULL,
  state           text,
  nonce           text,
  scope           text NOT NULL,
  audience        text,
  phone_number    text,
  code_sent_at    timestamptz,
  created_at      timestamptz NOT NULL,
  expires_at      timestamptz NOT NULL
);
CREATE INDEX authorize_transactions_expires_at ON authorize_transactions (expires_at);
`;
