import type { MessageStatus, MessageStatusValue } from '@smsauth/contracts';
import type { Receipt } from './sms-provider';

/** Receipts can arrive out of order (Twilio says so): a status never moves back. */
const RANK: Record<MessageStatusValue, number> = { accepted: 0, sent: 1, delivered: 2, undelivered: 2, failed: 2 };

/** The record after a receipt, or undefined when the receipt tells nothing new. */
export function applyReceipt(current: MessageStatus, receipt: Receipt, now: Date): MessageStatus | undefined {
  if (RANK[receipt.status] <= RANK[current.status]) return undefined;
  return {
    ...current,
    status: receipt.status,
    provider_message_id: current.provider_message_id ?? receipt.providerMessageId ?? null,
    error_code: receipt.errorCode ?? (receipt.status === 'delivered' ? null : current.error_code),
    updated_at: now.toISOString(),
  };
}

/** A receipt for a message belongs to the provider that accepted it, and names the same message. */
export function receiptMatches(record: MessageStatus, provider: string, receipt: Receipt): boolean {
  if (!record.attempts.some((attempt) => attempt.provider === provider && attempt.outcome === 'accepted')) return false;
  return receipt.providerMessageId === undefined || record.provider_message_id === null || record.provider_message_id === receipt.providerMessageId;
}
