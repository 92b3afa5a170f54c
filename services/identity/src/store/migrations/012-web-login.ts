/**
 * The web login (issue 28): the authorization code flow, login sessions and Auth0's client
 * settings for browser and web-server applications.
 *
 * - clients: `web_origins` (CORS and web_message), `initiate_login_uri`, `oidc_conformant`,
 *   `refresh_token` (Auth0's rotation/expiration settings; NULL: the defaults). Clients that
 *   could already sign users in on the hosted login (they hold the passwordless OTP grant) are
 *   given `authorization_code` and `implicit`, so what they could do stays possible under the
 *   grant names the flows now check.
 * - authorize_transactions: what a code-flow request adds (PKCE challenge, response_mode,
 *   max_age, prompt).
 * - authorization_codes: one row per code, stored by its SHA-256; `used_at` makes it
 *   single-use, and what its first exchange issued is kept so a replay can revoke it.
 * - login_sessions: the hosted login's session, the cookie's secret stored by its SHA-256.
 * - refresh_tokens: `family_expires_at`, the absolute end of a family (token_lifetime), and
 *   `session_id`, the login session the family came from.
 */
export const sql = `
ALTER TABLE clients ADD COLUMN web_origins jsonb NOT NULL DEFAULT '[]'::jsonb;
ALTER TABLE clients ADD COLUMN initiate_login_uri text;
ALTER TABLE clients ADD COLUMN oidc_conformant boolean NOT NULL DEFAULT true;
ALTER TABLE clients ADD COLUMN refresh_token jsonb;
UPDATE clients SET grant_types = grant_types || '["authorization_code", "implicit"]'::jsonb
  WHERE grant_types ? 'http://auth0.com/oauth/grant-type/passwordless/otp';

ALTER TABLE authorize_transactions ADD COLUMN response_mode text;
ALTER TABLE authorize_transactions ADD COLUMN code_challenge text;
ALTER TABLE authorize_transactions ADD COLUMN max_age integer;
ALTER TABLE authorize_transactions ADD COLUMN prompt text;

CREATE TABLE login_sessions (
  id               text PRIMARY KEY,
  secret_hash      text NOT NULL UNIQUE,
  user_id          text NOT NULL REFERENCES users (user_id) ON DELETE CASCADE,
  connection_name  text NOT NULL,
  client_ids       jsonb NOT NULL DEFAULT '[]'::jsonb,
  initial_ip       text,
  initial_user_agent text,
  authenticated_at timestamptz NOT NULL,
  created_at       timestamptz NOT NULL,
  updated_at       timestamptz NOT NULL,
  idle_expires_at  timestamptz NOT NULL,
  expires_at       timestamptz NOT NULL
);
CREATE INDEX login_sessions_user ON login_sessions (user_id);
CREATE INDEX login_sessions_expires_at ON login_sessions (expires_at);

CREATE TABLE authorization_codes (
  code_hash        text PRIMARY KEY,
  client_id        text NOT NULL REFERENCES clients (client_id) ON DELETE CASCADE,
  user_id          text NOT NULL REFERENCES users (user_id) ON DELETE CASCADE,
  redirect_uri     text NOT NULL,
  scope            text NOT NULL,
  audience         text,
  nonce            text,
  code_challenge   text,
  session_id       text,
  auth_time        timestamptz NOT NULL,
  created_at       timestamptz NOT NULL,
  expires_at       timestamptz NOT NULL,
  used_at          timestamptz,
  refresh_family_id text,
  access_token_hash text
);
CREATE INDEX authorization_codes_expires_at ON authorization_codes (expires_at);

ALTER TABLE refresh_tokens ADD COLUMN family_expires_at timestamptz;
ALTER TABLE refresh_tokens ADD COLUMN session_id text;
`;
