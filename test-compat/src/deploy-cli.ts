import { execFile, fork, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { promisify } from 'node:util';
import { freePort, launchStack, type LaunchedStack } from '@smsauth/stack';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';

// auth0-deploy-cli as its users run it, both ways it is run: the directory format through its
// Node API (`dump` / `deploy`, in this process), the YAML format through the CLI (`a0deploy`, a
// process per command), each with a config naming the domain and a machine-to-machine app's
// credentials. (A CLI process loads the tool and its SDK anew, seconds each time; the Node API's
// process, deploy-cli-node-api.cjs, loads them once.) It exports and
// imports a whole tenant, so it gets a stack of its own: the suite's shared stack is changed by
// the other test files while they run, which would move between two exports. The global setup
// keeps a TLS terminator for it (the suite's certificate) in front of COMPAT_DEPLOY_CLI_IDENTITY_PORT.

const run = promisify(execFile);

/** The CLI of the pinned package (its `bin`). */
const A0DEPLOY = join(dirname(require.resolve('auth0-deploy-cli/package.json')), 'lib', 'index.js');

/** The tool's resource types that identity has (docs/auth0-deploy-cli.md says why not the others). */
export const DEPLOY_CLI_RESOURCE_TYPES = ['clients', 'connections', 'resourceServers', 'clientGrants', 'roles', 'logStreams', 'tenant', 'branding', 'prompts'];

export type DeployFormat = 'directory' | 'yaml';

export interface DeployTenant {
  stack: LaunchedStack;
  /** `localhost:<port>`: what AUTH0_DOMAIN holds (the tool builds https:// URLs from it). */
  domain: string;
  /** Runs `a0deploy export`; answers where the export is (a directory, or the tenant.yaml file). */
  exportTenant(format: DeployFormat): Promise<string>;
  /** Runs `a0deploy import` of a directory or a tenant.yaml file. */
  importTenant(input: string): Promise<void>;
  stop(): Promise<void>;
}

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: the global setup of test-compat did not run`);
  return value;
}

/** The stack, behind the terminator the global setup keeps for it; the CLI processes trust its certificate (NODE_EXTRA_CA_CERTS). */
export async function launchDeployTenant(): Promise<DeployTenant> {
  const workDir = mkdtempSync(join(tmpdir(), 'smsauth-deploy-cli-'));
  const caFile = required('COMPAT_CA_FILE');
  const domain = required('COMPAT_DEPLOY_CLI_DOMAIN');
  const ports = { identity: Number(required('COMPAT_DEPLOY_CLI_IDENTITY_PORT')), gateway: await freePort(), airport: await freePort() };
  const stack = await launchStack({
    ports,
    dataDir: join(workDir, 'data'),
    env: { LOG_LEVEL: 'warn' },
    publicAuthUrl: `https://${domain}`,
    serviceEnv: { NODE_EXTRA_CA_CERTS: caFile },
  });
  const configFile = join(workDir, 'config.json');
  // What the tool's README shows, with the resource types identity has (docs/auth0-deploy-cli.md);
  // AUTH0_ALLOW_DELETE stays false (its default): an import never deletes.
  writeFileSync(
    configFile,
    JSON.stringify({
      AUTH0_DOMAIN: domain,
      AUTH0_CLIENT_ID: stack.adminClientId,
      AUTH0_CLIENT_SECRET: stack.adminClientSecret,
      AUTH0_INCLUDED_ONLY: DEPLOY_CLI_RESOURCE_TYPES,
    }),
  );
  const a0deploy = async (args: string[]): Promise<void> => {
    try {
      await run(process.execPath, [A0DEPLOY, ...args, '--config_file', configFile], {
        env: { ...process.env, NODE_EXTRA_CA_CERTS: caFile },
        maxBuffer: 16 * 1024 * 1024,
      });
    } catch (err) {
      const { stdout, stderr } = err as { stdout?: string; stderr?: string };
      throw new Error(`a0deploy ${args[0]} failed:\n${stdout ?? ''}\n${stderr ?? ''}`);
    }
  };
  const nodeApi = startNodeApi(caFile);
  const config = JSON.parse(readFileSync(configFile, 'utf8')) as Record<string, unknown>;
  let exports = 0;
  return {
    stack,
    domain,
    async exportTenant(format) {
      const outputFolder = join(workDir, `export-${format}-${(exports += 1)}`);
      if (format === 'directory') await nodeApi.run({ command: 'dump', params: { output_folder: outputFolder, format, config } });
      else await a0deploy(['export', '--format', format, '--output_folder', outputFolder]);
      return format === 'yaml' ? join(outputFolder, 'tenant.yaml') : outputFolder;
    },
    async importTenant(input) {
      if (input.endsWith('.yaml')) await a0deploy(['import', '--input_file', input]);
      else await nodeApi.run({ command: 'deploy', params: { input_file: input, config } });
    },
    stop: () => {
      nodeApi.stop();
      return stack.stop();
    },
  };
}

type NodeApiCommand = { command: 'dump'; params: { output_folder: string; format: DeployFormat; config: Record<string, unknown> } } | { command: 'deploy'; params: { input_file: string; config: Record<string, unknown> } };

/** The tool's Node API in the process deploy-cli-node-api.cjs keeps (trusting the suite's certificate); `stop` ends it. */
function startNodeApi(caFile: string): { run(command: NodeApiCommand): Promise<void>; stop(): void } {
  const child: ChildProcess = fork(join(__dirname, 'deploy-cli-node-api.cjs'), [], {
    env: { ...process.env, NODE_EXTRA_CA_CERTS: caFile, AUTH0_LOG: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  let nextId = 0;
  return {
    run(command) {
      const id = (nextId += 1);
      output = '';
      return new Promise((resolve, reject) => {
        const onExit = (code: number | null) => reject(new Error(`the Node API process exited (${code}) during ${command.command}:\n${output}`));
        const onMessage = (message: { id: number; error?: string }) => {
          if (message.id !== id) return;
          child.off('message', onMessage);
          child.off('exit', onExit);
          if (message.error) reject(new Error(`${command.command} failed: ${message.error}\n${output}`));
          else resolve();
        };
        child.on('message', onMessage);
        child.once('exit', onExit);
        child.send({ id, ...command });
      });
    },
    stop: () => child.disconnect(),
  };
}

/** Every file of an export (a directory, or the one tenant.yaml), by path relative to it. */
export function readExport(location: string): Map<string, string> {
  const files = new Map<string, string>();
  if (location.endsWith('.yaml')) {
    files.set('tenant.yaml', readFileSync(location, 'utf8'));
    return files;
  }
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else files.set(relative(location, path), readFileSync(path, 'utf8'));
    }
  };
  walk(location);
  return files;
}

/** Writes a file of a directory export (creating its folder). */
export function writeExportFile(root: string, path: string, content: unknown): void {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), `${JSON.stringify(content, null, 2)}\n`);
}

/** The resource types of an export, as the tool's YAML names them, each an array of plain records. */
export interface TenantModel {
  clients: Array<Record<string, unknown>>;
  connections: Array<Record<string, unknown>>;
  resourceServers: Array<Record<string, unknown>>;
  clientGrants: Array<Record<string, unknown>>;
  roles: Array<Record<string, unknown>>;
}

/** Where each type lives in the directory format. */
const FOLDERS: Record<keyof TenantModel, string> = {
  clients: 'clients',
  connections: 'connections',
  resourceServers: 'resource-servers',
  clientGrants: 'grants',
  roles: 'roles',
};

/** An export (directory or tenant.yaml) read as records, each type in file or document order. */
export function readModel(location: string): TenantModel {
  return readWithPaths(location).model;
}

function readWithPaths(location: string): { model: TenantModel; paths: Map<Record<string, unknown>, string> } {
  const paths = new Map<Record<string, unknown>, string>();
  if (location.endsWith('.yaml')) {
    const document = parseYaml(readFileSync(location, 'utf8')) as Partial<TenantModel>;
    return { model: { clients: [], connections: [], resourceServers: [], clientGrants: [], roles: [], ...document }, paths };
  }
  const files = [...readExport(location)].sort(([a], [b]) => a.localeCompare(b));
  const ofType = (type: keyof TenantModel) =>
    files
      .filter(([path]) => dirname(path) === FOLDERS[type])
      .map(([path, content]) => {
        const record = JSON.parse(content) as Record<string, unknown>;
        paths.set(record, path);
        return record;
      });
  return {
    model: { clients: ofType('clients'), connections: ofType('connections'), resourceServers: ofType('resourceServers'), clientGrants: ofType('clientGrants'), roles: ofType('roles') },
    paths,
  };
}

/** The tenant's settings, brand and custom texts of an export: `tenant`, `branding` and `prompts.customText` as the tool names them. */
export interface TenantSingletons {
  tenant: Record<string, unknown>;
  branding: Record<string, unknown>;
  customText: Record<string, Record<string, Record<string, Record<string, string>>>>;
}

/** Where the directory format keeps them. */
const SINGLETON_FILES = { tenant: 'tenant.json', branding: 'branding/branding.json', customText: 'prompts/custom-text.json' } as const;

/** The tenant settings, branding and custom texts of an export (directory or tenant.yaml). */
export function readSingletons(location: string): TenantSingletons {
  if (location.endsWith('.yaml')) {
    const document = parseYaml(readFileSync(location, 'utf8')) as { tenant?: object; branding?: object; prompts?: { customText?: object } };
    return { tenant: { ...document.tenant }, branding: { ...document.branding }, customText: { ...document.prompts?.customText } } as TenantSingletons;
  }
  const files = readExport(location);
  const read = (path: string) => JSON.parse(files.get(path) ?? '{}') as Record<string, never>;
  return { tenant: read(SINGLETON_FILES.tenant), branding: read(SINGLETON_FILES.branding), customText: read(SINGLETON_FILES.customText) };
}

/** Edits the tenant settings, branding and custom texts of a directory export as a user does (each file rewritten). */
export function editSingletons(location: string, edit: (singletons: TenantSingletons) => void): void {
  const singletons = readSingletons(location);
  edit(singletons);
  for (const [key, path] of Object.entries(SINGLETON_FILES)) writeExportFile(location, path, singletons[key as keyof TenantSingletons]);
}

/**
 * Edits an export as a user does: `edit` changes records in place or adds some; the directory
 * format gets the changed files rewritten and a file per new record, YAML the whole document.
 */
export function editExport(location: string, edit: (model: TenantModel) => void): void {
  const { model, paths } = readWithPaths(location);
  const before = new Map([...paths.keys()].map((record) => [record, JSON.stringify(record)]));
  edit(model);
  if (location.endsWith('.yaml')) {
    writeFileSync(location, stringifyYaml(model));
    return;
  }
  for (const type of Object.keys(FOLDERS) as Array<keyof TenantModel>) {
    for (const record of model[type]) {
      const path = paths.get(record) ?? join(FOLDERS[type], `${String(record.name ?? `${String(record.client_id)}-${String(record.audience)}`).replace(/[^\w -]/g, '_')}.json`);
      if (before.get(record) !== JSON.stringify(record)) writeExportFile(location, path, record);
    }
  }
}
