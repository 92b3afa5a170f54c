import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCommand } from '../../src/cli-commands';
import { describeWithPostgres, dropSchema, startTestIdentity, testConfig, uniqueSchema, type TestIdentity } from '../helpers';
import { managementGet, tenantFile } from './tenant-harness';
import { AIRPORT_API, tenantDocument, VARIABLES } from './tenant-document';

/** Runs a command in this process, as `smsauth-identity` would: its exit code and what it wrote. */
async function run(argv: string[], env: Record<string, string>, schema?: string): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCommand(argv, { config: testConfig(env), variables: VARIABLES, schema, out: (t) => (out += t), err: (t) => (err += t) });
  return { code, out, err };
}

describeWithPostgres('smsauth-identity on PostgreSQL, while identity runs', (databaseUrl) => {
  const schema = uniqueSchema('cli');
  const env = { DATABASE_URL: databaseUrl };
  let identity: TestIdentity;
  beforeAll(async () => {
    identity = await startTestIdentity(env, { schema });
  });
  afterAll(async () => {
    await identity.close();
    await dropSchema(databaseUrl, schema);
  });

  it('applies a tenant file, and applying it again changes nothing', async () => {
    const file = tenantFile(tenantDocument());
    const first = await run(['tenant', 'apply', file], env, schema);
    expect(first).toMatchObject({ code: 0, err: '' });
    expect(first.out).toContain('created   clients Demo M2M\n');
    expect(first.out).toContain(`${file}: 7 created, 0 updated, 0 unchanged.\n`);
    const clients = (await managementGet(identity.app, '/clients?per_page=100')) as Array<{ name: string }>;
    expect(clients.map((c) => c.name)).toEqual(expect.arrayContaining(['Demo', 'Demo Web App', 'Demo M2M']));
    expect(await managementGet(identity.app, `/resource-servers/${encodeURIComponent(AIRPORT_API)}`)).toMatchObject({ name: 'Airport API' });

    const again = await run(['tenant', 'apply', file], env, schema);
    expect(again.out).toContain(`${file}: 0 created, 0 updated, 7 unchanged.\n`);
    expect(again.out).not.toContain(VARIABLES.GATEWAY_AUTH_SECRET);

    const wrong = tenantFile({ clients: [{ name: 'Demo', app_type: 'robot' }] });
    const refused = await run(['tenant', 'apply', wrong], env, schema);
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(new RegExp(`^refused: ${wrong}: clients\\[0\\] "Demo": app_type: `));
  });

  it('adds an operator with roles, again with more roles, and says which roles exist when one is misspelt', async () => {
    const added = await run(['operator', 'add', '+1 415 555 2671', '--role', 'support'], env, schema);
    expect(added).toMatchObject({ code: 0, err: '' });
    const userId = /^created (sms\|\S+) \(\+14155552671\) on sms; roles: Support\./.exec(added.out)?.[1];
    expect(userId).toBeDefined();
    expect(added.out).toContain("The console's client is now enabled on sms.");

    const again = await run(['operator', 'add', '--phone', '+14155552671', '--role', 'Viewer'], env, schema);
    expect(again.out).toMatch(new RegExp(`^found ${userId!.replace('|', '\\|')} `));
    const roles = (await managementGet(identity.app, `/users/${encodeURIComponent(userId!)}/roles`)) as Array<{ name: string }>;
    expect(roles.map((r) => r.name)).toEqual(['Support', 'Viewer']);

    const wrong = await run(['operator', 'add', '+14155552671', '--role', 'Root'], env, schema);
    expect(wrong).toMatchObject({ code: 1, err: 'refused: roles: no role is named Root; the roles are: Admin, Airport reader, Support, Viewer\n' });
    const noConnection = await run(['operator', 'add', '+14155552671', '--role', 'Admin', '--connection', 'staff'], env, schema);
    expect(noConnection).toMatchObject({ code: 1, err: 'refused: connection: no connection is named staff\n' });
    expect((await run(['operator', 'add', '+14155552671'], env, schema)).code).toBe(2);
    expect((await run(['operator', 'remove'], env, schema)).err).toContain('unknown command: operator remove');
  });
});

describe('smsauth-identity on an embedded database', () => {
  const dir = mkdtempSync(join(tmpdir(), 'identity-cli-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses the database of an identity that runs, which owns it', async () => {
    const env = { DATABASE_URL: `pglite:${dir}` };
    const identity = await startTestIdentity(env);
    const server = identity.app.listen(0, '127.0.0.1');
    try {
      await new Promise((resolve) => server.once('listening', resolve));
      const port = String((server.address() as AddressInfo).port);
      const refused = await run(['operator', 'add', '+14155552671', '--role', 'Admin'], { ...env, PORT: port, AUTH_URL: identity.config.AUTH_URL });
      expect(refused).toMatchObject({ code: 1, err: `failed: identity is running on port ${port} and owns its embedded database (pglite:${dir}): stop it first, or use PostgreSQL\n` });
    } finally {
      await new Promise((resolve) => server.close(resolve));
      await identity.close();
    }
  });

  it('runs as the built command with the environment identity uses', async () => {
    const cli = (args: string[]) =>
      new Promise<{ code: number | null; out: string }>((resolve) => {
        const child = spawn(process.execPath, [join(__dirname, '..', '..', 'dist', 'cli.js'), ...args], {
          env: { PATH: process.env.PATH, DATABASE_URL: `pglite:${dir}`, PORT: '1', ...VARIABLES },
        });
        let out = '';
        child.stdout.on('data', (chunk) => (out += chunk));
        child.stderr.on('data', (chunk) => (out += chunk));
        child.on('exit', (code) => resolve({ code, out }));
      });
    expect(await cli([])).toMatchObject({ code: 2, out: expect.stringContaining('usage: smsauth-identity <command>') });
    const file = tenantFile(tenantDocument());
    // The identity of the test above started on this directory once: the built-in roles exist.
    expect(await cli(['tenant', 'apply', file])).toMatchObject({ code: 0, out: expect.stringContaining(`${file}: 7 created, 0 updated, 0 unchanged.`) });
    const added = await cli(['operator', 'add', '+14155552671', '--role', 'Airport reader']);
    expect(added).toMatchObject({ code: 0, out: expect.stringMatching(/^created sms\|\S+ \(\+14155552671\) on sms; roles: Airport reader\./) });
  });
});
