import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { createSecretCipher, openStore, type OpenedStore } from '../src/store';
import { EmbeddedSnapshots } from '../src/store/embedded-snapshot';
import { migrations } from '../src/store/migrations';
import { quietMigrationContext } from './helpers';

describe('new embedded databases start from a migrated snapshot', () => {
  let dir: string;
  let snapshots: EmbeddedSnapshots;
  let warnings: string[];
  const opened: OpenedStore[] = [];

  const open = async (databaseUrl: string) => {
    const store = await openStore(databaseUrl, createSecretCipher(undefined), {
      migrationContext: quietMigrationContext,
      embeddedSnapshotDir: join(dir, 'snapshots'),
      warn: (message) => warnings.push(message),
    });
    opened.push(store);
    return store;
  };
  const close = async (store: OpenedStore) => {
    opened.splice(opened.indexOf(store), 1);
    await store.close();
  };

  /** Rewrites the snapshot with a table no migration makes, so a database started from it shows it. */
  const markSnapshot = async () => {
    const file = snapshots.fileFor('public');
    const db = await PGlite.create({ loadDataDir: new Blob([readFileSync(file)]) });
    await db.exec('CREATE TABLE public.from_snapshot (marker text); INSERT INTO public.from_snapshot VALUES ($$yes$$)');
    writeFileSync(file, Buffer.from(await (await db.dumpDataDir('none')).arrayBuffer()));
    await db.close();
  };
  const hasMarker = async (store: OpenedStore) =>
    (await store.sql.query<{ found: string | null }>("SELECT to_regclass('public.from_snapshot')::text AS found")).rows[0]!.found !== null;

  /** One snapshot made by the real first start, copied into each test's own directory. */
  let made: Buffer;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'identity-snapshot-'));
    snapshots = new EmbeddedSnapshots(join(dir, 'snapshots'), () => undefined);
    warnings = [];
    await close(await open('memory://'));
    made = readFileSync(snapshots.fileFor('public'));
    rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'identity-snapshot-'));
    snapshots = new EmbeddedSnapshots(join(dir, 'snapshots'), () => undefined);
    warnings = [];
  });
  const keepMadeSnapshot = () => {
    mkdirSync(join(dir, 'snapshots'));
    writeFileSync(snapshots.fileFor('public'), made);
  };
  afterEach(async () => {
    for (const store of opened.splice(0)) await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps the first new memory database, migrated and empty, and starts the next one from it', async () => {
    const first = await open('memory://');
    expect(first.sql.embedded?.created).toBe(true);
    expect(existsSync(snapshots.fileFor('public'))).toBe(true);
    await first.sql.exec('CREATE TABLE written_after_open (x int)');
    await close(first);
    await markSnapshot();

    const second = await open('memory://');
    expect(await hasMarker(second)).toBe(true);
    const { rows } = await second.sql.query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version');
    expect(rows.map((r) => r.version)).toEqual(migrations.map((m) => m.version));
    expect((await second.sql.query("SELECT to_regclass('public.written_after_open')::text AS found")).rows[0]).toEqual({ found: null });
    expect(warnings).toEqual([]);
  });

  it('starts a pglite directory that holds no database from the snapshot, and keeps what is written there across restarts', async () => {
    keepMadeSnapshot();
    await markSnapshot();
    const url = `pglite:${join(dir, 'data')}`;

    const first = await open(url);
    expect(await hasMarker(first)).toBe(true);
    await first.sql.query("INSERT INTO public.from_snapshot VALUES ('written after')");
    await close(first);

    const again = await open(url);
    const { rows } = await again.sql.query<{ marker: string }>('SELECT marker FROM public.from_snapshot ORDER BY marker');
    expect(rows.map((r) => r.marker)).toEqual(['written after', 'yes']);
  });

  it('leaves a pglite directory that already holds a database as it is', async () => {
    const url = `pglite:${join(dir, 'data')}`;
    await close(await open(url)); // no snapshot yet: initdb, migrations, then the snapshot is kept
    expect(existsSync(snapshots.fileFor('public'))).toBe(true);
    await markSnapshot();

    const reopened = await open(url);
    expect(await hasMarker(reopened)).toBe(false);
  });

  it('deletes a snapshot that cannot be unpacked, starts a memory database without it and keeps a new one', async () => {
    keepMadeSnapshot();
    const file = snapshots.fileFor('public');
    writeFileSync(file, 'not a tar archive');

    const store = await open('memory://');
    expect((await store.sql.query('SELECT 1 FROM schema_migrations')).rowCount).toBe(migrations.length);
    expect(warnings).toEqual([expect.stringContaining(`embedded database snapshot ${file} could not be used`)]);
    expect(readFileSync(file).length).toBeGreaterThan(1_000_000);
  });

  it('names a different file for another schema or a changed migration, so a stale snapshot is never used', () => {
    const changed = migrations.map((m, i) => (i === migrations.length - 1 ? { ...m, sql: `${m.sql}\n-- changed` } : m));
    const files = new Set([
      snapshots.fileFor('public'),
      snapshots.fileFor('tenant_b'),
      new EmbeddedSnapshots(join(dir, 'snapshots'), () => undefined, changed).fileFor('public'),
    ]);
    expect(files.size).toBe(3);
    expect(snapshots.fileFor('public')).toBe(new EmbeddedSnapshots(join(dir, 'snapshots'), () => undefined).fileFor('public'));
  });
});
