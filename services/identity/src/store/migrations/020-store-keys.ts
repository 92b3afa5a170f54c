/**
 * Keys the store itself keeps, sealed like every secret at rest (SecretCipher). The first is the
 * tenant logs' lookup key (phone_hash): it was derived from KEY_ENCRYPTION_SECRET, so rotating
 * that secret would have made every earlier record unfindable by phone number. Kept here, it is
 * resealed with the secret instead (lookup-key.ts stores the derived key on first start, so the
 * hashes already written stay valid).
 */
export const sql = `
CREATE TABLE store_keys (
  name       text PRIMARY KEY,
  sealed     text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
`;
