/**
 * OpenID Connect back-channel and front-channel logout (issue 44).
 *
 * - clients.oidc_logout: Auth0's `oidc_logout` settings (back-channel logout URLs and
 *   initiators) and this service's front-channel URL; NULL: the client is told nothing.
 * - backchannel_logouts: one row per logout_token still to deliver, written in the transaction
 *   that ends the session (so a notification is never lost, nor sent for a change that rolled
 *   back), worked by whichever replica claims it (`next_attempt_at` pushed forward while a
 *   delivery is in flight: one replica at a time per row), deleted once delivered or given up.
 *   `user_id` has no foreign key: a deleted account is the reason for some of them. Retries
 *   stop a configured time after `created_at` (when the session ended).
 *
 * Expand-only: a nullable column and a new table.
 */
export const sql = `
ALTER TABLE clients ADD COLUMN oidc_logout jsonb;

CREATE TABLE backchannel_logouts (
  id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  client_id       text NOT NULL REFERENCES clients (client_id) ON DELETE CASCADE,
  url             text NOT NULL,
  user_id         text NOT NULL,
  session_id      text NOT NULL,
  initiator       text NOT NULL,
  attempts        integer NOT NULL DEFAULT 0,
  created_at      timestamptz NOT NULL,
  next_attempt_at timestamptz NOT NULL,
  last_failure    text
);
CREATE INDEX backchannel_logouts_due ON backchannel_logouts (next_attempt_at);
`;
