import { createMemoryLogger, type MemoryLogger } from '@smsauth/service-kit';

export type CapturedLogs = MemoryLogger;

/** A real pino logger (kit defaults, no extra redaction) writing into memory. */
export function captureLogs(): CapturedLogs {
  return createMemoryLogger({ name: 'sms-delivery-gateway' });
}
