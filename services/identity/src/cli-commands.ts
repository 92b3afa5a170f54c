import { parseArgs } from 'node:util';
import { HttpError, systemClock } from '@smsauth/service-kit';
import { connectionRulesOf } from './app';
import { issuerOf, secretsAtRestOf, type Config } from './config';
import { ensureOperator } from './domain/management/operators';
import { phoneNumberMigrationContext } from './domain/phone/stored-numbers';
import { applyTenantDocument } from './domain/tenant/apply';
import { TenantFileError } from './domain/tenant/errors';
import { readTenantFile } from './domain/tenant/file';
import { createSecretCipher, openStore, resealAll, secretKeyId, type IdentityStore, type SecretCipher, type SqlClient } from './store';

export const USAGE = `usage: smsauth-identity <command>   (or: node dist/cli.js <command>)

  operator add <phone number> --role <role> [--role <role>...] [--connection <name>]
      Makes the number an operator with those roles (built in: Admin, Support, Viewer): the user
      of the connection (sms by default) with that number, created when missing. Running it
      again adds roles. The operator signs in to <AUTH_URL>/console/ with a code sent by SMS.
  tenant apply <file>
      Creates or updates what the tenant file (JSON, or YAML: .yaml/.yml) describes, as
      TENANT_FILE does at every start (docs/tenant-file.md).
  keys rotate-secret
      Reseals every stored secret (signing keys, gateway secrets, log streams' secrets, one-time
      codes, the logs' lookup key) with KEY_ENCRYPTION_SECRET, opening them with it or with
      KEY_ENCRYPTION_FALLBACK_SECRET; online, while identity serves. Run again, it finds nothing
      to do. The steps around it: docs/production.md, "Rotating KEY_ENCRYPTION_SECRET".

Works on identity's database with identity's own configuration (DATABASE_URL, KEY_ENCRYPTION_SECRET,
AUTH_URL, GATEWAY_URL_POLICY...), read from the environment as the service reads it: inside the
container, run it with the container's environment. Use it on a database identity has started on.
An embedded database (pglite:) belongs to one process: stop identity first.`;

export interface CommandContext {
  config: Config;
  /** What `${NAME}` in a tenant file may name (the environment). */
  variables: Readonly<Record<string, string | undefined>>;
  out(text: string): void;
  err(text: string): void;
  /** PostgreSQL schema (tests isolate themselves); default public. */
  schema?: string;
}

class UsageError extends Error {}

/** Whether an identity of this AUTH_URL answers on this configuration's port on this machine (the container's own service). */
async function serviceAnswers(config: Config): Promise<boolean> {
  try {
    const res = await fetch(`http://127.0.0.1:${config.PORT}/.well-known/openid-configuration`, { signal: AbortSignal.timeout(1000) });
    return res.ok && ((await res.json()) as { issuer?: unknown }).issuer === issuerOf(config);
  } catch {
    return false;
  }
}

/**
 * An embedded database belongs to one process: written by two at once it is lost. So a command
 * refuses one while an identity answers on this configuration's port (the service of this
 * container), and refuses memory:// (which would be a new, empty database).
 */
async function checkDatabaseIsOurs(config: Config): Promise<void> {
  if (config.DATABASE_URL.startsWith('memory://')) throw new Error('DATABASE_URL is memory://: a new, empty database each run; name the database identity uses');
  if (config.DATABASE_URL.startsWith('pglite:') && (await serviceAnswers(config))) {
    throw new Error(
      `identity is running on port ${config.PORT} and owns its embedded database (${config.DATABASE_URL}): stop it first, or use PostgreSQL`,
    );
  }
}

async function withStore<T>(context: CommandContext, use: (store: IdentityStore, sql: SqlClient, cipher: SecretCipher) => Promise<T>): Promise<T> {
  const { config } = context;
  await checkDatabaseIsOurs(config);
  const quiet = { info: () => undefined, warn: (_fields: Record<string, unknown>, message: string) => context.err(message) };
  const cipher = createSecretCipher(secretsAtRestOf(config));
  const opened = await openStore(config.DATABASE_URL, cipher, {
    schema: context.schema,
    preparedStatements: config.DATABASE_PREPARED_STATEMENTS,
    migrationContext: phoneNumberMigrationContext(quiet),
    recordTenantLogs: config.TENANT_LOG_RECORDING,
    embeddedSnapshotDir: config.PGLITE_SNAPSHOT_DIR,
    warn: (message) => context.err(`${message}\n`),
  });
  try {
    return await use(opened.store, opened.sql, cipher);
  } finally {
    await opened.close();
  }
}

async function operatorAdd(args: string[], context: CommandContext): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { role: { type: 'string', multiple: true }, connection: { type: 'string', default: 'sms' }, phone: { type: 'string' } },
  });
  const phoneNumber = values.phone ?? positionals[0];
  if (!phoneNumber || positionals.length > (values.phone ? 0 : 1) || !values.role?.length) throw new UsageError('operator add needs one phone number and at least one --role');
  const consoleUrl = context.config.CONSOLE ? `${context.config.AUTH_URL}/console/` : undefined;
  const roles = values.role.flatMap((role) => role.split(',')).map((role) => role.trim()).filter((role) => role !== '');
  const operator = await withStore(context, (store) =>
    ensureOperator(store, systemClock, { connection: values.connection!, phoneNumber, roles, consoleUrl }),
  );
  context.out(
    `${operator.created ? 'created' : 'found'} ${operator.userId} (${operator.phoneNumber}) on ${values.connection}; roles: ${operator.roles.join(', ')}.` +
      `${operator.consoleEnabled ? ` The console's client is now enabled on ${values.connection}.` : ''}\n` +
      `They sign in to the console at ${context.config.AUTH_URL}/console/ with a code sent to that number.\n`,
  );
}

async function tenantApply(args: string[], context: CommandContext): Promise<void> {
  const { positionals } = parseArgs({ args, allowPositionals: true, options: {} });
  if (positionals.length !== 1) throw new UsageError('tenant apply needs the path of one tenant file');
  const file = positionals[0]!;
  const document = readTenantFile(file, context.variables);
  const applied = await withStore(context, (store) => applyTenantDocument(store, connectionRulesOf(context.config), document, file));
  for (const entry of applied) context.out(`${entry.action.padEnd(9)} ${entry.section} ${entry.label ?? ''}`.trimEnd() + '\n');
  const count = (action: string) => applied.filter((entry) => entry.action === action).length;
  context.out(`${file}: ${count('created')} created, ${count('updated')} updated, ${count('unchanged')} unchanged.\n`);
}

async function keysRotateSecret(args: string[], context: CommandContext): Promise<void> {
  const { positionals } = parseArgs({ args, allowPositionals: true, options: {} });
  if (positionals.length !== 0) throw new UsageError('keys rotate-secret takes no arguments: it reads KEY_ENCRYPTION_SECRET and KEY_ENCRYPTION_FALLBACK_SECRET');
  const { KEY_ENCRYPTION_SECRET: secret } = context.config;
  if (!secret) throw new Error('KEY_ENCRYPTION_SECRET is not set: there is no secret to seal with');
  const report = await withStore(context, (_store, sql, cipher) => resealAll(sql, cipher));
  const resealed = Object.entries(report.resealed);
  const total = resealed.reduce((sum, [, count]) => sum + count, 0);
  context.out(
    `resealed ${total} value(s) with KEY_ENCRYPTION_SECRET (key id ${secretKeyId(secret)})` +
      `${resealed.length ? `: ${resealed.map(([column, count]) => `${column} ${count}`).join(', ')}` : ''}; ` +
      `${report.alreadyCurrent} already sealed with it.\n`,
  );
  if (report.unreadable.length > 0) {
    for (const value of report.unreadable) {
      context.err(`cannot open ${value.table}.${value.column} of ${Object.entries(value.key).map(([k, v]) => `${k}=${v}`).join(' ')}: ${value.reason}\n`);
    }
    throw new Error(
      `${report.unreadable.length} value(s) could not be opened and were left as they are: set KEY_ENCRYPTION_FALLBACK_SECRET to the secret they were sealed with, and run the command again`,
    );
  }
  context.out('Every stored secret is sealed with KEY_ENCRYPTION_SECRET: KEY_ENCRYPTION_FALLBACK_SECRET can now be removed from every replica.\n');
}

/** Runs one command; its exit code: 0 done, 1 refused (the message says why), 2 not a command. */
export async function runCommand(argv: readonly string[], context: CommandContext): Promise<number> {
  const [group, action, ...args] = argv;
  try {
    if (group === 'operator' && action === 'add') await operatorAdd(args, context);
    else if (group === 'tenant' && action === 'apply') await tenantApply(args, context);
    else if (group === 'keys' && action === 'rotate-secret') await keysRotateSecret(args, context);
    else if (group === 'help' || group === '--help' || group === '-h') context.out(`${USAGE}\n`);
    else throw new UsageError(group ? `unknown command: ${[group, action].filter(Boolean).join(' ')}` : 'no command');
    return 0;
  } catch (err) {
    if (err instanceof UsageError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      context.err(`${(err as Error).message}\n\n${USAGE}\n`);
      return 2;
    }
    if (err instanceof HttpError) context.err(`refused: ${err.errorDescription}\n`);
    else if (err instanceof TenantFileError) context.err(`refused: ${err.message}\n`);
    else context.err(`failed: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  }
}
