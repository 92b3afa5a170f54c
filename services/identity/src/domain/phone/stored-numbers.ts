import type { MigrationContext } from '../../store';
import { canonicalOrUndefined } from './canonical-number';

/** What migration 7 needs to write stored numbers in E.164: the parser every incoming number goes through, and a log. */
export function phoneNumberMigrationContext(log: MigrationContext['log']): MigrationContext {
  return { canonicalPhoneNumber: (stored) => canonicalOrUndefined(stored), log };
}
