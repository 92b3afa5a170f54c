import { migrations as allMigrations, type Migration, type MigrationContext } from './migrations';
import type { SqlClient } from './sql-client';

/**
 * Applies missing migrations in one transaction under a transaction-scoped advisory lock
 * keyed by schema, so instances starting at the same moment apply each migration once:
 * the second waits for the first to commit, then finds nothing left to do. A migration
 * with a data step (`afterSql`) needs `context`; without one it stops before changing anything.
 */
export async function migrate(
  sql: SqlClient,
  schema = 'public',
  migrations: readonly Migration[] = allMigrations,
  context?: MigrationContext,
): Promise<number[]> {
  return sql.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`smsauth-identity-migrations:${schema}`]);
    await tx.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    await tx.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
    const { rows } = await tx.query<{ version: number }>('SELECT version FROM schema_migrations');
    const applied = new Set(rows.map((r) => r.version));
    const newlyApplied: number[] = [];
    for (const migration of migrations) {
      if (applied.has(migration.version)) continue;
      if (migration.sql) await tx.exec(migration.sql);
      if (migration.afterSql) {
        if (!context) throw new Error(`migration ${migration.version} (${migration.name}) needs a MigrationContext (openStore's migrationContext)`);
        await migration.afterSql(tx, context);
      }
      await tx.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [migration.version, migration.name]);
      newlyApplied.push(migration.version);
    }
    return newlyApplied;
  });
}
