/**
 * Users the management API creates and blocks, and signing keys kept as the reference
 * product keeps them.
 *
 * - users: `blocked` (refused at start, at every grant and on the hosted page) and the two
 *   metadata objects the management API stores and merges.
 * - signing_keys: a `next` state (published before it ever signs, so a relying party holds
 *   the key before its first token) and `cert`, a PEM self-signed X.509 certificate of the
 *   key (JWKS `x5c`/`x5t`, the record's `cert`). Generating a key or signing a certificate
 *   needs code, not SQL: the key ring adds the next key and the certificates of existing keys
 *   at start (domain/tokens/key-ring.ts), so tokens already issued keep verifying.
 */
export const sql = `
ALTER TABLE users
  ADD COLUMN blocked       boolean NOT NULL DEFAULT false,
  ADD COLUMN user_metadata jsonb NOT NULL DEFAULT '{}',
  ADD COLUMN app_metadata  jsonb NOT NULL DEFAULT '{}';

ALTER TABLE signing_keys ADD COLUMN cert text;
ALTER TABLE signing_keys DROP CONSTRAINT IF EXISTS signing_keys_state_check;
ALTER TABLE signing_keys ADD CONSTRAINT signing_keys_state_check
  CHECK (state IN ('next', 'current', 'previous', 'retired', 'revoked'));
CREATE UNIQUE INDEX signing_keys_one_next ON signing_keys (state) WHERE state = 'next';
`;
