import type { SealedColumn } from './sealed-column';
import type { SecretCipher } from './secret-cipher';
import type { SqlExecutor } from './sql-client';

const NAME = 'lookup_key';
const contextOf = (name: string) => `store_key:${name}`;
const CONTEXT = contextOf(NAME);

/**
 * The tenant logs' lookup key (phone_hash), kept in store_keys so that it outlives a rotation of
 * KEY_ENCRYPTION_SECRET. On the first start after the upgrade that added the table, the key every
 * earlier version derived from the secret is stored, so the hashes already written stay findable.
 * A key stored while no secret was set (plain, derived from a fixed string) is replaced by the
 * secret's own once one is set: a hash keyed by a public string protects nothing, and that is
 * what setting the secret has always done.
 */
export async function loadLookupKey(db: SqlExecutor, cipher: SecretCipher): Promise<Buffer> {
  const derived = cipher.seal(cipher.derivedLookupKey.toString('base64url'), CONTEXT);
  await db.query('INSERT INTO store_keys (name, sealed) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING', [NAME, derived]);
  const { rows } = await db.query<{ sealed: string }>('SELECT sealed FROM store_keys WHERE name = $1', [NAME]);
  const stored = rows[0]!.sealed;
  if (cipher.encrypts && stored.startsWith('plain:')) {
    // Compare-and-set: of two replicas starting at once, one replaces it; both then read the same key.
    await db.query('UPDATE store_keys SET sealed = $3 WHERE name = $1 AND sealed = $2', [NAME, stored, derived]);
    return loadLookupKey(db, cipher);
  }
  return Buffer.from(cipher.open(stored, CONTEXT), 'base64url');
}

/** For `keys rotate-secret`. */
export const storeKeysSealedColumns: readonly SealedColumn[] = [{ table: 'store_keys', column: 'sealed', key: ['name'], context: (row) => contextOf(row.name!) }];
