import { storeKeysSealedColumns } from './lookup-key';
import { connectionsSealedColumns } from './repos/connections';
import { logStreamsSealedColumns } from './repos/log-streams';
import { oneTimeCodesSealedColumns } from './repos/one-time-codes';
import { signingKeysSealedColumns } from './repos/signing-keys';
import type { SealedColumn } from './sealed-column';
import type { SecretCipher } from './secret-cipher';
import type { SqlExecutor } from './sql-client';

/** Every sealed value the store holds; a new sealed column must be added here (the rotation test checks it). */
export const SEALED_COLUMNS: readonly SealedColumn[] = [
  ...signingKeysSealedColumns,
  ...connectionsSealedColumns,
  ...logStreamsSealedColumns,
  ...oneTimeCodesSealedColumns,
  ...storeKeysSealedColumns,
];

export interface ResealReport {
  /** Values resealed with KEY_ENCRYPTION_SECRET, per `table.column`. */
  resealed: Record<string, number>;
  /** Values already sealed with it. */
  alreadyCurrent: number;
  /** Values neither secret opens: named by table, column and key, never by content. */
  unreadable: { table: string; column: string; key: Record<string, string>; reason: string }[];
}

const BATCH = 200;
const PASSES = 5;

/**
 * Reseals every stored secret with KEY_ENCRYPTION_SECRET (what `keys rotate-secret` runs), online:
 * each value is replaced only if it is still the one read (compare-and-set), so a replica that
 * writes a row meanwhile keeps its write, and the row is looked at again in the next pass. Values
 * that neither secret opens are reported, never changed.
 */
export async function resealAll(db: SqlExecutor, cipher: SecretCipher, columns: readonly SealedColumn[] = SEALED_COLUMNS): Promise<ResealReport> {
  if (!cipher.encrypts) throw new Error('KEY_ENCRYPTION_SECRET is not set: there is no secret to seal with');
  const report: ResealReport = { resealed: {}, alreadyCurrent: 0, unreadable: [] };
  for (let pass = 1; pass <= PASSES; pass++) {
    let changedMeanwhile = 0;
    report.alreadyCurrent = 0;
    report.unreadable = [];
    for (const spec of columns) changedMeanwhile += await resealColumn(db, cipher, spec, report);
    if (changedMeanwhile === 0) return report;
  }
  throw new Error(`values kept changing while they were resealed (${PASSES} passes): run the command again`);
}

async function resealColumn(db: SqlExecutor, cipher: SecretCipher, spec: SealedColumn, report: ResealReport): Promise<number> {
  const name = `${spec.table}.${spec.column}`;
  const selected = [...spec.key, ...(spec.also ?? [])];
  const keyList = spec.key.join(', ');
  let after: string[] | undefined;
  let changedMeanwhile = 0;
  for (;;) {
    const params: unknown[] = after ?? [];
    const page = await db.query<Record<string, string>>(
      `SELECT ${selected.join(', ')}, ${spec.column} AS sealed FROM ${spec.table}
       WHERE ${spec.column} IS NOT NULL${after ? ` AND (${keyList}) > (${spec.key.map((_, i) => `$${i + 1}`).join(', ')})` : ''}
       ORDER BY ${keyList} LIMIT ${BATCH}`,
      params,
    );
    for (const row of page.rows) {
      const sealed = row.sealed!;
      if (cipher.isSealedWithCurrentSecret(sealed)) {
        report.alreadyCurrent++;
        continue;
      }
      const context = spec.context(row);
      let plaintext: string;
      try {
        plaintext = cipher.open(sealed, context);
      } catch (err) {
        report.unreadable.push({ table: spec.table, column: spec.column, key: Object.fromEntries(spec.key.map((k) => [k, row[k]!])), reason: (err as Error).message });
        continue;
      }
      const keyParams = spec.key.map((k) => row[k]);
      const updated = await db.query(
        `UPDATE ${spec.table} SET ${spec.column} = $1
         WHERE ${spec.key.map((k, i) => `${k} = $${i + 3}`).join(' AND ')} AND ${spec.column} = $2`,
        [cipher.seal(plaintext, context), sealed, ...keyParams],
      );
      if (updated.rowCount === 1) report.resealed[name] = (report.resealed[name] ?? 0) + 1;
      else changedMeanwhile++;
    }
    if (page.rows.length < BATCH) return changedMeanwhile;
    const last = page.rows[page.rows.length - 1]!;
    after = spec.key.map((k) => last[k]!);
  }
}
