import { HttpError, maskPhoneNumber, type Clock, type Logger } from '@smsauth/service-kit';
import type { IdentityStore } from '../store';
import { ensureConsoleClient } from './console/bootstrap';
import type { ConnectionRules } from './management/connections';
import { ensureOperator } from './management/operators';
import { applyTenantDocument, type AppliedEntry } from './tenant/apply';
import { readTenantFile } from './tenant/file';

export interface TenantBootstrapOptions {
  authUrl: string;
  /** CONSOLE: identity serves the console, so it keeps the console's client. */
  console: boolean;
  /** TENANT_FILE and the variables its `${NAME}`s may name. */
  tenantFile?: { path: string; variables: Readonly<Record<string, string | undefined>> };
  /** FIRST_OPERATOR_*. */
  firstOperator?: { phoneNumber: string; roles: readonly string[]; connection: string };
  connectionRules: ConnectionRules;
  clock: Clock;
  logger: Logger;
}

/** The variable a first operator's refusal is about, by the field the operation names. */
const FIRST_OPERATOR_VARIABLES: Record<string, string> = {
  roles: 'FIRST_OPERATOR_ROLE',
  connection: 'FIRST_OPERATOR_CONNECTION',
  phone_number: 'FIRST_OPERATOR_PHONE_NUMBER',
};

function firstOperatorProblem(err: unknown): unknown {
  if (!(err instanceof HttpError)) return err;
  const [detail] = err.options.details ?? [];
  const variable = (detail && FIRST_OPERATOR_VARIABLES[detail.path]) ?? 'FIRST_OPERATOR_PHONE_NUMBER';
  return new Error(`${variable}: ${detail?.message ?? err.errorDescription}`);
}

function logApplied(logger: Logger, file: string, applied: readonly AppliedEntry[]): void {
  for (const entry of applied) {
    if (entry.action !== 'unchanged') logger.info({ section: entry.section, entry: entry.label, action: entry.action }, `tenant file: ${entry.action} ${entry.section} ${entry.label ?? ''}`.trim());
  }
  const count = (action: AppliedEntry['action']) => applied.filter((entry) => entry.action === action).length;
  logger.info({ file, created: count('created'), updated: count('updated'), unchanged: count('unchanged') }, 'tenant file applied');
}

/**
 * What identity sets up at every start after the management API (domain/bootstrap.ts): the
 * console's client, the tenant file, the first operator, in that order (the file may name the
 * console's client; the first operator's role and connection may come from the file). One
 * transaction under the bootstrap lock: a refusal leaves the tenant as it was, and the start
 * fails with a message naming what to fix.
 */
export async function bootstrapTenant(store: IdentityStore, options: TenantBootstrapOptions): Promise<void> {
  const { logger } = options;
  const file = options.tenantFile;
  // Read and checked before any write: a file that does not parse changes nothing.
  const document = file ? readTenantFile(file.path, file.variables, `TENANT_FILE ${file.path}`) : undefined;
  await store.transaction(async (tx) => {
    await tx.lockForTransaction('bootstrap');
    if (options.console) {
      const consoleClient = await ensureConsoleClient(tx, options.authUrl);
      if (consoleClient.action !== 'unchanged') logger.info({ client_id: consoleClient.clientId }, `console client ${consoleClient.action}`);
    }
    if (file && document) logApplied(logger, file.path, await applyTenantDocument(tx, options.connectionRules, document, `TENANT_FILE ${file.path}`, options.clock.now()));
    const first = options.firstOperator;
    if (first) {
      const consoleUrl = options.console ? `${options.authUrl}/console/` : undefined;
      const operator = await ensureOperator(tx, options.clock, { ...first, consoleUrl }).catch((err: unknown) => {
        throw firstOperatorProblem(err);
      });
      logger.info(
        { user_id: operator.userId, phone_number: maskPhoneNumber(operator.phoneNumber), roles: operator.roles, created: operator.created, console_enabled: operator.consoleEnabled },
        'first operator ensured',
      );
    }
  });
}
