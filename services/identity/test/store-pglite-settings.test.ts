import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { initialiseInChildProcess, openSqlClient, type SqlClient } from '../src/store/sql-client';

// PGlite keeps PostgreSQL's shared_buffers inside its WebAssembly memory, which never shrinks:
// the default 128MB alone was ~150 MB of identity's RSS (BENCHMARKS.md "Memory").
async function setting(client: SqlClient, name: string): Promise<string> {
  const { rows } = await client.query<Record<string, string>>(`SHOW ${name}`);
  return rows[0]![name]!;
}

describe('embedded database (PGlite) settings', () => {
  let dir: string;
  const opened: SqlClient[] = [];

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'identity-pglite-settings-'));
  });

  afterAll(async () => {
    for (const client of opened) await client.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function open(url: string): Promise<SqlClient> {
    const client = await openSqlClient(url);
    opened.push(client);
    return client;
  }

  // One memory database for the two tests that only read its settings: each new one is an initdb.
  let memory: Promise<SqlClient> | undefined;
  const memoryDatabase = () => (memory ??= open('memory://'));

  it('runs memory:// with 16MB of shared buffers instead of the default 128MB', async () => {
    const client = await memoryDatabase();
    expect(await setting(client, 'shared_buffers')).toBe('16MB');
  });

  it("keeps PGlite's own start settings next to it (single process, errors do not end the backend)", async () => {
    const client = await memoryDatabase();
    expect(await setting(client, 'max_worker_processes')).toBe('0');
    expect(await setting(client, 'exit_on_error')).toBe('off');
    expect(await setting(client, 'io_method')).toBe('sync');
  });

  it('writes the setting into a new pglite:<dir> and applies it when the directory is opened again', async () => {
    const dataDir = join(dir, 'identity');
    const first = await open(`pglite:${dataDir}`);
    expect(await setting(first, 'shared_buffers')).toBe('16MB');
    await first.exec('CREATE TABLE kept (id int); INSERT INTO kept VALUES (1)');
    await first.close();
    opened.splice(opened.indexOf(first), 1);
    expect(readFileSync(join(dataDir, 'postgresql.conf'), 'utf8')).toMatch(/^shared_buffers = 16MB/m);

    const second = await open(`pglite:${dataDir}`);
    expect(await setting(second, 'shared_buffers')).toBe('16MB');
    expect((await second.query('SELECT id FROM kept')).rows).toEqual([{ id: 1 }]);
  });

  it('creates a new data directory in a process of its own, and leaves one that holds a database alone', async () => {
    const dataDir = join(dir, 'initdb');
    await initialiseInChildProcess(dataDir, ['-c', 'shared_buffers=16MB']);
    expect(readFileSync(join(dataDir, 'PG_VERSION'), 'utf8').trim()).toMatch(/^\d+$/);
    expect(readFileSync(join(dataDir, 'postgresql.conf'), 'utf8')).toMatch(/^shared_buffers = 16MB/m);
    const before = statSync(join(dataDir, 'postgresql.conf')).mtimeMs;
    await initialiseInChildProcess(dataDir, ['-c', 'shared_buffers=32MB']);
    expect(statSync(join(dataDir, 'postgresql.conf')).mtimeMs).toBe(before);
    const client = await open(`pglite:${dataDir}`);
    expect(await setting(client, 'shared_buffers')).toBe('16MB');
  });

  it('names the directory when no database can be created in it', async () => {
    const notADirectory = join(dir, 'a-file');
    writeFileSync(notADirectory, 'x');
    await expect(initialiseInChildProcess(notADirectory, [])).rejects.toThrow(`could not create the embedded database in ${notADirectory}`);
  });
});
