import { ErrorCodes } from '@smsauth/contracts';
import { HttpError } from '@smsauth/service-kit';

/** Socket-level failures: the database cannot be reached or dropped the connection. */
const NETWORK_ERROR_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * SQLSTATEs of a server that is going away or not taking connections: admin_shutdown (a
 * restart), crash_shutdown, cannot_connect_now (starting up), too_many_connections. Class 08
 * (connection_exception) is matched by prefix.
 */
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300']);

/** What node-postgres says when a connection dies or cannot be made in time. */
const UNAVAILABLE_MESSAGES = [
  /^Connection terminated/,
  /^timeout exceeded when trying to connect$/,
  /^Client has encountered a connection error and is not queryable$/,
  /^Client was closed and is not queryable$/,
];

/**
 * SQLSTATEs a server sends as it ends one connection it was serving: admin_shutdown
 * (pg_terminate_backend, a fast shutdown), crash_shutdown, cannot_connect_now (starting up, or
 * a failover under way).
 */
const CONNECTION_ENDED_SQLSTATES = new Set(['57P01', '57P02', '57P03']);

/** What node-postgres says when a connection it had dies under it, or when it knows one is dead. */
const CONNECTION_LOST_MESSAGES = [/^Connection terminated unexpectedly/, /^Client has encountered a connection error and is not queryable$/];

/**
 * Whether `err` says that one connection died (the server ended it, or its socket reset), as
 * opposed to the database being unreachable or a statement failing: such a failure is worth
 * one more attempt on a fresh connection.
 */
export function isConnectionLost(err: unknown): boolean {
  if (err instanceof DatabaseUnavailableError) return isConnectionLost(err.cause);
  if (typeof err !== 'object' || err === null) return false;
  const { code, message } = err as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && (CONNECTION_ENDED_SQLSTATES.has(code) || code === 'ECONNRESET' || code === 'EPIPE')) return true;
  return typeof message === 'string' && CONNECTION_LOST_MESSAGES.some((pattern) => pattern.test(message));
}

/**
 * Whether the failed statement cannot have run: the server refused it as it ended the
 * connection (an ErrorResponse with 57P0x: the backend aborts whatever it had not committed,
 * and commits only before it answers ReadyForQuery), or the driver never sent it (the client
 * was already known dead). A reset socket alone may have lost the answer of a statement that
 * committed.
 */
export function statementCannotHaveRun(err: unknown): boolean {
  if (err instanceof DatabaseUnavailableError) return statementCannotHaveRun(err.cause);
  if (typeof err !== 'object' || err === null) return false;
  const { code, message, severity } = err as { code?: unknown; message?: unknown; severity?: unknown };
  if (typeof code === 'string' && CONNECTION_ENDED_SQLSTATES.has(code) && typeof severity === 'string') return true;
  return typeof message === 'string' && /^Client has encountered a connection error and is not queryable$/.test(message);
}

/** Whether `err` says the database is unreachable (as opposed to a bad query or a constraint). */
export function isDatabaseUnavailable(err: unknown): boolean {
  // Duck-typed: errors raised by Node's own net module may come from another realm.
  if (typeof err !== 'object' || err === null) return false;
  const { code, message, errors } = err as { code?: unknown; message?: unknown; errors?: unknown };
  if (typeof code === 'string') {
    if (NETWORK_ERROR_CODES.has(code) || UNAVAILABLE_SQLSTATES.has(code) || /^08[0-9A-Z]{3}$/.test(code)) return true;
  }
  // AggregateError: every address of a host refused (localhost -> ::1 and 127.0.0.1).
  if (Array.isArray(errors) && errors.length > 0 && errors.every(isDatabaseUnavailable)) return true;
  return typeof message === 'string' && UNAVAILABLE_MESSAGES.some((pattern) => pattern.test(message));
}

/**
 * 503 `service_unavailable` while the database is down: a client error body with no driver
 * text in it, and a `Retry-After`. The driver's reason stays in `message` (readiness shows it)
 * and in `cause` (the log shows it).
 */
export class DatabaseUnavailableError extends HttpError {
  constructor(cause: unknown) {
    super(503, ErrorCodes.SERVICE_UNAVAILABLE, 'The service is temporarily unavailable. Please try again shortly.', {
      headers: { 'Retry-After': '5' },
    });
    this.name = 'DatabaseUnavailableError';
    this.message = `database unavailable: ${describeCause(cause)}`;
    this.cause = cause;
  }
}

function describeCause(cause: unknown): string {
  const { code, message } = (cause ?? {}) as { code?: unknown; message?: unknown };
  const text = typeof message === 'string' ? message : '';
  if (typeof code === 'string' && !text.includes(code)) return text ? `${text} (${code})` : code;
  return text || String(cause);
}

/** Rethrows an unreachable-database error as DatabaseUnavailableError; anything else unchanged. */
export function toDatabaseUnavailable(err: unknown): unknown {
  return err instanceof DatabaseUnavailableError || !isDatabaseUnavailable(err) ? err : new DatabaseUnavailableError(err);
}
