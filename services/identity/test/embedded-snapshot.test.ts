import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
  const tableExists = async (store: OpenedStore, table: string) =>
    (await store.sql.query<{ found: string | null }>('SELECT to_regclass($1)::text AS found', [`public.${table}`])).rows[0]!.found !== null;

  /** Rewrites the snapshot with a table no migration makes, so a database started from it shows it. */
  const markSnapshot = async () => {
    const file = snapshots.fileFor('public');
    const db = await PGlite.create({ loadDataDir: new Blob([readFileSync(file)]) });
    await db.exec('CREATE TABLE public.from_snapshot (marker text); INSERT INTO public.from_snapshot VALUES ($$yes$$)');
    writeFileSync(file, Buffer.from(await (await db.dumpDataDir('none')).arrayBuffer()));
    await db.close();
  };

  const newDirectory = () => {
    dir = mkdtempSync(join(tmpdir(), 'identity-snapshot-'));
    snapshots = new EmbeddedSnapshots(join(dir, 'snapshots'), () => undefined);
    warnings = [];
  };
  const keepSnapshot = (archive: Buffer) => {
    mkdirSync(join(dir, 'snapshots'), { recursive: true });
    writeFileSync(snapshots.fileFor('public'), archive);
  };

  /** The first start's snapshot (made in beforeAll, by the real first start), for the other tests. */
  let made: Buffer;
  let firstStart: { created: boolean | undefined; fileKept: boolean };
  beforeAll(async () => {
    newDirectory();
    const first = await open('memory://');
    firstStart = { created: first.sql.embedded?.created, fileKept: existsSync(snapshots.fileFor('public')) };
    await first.sql.exec('CREATE TABLE written_after_open (x int)');
    await close(first);
    made = readFileSync(snapshots.fileFor('public'));
    rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(newDirectory);
  afterEach(async () => {
    for (const store of opened.splice(0)) await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps the first new memory database, migrated and empty, and starts the next one from it', async () => {
    expect(firstStart).toEqual({ created: true, fileKept: true });
    keepSnapshot(made);
    expect(readdirSync(join(dir, 'snapshots'))).toHaveLength(1);
    await markSnapshot();

    const second = await open('memory://');
    expect(await tableExists(second, 'from_snapshot')).toBe(true);
    expect(await tableExists(second, 'written_after_open')).toBe(false);
    const { rows } = await second.sql.query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version');
    expect(rows.map((r) => r.version)).toEqual(migrations.map((m) => m.version));
    expect(warnings).toEqual([]);
  });

  it('starts a pglite directory that holds no database from the snapshot, with its settings, and keeps what is written there across restarts', async () => {
    keepSnapshot(made);
    await markSnapshot();
    const dataDir = join(dir, 'data');

    const first = await open(`pglite:${dataDir}`);
    expect(await tableExists(first, 'from_snapshot')).toBe(true);
    expect(readFileSync(join(dataDir, 'postgresql.conf'), 'utf8')).toMatch(/^shared_buffers = 16MB/m);
    await first.sql.query("INSERT INTO public.from_snapshot VALUES ('written after')");
    await close(first);

    const again = await open(`pglite:${dataDir}`);
    const { rows } = await again.sql.query<{ marker: string }>('SELECT marker FROM public.from_snapshot ORDER BY marker');
    expect(rows.map((r) => r.marker)).toEqual(['written after', 'yes']);
    expect(again.sql.embedded?.created).toBe(false);
  });

  it('leaves a pglite directory that already holds a database as it is', async () => {
    keepSnapshot(made);
    const url = `pglite:${join(dir, 'data')}`;
    await close(await open(url));
    await markSnapshot();

    const reopened = await open(url);
    expect(await tableExists(reopened, 'from_snapshot')).toBe(false);
  });

  it('deletes a snapshot that cannot be unpacked, starts a memory database without it, keeps a new one and removes those of other migrations of that schema only', async () => {
    keepSnapshot(Buffer.from('not a tar archive'));
    const file = snapshots.fileFor('public');
    const snapshotDir = join(dir, 'snapshots');
    const older = join(snapshotDir, 'identity-public-0000000000000000.tar');
    const otherSchema = join(snapshotDir, 'identity-tenant_b-0000000000000000.tar');
    writeFileSync(older, 'an older checkout’s');
    writeFileSync(otherSchema, 'another schema’s');

    const store = await open('memory://');
    expect((await store.sql.query('SELECT 1 FROM schema_migrations')).rowCount).toBe(migrations.length);
    expect(warnings).toEqual([expect.stringContaining(`embedded database snapshot ${file} could not be used`)]);
    expect(readFileSync(file).length).toBeGreaterThan(1_000_000);
    expect(readdirSync(snapshotDir).sort()).toEqual([file, otherSchema].map((f) => f.slice(snapshotDir.length + 1)).sort());
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
