/**
 * Every table of the identity service, including those of the passwordless flow.
 * Secrets marked "sealed" hold SecretCipher output (AES-256-GCM when KEY_ENCRYPTION_SECRET is set).
 */
export const sql = `
CREATE TABLE clients (
  client_id        text PRIMARY KEY,
  name             text NOT NULL,
  app_type         text NOT NULL,
  callbacks        jsonb NOT NULL DEFAULT '[]',
  allowed_origins  jsonb NOT NULL DEFAULT '[]',
  grant_types      jsonb NOT NULL DEFAULT '[]',
  default_audience text,
  -- salted SHA-256 of a server-generated (or >= 32 character) secret; null for public clients
  secret_hash      text,
  -- 'bootstrap_admin' for the client created from ADMIN_CLIENT_* (at most one)
  system_role      text UNIQUE,
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE resource_servers (
  id             text PRIMARY KEY,
  name           text NOT NULL,
  identifier     text NOT NULL UNIQUE,
  signing_alg    text NOT NULL DEFAULT 'RS256',
  token_lifetime integer NOT NULL DEFAULT 86400,
  scopes         jsonb NOT NULL DEFAULT '[]',
  -- true for the management API itself
  is_system      boolean NOT NULL DEFAULT false,
  created_at     timestamptz NOT NULL DEFAULT now(),
  updated_at     timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE client_grants (
  id         text PRIMARY KEY,
  client_id  text NOT NULL REFERENCES clients (client_id) ON DELETE CASCADE,
  audience   text NOT NULL REFERENCES resource_servers (identifier) ON DELETE CASCADE ON UPDATE CASCADE,
  scope      jsonb NOT NULL DEFAULT '[]',
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (client_id, audience)
);

CREATE TABLE connections (
  id             text PRIMARY KEY,
  name           text NOT NULL UNIQUE,
  strategy       text NOT NULL,
  -- options without gateway_authentication.secret, which lives sealed in gateway_secret
  options        jsonb NOT NULL,
  gateway_secret text,
  created_at     timestamptz NOT NULL DEFAULT now(),
  updated_at     timestamptz NOT NULL DEFAULT now()
);

-- enabled_clients, in the order given; deleting a client removes it from every connection
CREATE TABLE connection_clients (
  connection_id text NOT NULL REFERENCES connections (id) ON DELETE CASCADE,
  client_id     text NOT NULL REFERENCES clients (client_id) ON DELETE CASCADE,
  position      integer NOT NULL,
  PRIMARY KEY (connection_id, client_id)
);
CREATE INDEX connection_clients_client ON connection_clients (client_id);

CREATE TABLE users (
  user_id        text PRIMARY KEY,
  connection_id  text NOT NULL REFERENCES connections (id) ON DELETE CASCADE,
  phone_number   text NOT NULL,
  phone_verified boolean NOT NULL DEFAULT false,
  created_at     timestamptz NOT NULL DEFAULT now(),
  updated_at     timestamptz NOT NULL DEFAULT now(),
  last_login     timestamptz,
  logins_count   integer NOT NULL DEFAULT 0,
  UNIQUE (connection_id, phone_number)
);
CREATE INDEX users_phone_number ON users (phone_number);

CREATE TABLE signing_keys (
  kid            text PRIMARY KEY,
  alg            text NOT NULL DEFAULT 'RS256',
  public_jwk     jsonb NOT NULL,
  private_key    text NOT NULL, -- sealed PKCS#8 PEM
  -- current -> previous (still published) -> retired; revoked at any time but current
  state          text NOT NULL CHECK (state IN ('current', 'previous', 'retired', 'revoked')),
  created_at     timestamptz NOT NULL DEFAULT now(),
  current_since  timestamptz,
  current_until  timestamptz,
  revoked_at     timestamptz
);
CREATE UNIQUE INDEX signing_keys_one_current ON signing_keys (state) WHERE state = 'current';
CREATE UNIQUE INDEX signing_keys_one_previous ON signing_keys (state) WHERE state = 'previous';

-- The newest code of one phone number on one connection (a new start replaces it).
CREATE TABLE one_time_codes (
  connection_id text NOT NULL REFERENCES connections (id) ON DELETE CASCADE,
  phone_number  text NOT NULL,
  -- the start request it was issued for (its _id) and who asked: binds the code to that request
  request_id    text NOT NULL,
  client_id     text NOT NULL REFERENCES clients (client_id) ON DELETE CASCADE,
  auth_params   jsonb NOT NULL DEFAULT '{}',
  secret        text NOT NULL, -- sealed TOTP secret
  issued_at     timestamptz NOT NULL,
  expires_at    timestamptz NOT NULL,
  attempts      integer NOT NULL DEFAULT 0,
  used          boolean NOT NULL DEFAULT false,
  PRIMARY KEY (connection_id, phone_number)
);

-- Brute-force protection: failures of one phone number from one IP, and the resulting block.
CREATE TABLE login_failures_by_ip (
  phone_number  text NOT NULL,
  ip            text NOT NULL,
  failures      integer NOT NULL DEFAULT 0,
  blocked_until timestamptz,
  updated_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (phone_number, ip)
);

-- Consecutive failures of one phone number from any IP (NIST SP 800-63B 5.2.2 lock).
CREATE TABLE login_failures_by_phone (
  phone_number         text PRIMARY KEY,
  consecutive_failures integer NOT NULL DEFAULT 0,
  locked_at            timestamptz,
  updated_at           timestamptz NOT NULL DEFAULT now()
);

-- Fixed-window counters keyed by a string such as 'start:ip:203.0.113.7'.
CREATE TABLE rate_limit_counters (
  key          text PRIMARY KEY,
  window_start timestamptz NOT NULL,
  count        integer NOT NULL
);

-- Rotating refresh tokens; reuse of a rotated one revokes its whole family.
CREATE TABLE refresh_tokens (
  id          text PRIMARY KEY,
  token_hash  text NOT NULL UNIQUE,
  family_id   text NOT NULL,
  client_id   text NOT NULL REFERENCES clients (client_id) ON DELETE CASCADE,
  user_id     text NOT NULL REFERENCES users (user_id) ON DELETE CASCADE,
  scope       text NOT NULL DEFAULT '',
  audience    text,
  device      text,
  created_at  timestamptz NOT NULL,
  expires_at  timestamptz,
  rotated_at  timestamptz,
  revoked_at  timestamptz
);
CREATE INDEX refresh_tokens_family ON refresh_tokens (family_id);

-- Opaque access tokens (valid at /userinfo), stored as SHA-256 hashes.
CREATE TABLE access_tokens (
  token_hash text PRIMARY KEY,
  client_id  text NOT NULL REFERENCES clients (client_id) ON DELETE CASCADE,
  user_id    text NOT NULL REFERENCES users (user_id) ON DELETE CASCADE,
  scope      text NOT NULL DEFAULT '',
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL
);
CREATE INDEX access_tokens_expires_at ON access_tokens (expires_at);
`;
