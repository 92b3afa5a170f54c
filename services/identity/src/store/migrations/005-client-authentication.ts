/**
 * Client authentication as Auth0 models it (issue 15):
 * - `clients.token_endpoint_auth_method`: existing rows keep what they did before (a client
 *   holding a secret authenticated with it, the others were public);
 * - `clients.allowed_logout_urls`: where `GET /v2/logout` may send the browser;
 * - `client_credentials`: public keys registered for private_key_jwt;
 * - `client_assertion_jtis`: the `jti` of every accepted client assertion until it expires,
 *   so a replayed assertion is refused on every replica (the primary key decides).
 */
export const sql = `
ALTER TABLE clients ADD COLUMN token_endpoint_auth_method text;
UPDATE clients SET token_endpoint_auth_method = CASE WHEN secret_hash IS NULL THEN 'none' ELSE 'client_secret_post' END;
ALTER TABLE clients ALTER COLUMN token_endpoint_auth_method SET NOT NULL;
ALTER TABLE clients ADD CONSTRAINT clients_token_endpoint_auth_method_check
  CHECK (token_endpoint_auth_method IN ('none', 'client_secret_post', 'client_secret_basic', 'private_key_jwt'));
ALTER TABLE clients ADD COLUMN allowed_logout_urls jsonb NOT NULL DEFAULT '[]'::jsonb;

CREATE TABLE client_credentials (
  id              text PRIMARY KEY,
  client_id       text NOT NULL REFERENCES clients (client_id) ON DELETE CASCADE,
  credential_type text NOT NULL,
  name            text,
  kid             text NOT NULL,
  alg             text NOT NULL,
  pem             text NOT NULL,
  created_at      timestamptz NOT NULL DEFAULT now(),
  updated_at      timestamptz NOT NULL DEFAULT now(),
  expires_at      timestamptz
);
CREATE INDEX client_credentials_client_id ON client_credentials (client_id);

CREATE TABLE client_assertion_jtis (
  client_id  text NOT NULL REFERENCES clients (client_id) ON DELETE CASCADE,
  jti        text NOT NULL,
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (client_id, jti)
);
CREATE INDEX client_assertion_jtis_expires_at ON client_assertion_jtis (expires_at);
`;
