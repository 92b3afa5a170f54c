import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEMO_PHONE_NUMBER } from '../src/demo-number';
import { launchStack, type LaunchedStack } from '../src/launcher';
import { ManagementClient } from '../src/management-client';
import { consoleCallbackUrl } from '../src/operators';
import { freePort } from '../src/ports';
import { repoRoot } from '../src/processes';

jest.setTimeout(240_000);

/** Runs the built `pnpm operator:add` script with the stack's admin client; its exit code and output. */
function operatorAdd(stack: LaunchedStack, args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(repoRoot, 'packages', 'stack', 'dist', 'operator-add.js'), ...args], {
      env: { PATH: process.env.PATH, AUTH_URL: stack.urls.authUrl, ADMIN_CLIENT_ID: stack.adminClientId, ADMIN_CLIENT_SECRET: stack.adminClientSecret },
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('exit', (code) => resolve({ code, output }));
  });
}

describe("pnpm start's operators and console client", () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'smsauth-operators-'));
  let stack: LaunchedStack;
  let api: ManagementClient;

  beforeAll(async () => {
    const ports = { identity: await freePort(), gateway: await freePort(), airport: await freePort() };
    stack = await launchStack({ ports, dataDir, env: {} });
    api = new ManagementClient(stack.urls.authUrl, stack.adminClientId, stack.adminClientSecret);
  });

  afterAll(async () => {
    await stack?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("has identity's console client, a public SPA called back at /console/callback, enabled on the SMS connection", async () => {
    const client = (await api.listClients()).find((c) => c.client_id === stack.tenant.consoleClientId)!;
    expect(client).toMatchObject({
      name: 'Console',
      app_type: 'spa',
      token_endpoint_auth_method: 'none',
      callbacks: [consoleCallbackUrl(stack.urls.authUrl)],
      web_origins: [stack.urls.authUrl],
    });
    const connection = (await api.listConnections()).find((c) => c.name === stack.tenant.connectionName)!;
    expect(connection.enabled_clients).toContain(client.client_id);
  });

  it('makes the demo number the first operator (FIRST_OPERATOR_PHONE_NUMBER), with the Admin role and no password', async () => {
    const [user] = await api.findUsersByPhone(stack.tenant.connectionName, DEMO_PHONE_NUMBER);
    expect(user!.user_id).toBe(stack.tenant.operatorUserId);
    expect((await api.listUserRoles(user!.user_id)).map((r) => r.name)).toEqual(['Admin']);
  });

  it('adds an operator from the command line, and says which roles exist when one is misspelt', async () => {
    const added = await operatorAdd(stack, ['+14155552671', '--role', 'support']);
    expect(added.code).toBe(0);
    const userId = /(sms\|\S+)/.exec(added.output)![1]!;
    expect((await api.listUserRoles(userId)).map((r) => r.name)).toEqual(['Support']);
    const again = await operatorAdd(stack, ['+14155552671', '--role', 'Viewer']);
    expect(again.output).toContain(`found ${userId}`);
    expect((await api.listUserRoles(userId)).map((r) => r.name)).toEqual(['Support', 'Viewer']);

    const wrong = await operatorAdd(stack, ['+14155552671', '--role', 'Root']);
    expect(wrong.code).toBe(1);
    expect(wrong.output).toContain('no role is named Root; the roles are: Admin, Support, Viewer');
    expect((await operatorAdd(stack, ['+14155552671'])).code).toBe(2);
  });
});
