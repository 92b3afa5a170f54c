#!/usr/bin/env node
// `pnpm operator:add <phone number> --role Admin [--role Support] [--connection sms]`: makes a
// number an operator of a running identity service through its management API. The operator
// then signs in to the console by SMS: there is no password, default or otherwise.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { DEFAULT_PORTS } from './launcher';
import { ManagementClient } from './management-client';
import { ensureOperator } from './operators';
import { repoRoot } from './processes';

const USAGE = `usage: pnpm operator:add <phone number> --role <role> [--role <role>...] [--connection <name>]

Makes the number an operator with those roles (built in: Admin, Support, Viewer); the user is
created on the connection when it has none. Talks to identity's management API with the admin
client: AUTH_URL, ADMIN_CLIENT_ID and ADMIN_CLIENT_SECRET from the environment, or else the local
stack's (${join('.data', 'stack.json')}, identity at http://localhost:${DEFAULT_PORTS.identity}).
Without a checkout (in identity's container): smsauth-identity operator add <number> --role <role>.`;

function adminCredentials(env: NodeJS.ProcessEnv): { authUrl: string; clientId: string; clientSecret: string } {
  const stateFile = join(repoRoot, '.data', 'stack.json');
  const state = existsSync(stateFile) ? (JSON.parse(readFileSync(stateFile, 'utf8')) as { adminClientId?: string; adminClientSecret?: string }) : {};
  const clientId = env.ADMIN_CLIENT_ID ?? state.adminClientId;
  const clientSecret = env.ADMIN_CLIENT_SECRET ?? state.adminClientSecret;
  if (!clientId || !clientSecret) throw new Error(`no admin client: set ADMIN_CLIENT_ID and ADMIN_CLIENT_SECRET (or run pnpm start once)\n\n${USAGE}`);
  return { authUrl: (env.AUTH_URL ?? `http://localhost:${DEFAULT_PORTS.identity}`).replace(/\/$/, ''), clientId, clientSecret };
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { role: { type: 'string', multiple: true }, connection: { type: 'string', default: 'sms' }, help: { type: 'boolean' } },
  });
  if (values.help || positionals.length !== 1 || !values.role?.length) {
    console.error(USAGE);
    process.exit(values.help ? 0 : 2);
  }
  const credentials = adminCredentials(process.env);
  const api = new ManagementClient(credentials.authUrl, credentials.clientId, credentials.clientSecret);
  const result = await ensureOperator(api, { connection: values.connection!, phoneNumber: positionals[0]!, roles: values.role });
  console.log(
    `${result.created ? 'created' : 'found'} ${result.userId} (${positionals[0]}) on ${values.connection}; roles: ${result.roles.join(', ')}.\n` +
      `They sign in to the console at ${credentials.authUrl}/console with a code sent to that number.`,
  );
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
