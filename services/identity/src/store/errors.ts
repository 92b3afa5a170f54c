import { pgErrorCode, PgErrorCodes } from './sql-client';

/** A unique constraint refused the write (duplicate name, identifier, grant...). */
export class UniqueViolationError extends Error {
  constructor(public readonly constraint: string | undefined) {
    super(`unique constraint violated: ${constraint ?? 'unknown'}`);
    this.name = 'UniqueViolationError';
  }
}

/** A foreign key refused the write: the referenced record does not exist (any more). */
export class MissingReferenceError extends Error {
  constructor(public readonly constraint: string | undefined) {
    super(`referenced record missing: ${constraint ?? 'unknown'}`);
    this.name = 'MissingReferenceError';
  }
}

/** Runs a write and turns constraint violations into the store's own errors. */
export async function translateConstraintErrors<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    const constraint = (err as { constraint?: string }).constraint;
    if (pgErrorCode(err) === PgErrorCodes.UNIQUE_VIOLATION) throw new UniqueViolationError(constraint);
    if (pgErrorCode(err) === PgErrorCodes.FOREIGN_KEY_VIOLATION) throw new MissingReferenceError(constraint);
    throw err;
  }
}
