import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import pg from 'pg';
import { builtEntryPoint, freePort, RecordingServer } from '@smsauth/test-support';
import { AUTH_URL, describeWithPostgres, startTestIdentity, TestClock } from '../helpers';
import { FlowHarness, type LoginSetup, type TestDatabase } from '../passwordless/flow-harness';

/*
 * The backup and restore drill of docs/backups.md, step by step with the same commands and
 * flags: an identity on a PostgreSQL database of its own signs users in and issues tokens; the
 * database is dumped (pg_dump, custom format), identity stopped, the database dropped, created
 * empty and restored (pg_restore); identity started again with the same KEY_ENCRYPTION_SECRET
 * must carry on as if nothing happened. A database rather than a schema, because an operator
 * backs up a database (and pg_restore restores one).
 */

const run = promisify(execFile);
const TOOLS = ['pg_dump', 'pg_restore', 'createdb', 'dropdb', 'psql'];
const KEY_ENCRYPTION_SECRET = 'backup-drill-key-encryption-secret-0123456789';
const OTHER_SECRET = 'another-key-encryption-secret-than-the-dumps-0123';
const GATEWAY_SECRET = 'backup-drill-gateway-secret-never-logged';
const API = 'https://airport.backup-drill.test';
const MAIN = resolve(__dirname, '../../dist/main.js');

/** The PostgreSQL client tools the drill runs, or the loud reason it cannot. */
function missingTools(): string[] {
  return TOOLS.filter((tool) => spawnSync(tool, ['--version'], { stdio: 'ignore' }).status !== 0);
}

function describeWithPostgresTools(name: string, fn: (adminUrl: string) => void): void {
  describeWithPostgres(name, (adminUrl) => {
    const missing = missingTools();
    if (missing.length > 0) {
      console.warn(`SKIPPED: "${name}" runs the PostgreSQL client tools; not on PATH: ${missing.join(', ')} (apt-get install postgresql-client)`);
      it.skip(`needs ${missing.join(', ')} on PATH`, () => undefined);
      return;
    }
    fn(adminUrl);
  });
}

/** The URL of `database` on the server of `url`. */
function databaseUrlOf(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

async function onServer(adminUrl: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

interface Login {
  who: { phone: string; ip: string };
  userId: string;
  idToken: string;
  accessToken: string;
  refreshToken?: string;
}

interface LogRecord {
  log_id: string;
  date: string;
  type: string;
  user_id?: string;
}

describeWithPostgresTools('backup and restore drill: pg_dump, drop the database, pg_restore, start identity again', (adminUrl) => {
  const name = `smsauth_backup_drill_${randomBytes(6).toString('hex')}`;
  const databaseUrl = databaseUrlOf(adminUrl, name);
  const database: TestDatabase = { name: 'PostgreSQL', env: { DATABASE_URL: databaseUrl } };
  const env = { KEY_ENCRYPTION_SECRET, TRUST_PROXY: 'true' };
  const dumpDir = mkdtempSync(join(tmpdir(), 'identity-backup-drill-'));
  const dumpFile = join(dumpDir, 'identity.dump');
  const clock = new TestClock();

  let gateway: RecordingServer;
  let before: FlowHarness | undefined;
  let after: FlowHarness | undefined;
  let setup: LoginSetup;
  let backupAt: Date;
  /** One user signed in by /oauth/ro (opaque access token, refresh token), one by the OTP grant (an API's JWT). */
  let ro: Login;
  let otp: Login;
  const logins = () => [ro, otp];
  let pending: { phone: string; ip: string; code: string };
  type State = Awaited<ReturnType<typeof read>>;
  /** Read just before pg_dump, and just after identity started on the restored database. */
  let snapshot: State;
  let restored: State;

  /** A runbook command, with the flags docs/backups.md gives it. */
  async function step(tool: string, args: string[]): Promise<string> {
    const { stdout } = await run(tool, args, { timeout: 20_000 });
    return stdout;
  }

  const migrationsOf = () => step('psql', ['--dbname', databaseUrl, '--tuples-only', '--no-align', '--command', 'SELECT version, name, applied_at FROM schema_migrations ORDER BY version DESC LIMIT 1']);

  /** Everything the drill compares before and after, read through the management API. */
  async function read(h: FlowHarness) {
    const get = async (path: string) => {
      const res = await h.management('get', path);
      if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body;
    };
    return {
      jwks: (await h.http().get('/.well-known/jwks.json')).body as { keys: Array<{ kid: string }> },
      logs: (await get('/logs?sort=date:1&per_page=100')) as LogRecord[],
      clients: await get('/clients?per_page=100'),
      connections: await get('/connections?per_page=100'),
      apis: await get('/resource-servers?per_page=100'),
      users: await get('/users?per_page=100'),
      migrations: await migrationsOf(),
    };
  }

  beforeAll(async () => {
    // template0: no other session can hold it, which CREATE DATABASE from template1 would trip over.
    await onServer(adminUrl, `CREATE DATABASE ${name} TEMPLATE template0`);
    gateway = await RecordingServer.start({ path: '/sms' });
    before = await FlowHarness.start(env, { database, clock, gateway });
    await before.createApi({ name: 'Airport API', identifier: API, token_lifetime: 7200, scopes: [{ value: 'read:airports' }] });
    // A sealed gateway secret: the restored identity can deliver only if it opens it.
    setup = await before.loginSetup({ gateway_authentication: { method: 'bearer', subject: 'identity', audience: 'sms-gateway', secret: GATEWAY_SECRET } });

    const login = async (h: FlowHarness, who: { phone: string; ip: string }, res: { status: number; body: Record<string, string> }): Promise<Login> => {
      if (res.status !== 200) throw new Error(`sign-in before the backup failed: ${res.status} ${JSON.stringify(res.body)}`);
      const { claims } = await h.verifyWithJwks(res.body.id_token!, setup.clientId);
      return { who, userId: claims.sub!, idToken: res.body.id_token!, accessToken: res.body.access_token!, refreshToken: res.body.refresh_token };
    };
    const roCaller = before.caller();
    ro = await login(before, roCaller, await before.ro(setup, roCaller, await before.sendCode(setup, roCaller), { scope: 'openid offline_access', device: 'drill phone' }));
    const otpCaller = before.caller();
    otp = await login(before, otpCaller, await before.otp(setup, otpCaller, await before.sendCode(setup, otpCaller), { audience: API, scope: 'openid read:airports' }));
    // A code sent and not yet used when the backup is taken (its secret is sealed in the dump).
    const third = before.caller();
    pending = { ...third, code: await before.sendCode(setup, third) };

    snapshot = await read(before);
    backupAt = clock.now();
    await step('pg_dump', ['--format=custom', `--file=${dumpFile}`, `--dbname=${databaseUrl}`]);
    await before.close();
    before = undefined;

    // The loss, then the restore into an empty database.
    await step('dropdb', [`--maintenance-db=${adminUrl}`, name]);
    await step('createdb', [`--maintenance-db=${adminUrl}`, '--template=template0', name]);
    await step('pg_restore', ['--no-owner', '--single-transaction', `--dbname=${databaseUrl}`, dumpFile]);

    // Later than anything before the backup, so the restored log's old records are told apart.
    clock.advance(60);
    after = await FlowHarness.start(env, { database, clock, gateway });
    restored = await read(after);
  }, 60_000);

  afterAll(async () => {
    await before?.close();
    await after?.close();
    await gateway?.close();
    // Whatever step failed: the drill's database goes (FORCE: a connection left open by a failure).
    await onServer(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    rmSync(dumpDir, { recursive: true, force: true });
  });

  it('restores the same schema version, so the same identity version can start on it', () => {
    // The newest migration and when it was applied: a fresh database migrated again would differ.
    expect(snapshot.migrations.trim()).toMatch(/^\d+\|\S+\|\d{4}-/);
    expect(restored.migrations).toBe(snapshot.migrations);
  });

  it('signs the same users in again by SMS, each with the user_id it had before', async () => {
    for (const login of logins()) {
      const who = { ...login.who, ip: '203.0.113.50' };
      const res = await after!.otp(setup, who, await after!.sendCode(setup, who));
      expect(res.status).toBe(200);
      const { claims } = await after!.verifyWithJwks(res.body.id_token, setup.clientId);
      expect(claims.sub).toBe(login.userId);
    }
    // Delivered with the gateway secret sealed before the backup: the restored identity opened it.
    const last = JSON.parse(gateway.requests.at(-1)!.body) as { recipient: string };
    expect(last.recipient).toBe(otp.who.phone);
    expect(gateway.requests.at(-1)!.headers.authorization).toMatch(/^Bearer \S+$/);
  });

  it('publishes the same JWKS, and tokens issued before the backup verify against it under the same kid', async () => {
    expect(restored.jwks).toEqual(snapshot.jwks);
    const currentKid = snapshot.jwks.keys[0]?.kid;
    const kids = new Set<string>();
    for (const login of logins()) {
      const { header, claims } = await after!.verifyWithJwks(login.idToken, setup.clientId);
      expect(claims.sub).toBe(login.userId);
      kids.add(header.kid!);
    }
    const access = await after!.verifyWithJwks(otp.accessToken, API);
    expect(access.claims).toMatchObject({ sub: otp.userId, aud: API });
    expect([...kids, access.header.kid]).toEqual([currentKid, currentKid]);
    // The opaque access token is a row of the dump: /userinfo still answers it.
    const userinfo = await after!.http().get('/userinfo').set('authorization', `Bearer ${ro.accessToken}`);
    expect(userinfo.status).toBe(200);
    expect(userinfo.body.sub).toBe(ro.userId);
  });

  it('keeps what was under way: a refresh token and a code sent before the backup still work', async () => {
    const refreshed = await after!.http().post('/oauth/token').send({ grant_type: 'refresh_token', client_id: setup.clientId, refresh_token: ro.refreshToken });
    expect(refreshed.status).toBe(200);
    expect((await after!.verifyWithJwks(refreshed.body.id_token, setup.clientId)).claims.sub).toBe(ro.userId);

    const res = await after!.ro(setup, pending, pending.code);
    expect(res.status).toBe(200);
  });

  it('keeps the tenant log: the records from before the backup, with the same ids and count, still found by phone number', async () => {
    const byId = (a: LogRecord, b: LogRecord) => a.log_id.localeCompare(b.log_id);
    const old = restored.logs.filter((r) => new Date(r.date) <= backupAt).sort(byId);
    expect(snapshot.logs.length).toBeGreaterThan(5);
    expect(old).toEqual([...snapshot.logs].sort(byId));
    // Nothing else but what came after the restore: the restored identity's admin token.
    expect(restored.logs.filter((r) => new Date(r.date) > backupAt).map((r) => r.type)).toEqual(['seccft']);
    // The phone lookup is a keyed hash derived from KEY_ENCRYPTION_SECRET: the same secret finds the old records.
    const login = snapshot.logs.find((r) => r.type === 's' && r.user_id === ro.userId);
    expect(login).toBeDefined();
    const found = await after!.management('get', `/logs?q=${encodeURIComponent(`phone_number:"${ro.who.phone}" AND type:s`)}&sort=date:1`);
    expect(found.status).toBe(200);
    expect(found.body).toContainEqual(login);
  });

  it('keeps clients, connections, APIs and users unchanged', () => {
    expect(restored.clients).toEqual(snapshot.clients);
    expect(restored.connections).toEqual(snapshot.connections);
    expect(restored.apis).toEqual(snapshot.apis);
    expect(restored.users).toEqual(snapshot.users);
    expect((snapshot.users as unknown[]).length).toBe(logins().length);
  });

  it('refuses to start on the restored database with another KEY_ENCRYPTION_SECRET, or with none, saying which secret is wrong', async () => {
    await expect(startTestIdentity({ ...database.env, KEY_ENCRYPTION_SECRET: OTHER_SECRET }, { clock })).rejects.toThrow(
      'a stored secret cannot be decrypted: KEY_ENCRYPTION_SECRET differs from the one it was sealed with',
    );
    await expect(startTestIdentity({ ...database.env, KEY_ENCRYPTION_SECRET: undefined }, { clock })).rejects.toThrow(
      'a stored secret is encrypted but KEY_ENCRYPTION_SECRET is not set',
    );
  });

  it('as a process with another KEY_ENCRYPTION_SECRET, exits 1 before listening and logs why, without the secret', async () => {
    if (!builtEntryPoint(MAIN, 'backup and restore drill (identity as a process)', 'pnpm --filter @smsauth/identity build')) return;
    const port = await freePort();
    const childEnv = { PATH: process.env.PATH, DATABASE_URL: databaseUrl, KEY_ENCRYPTION_SECRET: OTHER_SECRET, AUTH_URL, HOST: '127.0.0.1', PORT: String(port), LOG_FORMAT: 'json' };
    const exit = await run(process.execPath, [MAIN], { env: childEnv, timeout: 20_000 }).then(
      () => ({ code: 0, output: '' }),
      (err: { code: number; stdout: string; stderr: string }) => ({ code: err.code, output: err.stdout + err.stderr }),
    );
    expect(exit.code).toBe(1);
    expect(exit.output).toContain('failed to start');
    expect(exit.output).toContain('KEY_ENCRYPTION_SECRET differs from the one it was sealed with');
    expect(exit.output).not.toContain(OTHER_SECRET);
    expect(exit.output).not.toContain(KEY_ENCRYPTION_SECRET);
  });
});
