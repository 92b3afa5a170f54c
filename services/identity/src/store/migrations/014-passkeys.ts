/**
 * Passkeys on the hosted login (issue 29).
 *
 * - connections: those stored before get `options.passkeys` with `enabled: false`, so nothing
 *   changes for them until an operator turns passkeys on (new connections get them on).
 * - passkey_user_handles: the WebAuthn user handle of each user, random (never the phone
 *   number nor the user id), given to every passkey the user registers.
 * - passkey_credentials: one row per registered passkey; the COSE public key, the signature
 *   counter, the authenticator's AAGUID and when it was last used.
 * - webauthn_challenges: each ceremony's challenge, bound to the login transaction it was
 *   made for, deleted by the one verification that uses it (single use), short-lived.
 * - passkey_offer_snoozes: after "Not now", how many more SMS logins pass before the offer.
 * - passkey_pending_offers: an SMS login that is showing the offer: its transaction, user and
 *   login session, until the user registers a passkey or skips it and the flow continues.
 */
export const sql = `
UPDATE connections
   SET options = options || '{"passkeys": {"enabled": false, "offer_after_sms_logins": 3, "user_verification": "required"}}'::jsonb
 WHERE NOT options ? 'passkeys';

CREATE TABLE passkey_user_handles (
  user_id     text PRIMARY KEY REFERENCES users (user_id) ON DELETE CASCADE,
  user_handle text NOT NULL UNIQUE
);

CREATE TABLE passkey_credentials (
  id              text PRIMARY KEY,
  user_id         text NOT NULL REFERENCES users (user_id) ON DELETE CASCADE,
  user_handle     text NOT NULL,
  public_key      text NOT NULL,
  counter         bigint NOT NULL DEFAULT 0,
  transports      jsonb NOT NULL DEFAULT '[]'::jsonb,
  aaguid          text NOT NULL,
  device_type     text NOT NULL,
  backed_up       boolean NOT NULL,
  rp_id           text NOT NULL,
  user_agent      text,
  created_at      timestamptz NOT NULL,
  last_used_at    timestamptz
);
CREATE INDEX passkey_credentials_user ON passkey_credentials (user_id);

CREATE TABLE webauthn_challenges (
  challenge       text PRIMARY KEY,
  transaction_id  text NOT NULL,
  purpose         text NOT NULL CHECK (purpose IN ('registration', 'authentication')),
  user_id         text,
  created_at      timestamptz NOT NULL,
  expires_at      timestamptz NOT NULL
);
CREATE INDEX webauthn_challenges_expires_at ON webauthn_challenges (expires_at);

CREATE TABLE passkey_offer_snoozes (
  user_id         text PRIMARY KEY REFERENCES users (user_id) ON DELETE CASCADE,
  sms_logins_left integer NOT NULL,
  updated_at      timestamptz NOT NULL
);

CREATE TABLE passkey_pending_offers (
  transaction_id  text PRIMARY KEY,
  user_id         text NOT NULL REFERENCES users (user_id) ON DELETE CASCADE,
  session_id      text NOT NULL,
  created_at      timestamptz NOT NULL,
  expires_at      timestamptz NOT NULL
);
`;
