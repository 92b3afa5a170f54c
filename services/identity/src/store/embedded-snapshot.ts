import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { migrations as allMigrations, type Migration } from './migrations';
import type { SqlClient } from './sql-client';

/**
 * A new embedded database pays for initdb inside WebAssembly and for every migration: seconds
 * per start, and most of a test identity's start-up. A snapshot is the data directory of a freshly
 * migrated, empty database, kept as a file whose name is the hash of what decides its content
 * (PGlite's version, the schema, each migration's version, name and SQL); a later new database
 * starts from it (`startFrom`) and only checks that nothing is left to migrate. A changed
 * migration changes the name, so a stale snapshot is never used. A data step (`afterSql`) is
 * not hashed: it rewrites existing rows, of which a new database has none, and its compiled
 * text differs between the services' build and the tests' transpiler, which must share one file.
 */
export class EmbeddedSnapshots {
  constructor(
    private readonly dir: string,
    private readonly warn: (message: string) => void,
    private readonly migrations: readonly Migration[] = allMigrations,
  ) {}

  /** The file a snapshot of a new `schema` database is kept in. */
  fileFor(schema: string): string {
    const hash = createHash('sha256');
    hash.update(JSON.stringify({ pglite: pgliteVersion(), schema }));
    for (const m of this.migrations) hash.update(JSON.stringify([m.version, m.name, m.sql, Boolean(m.afterSql)]));
    return join(this.dir, `${this.prefixFor(schema)}${hash.digest('hex').slice(0, 16)}.tar`);
  }

  private prefixFor(schema: string): string {
    return `identity-${schema}-`;
  }

  /** The snapshot for `schema`, or undefined when there is none yet (or it cannot be read). */
  read(schema: string): Blob | undefined {
    const file = this.fileFor(schema);
    try {
      return new Blob([readFileSync(file)]);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') this.warn(`embedded database snapshot ${file} could not be read (${(err as Error).message}); starting without it`);
      return undefined;
    }
  }

  /** Deletes the snapshot for `schema` that a database could not start from. */
  discard(schema: string, reason: unknown): void {
    const file = this.fileFor(schema);
    this.warn(`embedded database snapshot ${file} could not be used (${(reason as Error).message}); deleted`);
    rmSync(file, { force: true });
  }

  /**
   * Keeps the data directory of `sql`, a database this process just created and migrated.
   * Written beside its final name and renamed, so a reader (another test worker) never sees half
   * a file; a failure costs only speed, so it is reported and the start goes on.
   */
  async write(schema: string, sql: SqlClient): Promise<void> {
    if (!sql.embedded?.created) return;
    const file = this.fileFor(schema);
    const partial = `${file}.${randomBytes(6).toString('hex')}.partial`;
    try {
      const archive = Buffer.from(await (await sql.embedded.dumpDataDir()).arrayBuffer());
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(partial, archive);
      renameSync(partial, file);
      this.removeOthers(schema, file);
    } catch (err) {
      rmSync(partial, { force: true });
      this.warn(`embedded database snapshot ${file} could not be written (${(err as Error).message}); the next new database runs initdb and the migrations again`);
    }
  }

  /** Snapshots of other migrations (an older checkout's): one 40 MB file per schema is enough. */
  private removeOthers(schema: string, kept: string): void {
    const prefix = this.prefixFor(schema);
    for (const name of readdirSync(this.dir)) {
      if (name.startsWith(prefix) && name.endsWith('.tar') && join(this.dir, name) !== kept) rmSync(join(this.dir, name), { force: true });
    }
  }
}

let version: string | undefined;

function pgliteVersion(): string {
  // The package's entry point lies in its dist/; package.json is one level up.
  version ??= (JSON.parse(readFileSync(join(dirname(require.resolve('@electric-sql/pglite')), '..', 'package.json'), 'utf8')) as { version: string }).version;
  return version;
}
