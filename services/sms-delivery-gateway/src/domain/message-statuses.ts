import type { MessageStatus } from '@smsauth/contracts';
import type { Clock, Logger } from '@smsauth/service-kit';
import type { MessageStatusStore } from '../store/message-status-store';
import type { DeliveryMetrics } from './delivery-metrics';
import { applyReceipt, receiptMatches } from './message-status';
import type { ReceiptRequest, SmsProvider } from './sms-provider';

export type ReceiptResult =
  | { kind: 'unknown_provider' }
  | { kind: 'unsigned' }
  | { kind: 'bad_signature' }
  | { kind: 'invalid'; description: string }
  | { kind: 'acknowledged'; description: string }
  | { kind: 'unknown_message' }
  | { kind: 'recorded'; record: MessageStatus; changed: boolean };

export interface MessageStatusServiceDependencies {
  providers: ReadonlyMap<string, SmsProvider>;
  statuses: MessageStatusStore;
  metrics: DeliveryMetrics;
  logger: Logger;
  clock: Clock;
}

/** Per-message statuses: read them, and move them on from the providers' signed delivery receipts. */
export class MessageStatusService {
  constructor(private readonly deps: MessageStatusServiceDependencies) {}

  get(id: string): Promise<MessageStatus | undefined> {
    return this.deps.statuses.get(id);
  }

  /**
   * The signature is checked before anything is looked up, so an unsigned caller learns
   * nothing about which messages exist. `urlMessageId` is the id of a per-message receipt URL;
   * without one (a provider's single event URL) the receipt must name its message itself.
   */
  async recordReceipt(providerName: string, urlMessageId: string | undefined, request: ReceiptRequest): Promise<ReceiptResult> {
    const { providers, statuses, metrics, logger, clock } = this.deps;
    const provider = providers.get(providerName);
    if (!provider?.readReceipt) return { kind: 'unknown_provider' };
    const reading = await provider.readReceipt(request);
    if (reading.kind === 'acknowledged') {
      logger.info({ provider: providerName, note: reading.description }, 'provider notice acknowledged');
      return reading;
    }
    if (reading.kind !== 'receipt') {
      logger.warn({ provider: providerName, messageId: urlMessageId, reason: reading.kind }, 'delivery receipt refused');
      return reading;
    }
    const { receipt } = reading;
    // A receipt naming another message than its URL is one message's receipt replayed to another's URL.
    if (urlMessageId !== undefined && receipt.messageId !== undefined && receipt.messageId !== urlMessageId) return { kind: 'unknown_message' };
    const messageId = urlMessageId ?? receipt.messageId;
    if (messageId === undefined) return { kind: 'invalid', description: 'The receipt names no message of this gateway' };
    let matched = true;
    let changed = false;
    const record = await statuses.update(messageId, (current) => {
      matched = receiptMatches(current, providerName, receipt);
      const next = matched ? applyReceipt(current, receipt, clock.now()) : undefined;
      changed = next !== undefined;
      return next;
    });
    if (record === undefined || !matched) return { kind: 'unknown_message' };
    if (changed) metrics.deliveryStatuses.inc({ provider: providerName, status: record.status });
    logger.info(
      { provider: providerName, messageId, status: receipt.status, errorCode: receipt.errorCode, recorded: record.status, changed },
      'delivery receipt received',
    );
    return { kind: 'recorded', record, changed };
  }
}
