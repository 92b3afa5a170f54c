import { DatabaseUnavailableError } from '../store/availability';

/** Whether a failure is the database being unreachable: a page then says "try again shortly", not "something went wrong". */
export function isDatabaseUnavailable(err: unknown): boolean {
  return err instanceof DatabaseUnavailableError;
}
