#!/usr/bin/env node
// The one-off operator tasks, inside the image with no checkout: `smsauth-identity operator add
// +14155550100 --role Admin`, `smsauth-identity tenant apply /etc/smsauth/tenant.json` (or
// `node dist/cli.js ...`). Same configuration as the service: cli-commands.ts.
import { ConfigError, loadConfig } from '@smsauth/service-kit';
import { runCommand, USAGE } from './cli-commands';
import { configSchema, tenantFileVariables } from './config';

async function main(): Promise<number> {
  const argv = process.argv.slice(2);
  if (argv.length === 0 || ['help', '--help', '-h'].includes(argv[0]!)) {
    process.stdout.write(`${USAGE}\n`);
    return argv.length === 0 ? 2 : 0;
  }
  let config;
  try {
    config = loadConfig(configSchema);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`${err.message}\n`);
    return 1;
  }
  return runCommand(argv, {
    config,
    variables: tenantFileVariables(),
    out: (text) => process.stdout.write(text),
    err: (text) => process.stderr.write(text),
  });
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`failed: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
