import { randomUUID } from 'node:crypto';
import type { DeliveryRequest } from '@smsauth/contracts';
import { maskPhoneNumber, maskPhoneNumbers, type Clock, type Logger } from '@smsauth/service-kit';
import type { DeliveryMetrics } from './delivery-metrics';
import { IdempotencyStore, messageFingerprint } from './idempotency';
import { ProviderError, type SmsProvider } from './sms-provider';

export type DeliveryOutcome =
  | { delivered: true; id: string; providerMessageId?: string }
  | { delivered: false; id: string; description: string };

export interface DeliveryResult {
  outcome: DeliveryOutcome;
  /** Answered from the idempotency store; the provider was not called again. */
  replayed: boolean;
}

export interface DeliveryServiceDependencies {
  provider: SmsProvider;
  metrics: DeliveryMetrics;
  logger: Logger;
  clock: Clock;
  newId?: () => string;
}

/**
 * Hands validated delivery requests to the provider: one send per Idempotency-Key,
 * metrics and masked logs for every attempt. Provider refusals are outcomes; anything
 * else thrown is a bug and propagates.
 */
export class DeliveryService {
  private readonly idempotency: IdempotencyStore<DeliveryOutcome>;
  private readonly newId: () => string;

  constructor(private readonly deps: DeliveryServiceDependencies) {
    this.idempotency = new IdempotencyStore<DeliveryOutcome>({ clock: deps.clock });
    this.newId = deps.newId ?? randomUUID;
  }

  async deliver(request: DeliveryRequest, idempotencyKey?: string): Promise<DeliveryResult> {
    if (idempotencyKey === undefined) return { outcome: await this.send(request), replayed: false };
    const result = await this.idempotency.run(idempotencyKey, messageFingerprint(request), () =>
      this.send(request, idempotencyKey),
    );
    if (result.replayed) {
      this.deps.metrics.replays.inc({ provider: this.deps.provider.name });
      this.deps.logger.info(
        { recipient: maskPhoneNumber(request.recipient), idempotencyKey, messageId: result.outcome.id },
        'sms delivery repeated with the same Idempotency-Key; answering the first outcome without sending again',
      );
    }
    return result;
  }

  private async send(request: DeliveryRequest, idempotencyKey?: string): Promise<DeliveryOutcome> {
    const { provider, metrics, logger } = this.deps;
    const id = this.newId();
    const logContext = { provider: provider.name, messageId: id, recipient: maskPhoneNumber(request.recipient), idempotencyKey };
    const stopTimer = metrics.providerLatency.startTimer({ provider: provider.name });
    try {
      const { providerMessageId } = await provider.send({
        id,
        recipient: request.recipient,
        body: request.body,
        ...(request.sender !== undefined ? { sender: request.sender } : {}),
        ...(request.req !== undefined ? { req: request.req } : {}),
        ...(idempotencyKey !== undefined ? { idempotencyKey } : {}),
      });
      stopTimer({ outcome: 'delivered' });
      metrics.deliveries.inc({ provider: provider.name, outcome: 'delivered' });
      logger.info({ ...logContext, providerMessageId }, 'sms delivered');
      return { delivered: true, id, ...(providerMessageId !== undefined ? { providerMessageId } : {}) };
    } catch (err) {
      stopTimer({ outcome: 'failed' });
      metrics.deliveries.inc({ provider: provider.name, outcome: 'failed' });
      if (!(err instanceof ProviderError)) throw err;
      logger.warn(
        { ...logContext, providerStatus: err.details.status, providerCode: err.details.code, reason: maskPhoneNumbers(err.description) },
        'sms provider refused the message',
      );
      return { delivered: false, id, description: err.description };
    }
  }
}
