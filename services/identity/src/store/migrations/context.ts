/**
 * What data migrations need from the service above the store, handed in by whoever opens it
 * (start.ts): the store never imports the domain.
 */
export interface MigrationContext {
  /** The E.164 form of a stored phone number (the domain's canonicalPhoneNumber), undefined when it is not a valid number. */
  canonicalPhoneNumber(stored: string): string | undefined;
  /** Where a migration reports what it did and what it left alone (no full phone numbers: mask them). */
  log: {
    info(fields: Record<string, unknown>, message: string): void;
    warn(fields: Record<string, unknown>, message: string): void;
  };
}
