import { randomUUID } from 'node:crypto';
import type { DeliveryAttempt, DeliveryRequest, MessageStatus } from '@smsauth/contracts';
import { maskPhoneNumber, maskPhoneNumbers, type Clock, type Logger } from '@smsauth/service-kit';
import type { MessageStatusStore } from '../store/message-status-store';
import type { CircuitBreakers } from './circuit-breaker';
import type { DeliveryMetrics } from './delivery-metrics';
import { messageFingerprint, type Idempotency } from './idempotency';
import type { DeliveryChannel } from '@smsauth/contracts';
import type { Route } from './routing';
import { isProviderFailure, ProviderError, type OutgoingSms, type SmsProvider } from './sms-provider';

export type DeliveryOutcome =
  | { delivered: true; id: string; provider: string; providerMessageId?: string }
  | { delivered: false; id: string; description: string };

export interface DeliveryResult {
  outcome: DeliveryOutcome;
  /** Answered from the idempotency store; no provider was called again. */
  replayed: boolean;
}

export interface DeliveryServiceDependencies {
  /** Every provider instance a route names, by name. */
  providers: ReadonlyMap<string, SmsProvider>;
  /** ChannelRoutes (a RouteTable serves as SMS-only routes). */
  routes: { routeFor(recipient: string, channel?: DeliveryChannel): Route };
  breakers: CircuitBreakers;
  idempotency: Idempotency<DeliveryOutcome>;
  statuses: MessageStatusStore;
  metrics: DeliveryMetrics;
  logger: Logger;
  clock: Clock;
  newId?: () => string;
}

/** What trying the providers of a route came to. */
interface RouteResult {
  attempts: DeliveryAttempt[];
  accepted?: { provider: string; providerMessageId?: string };
  /** The last refusal or failure, when no provider accepted. */
  error?: ProviderError;
}

/**
 * Hands validated delivery requests to the providers of the recipient's route, in order:
 * a provider that fails (no answer, timeout, 5xx) or whose breaker is open is passed over
 * for the next; a 4xx refusal ends the delivery. One send per Idempotency-Key, a status
 * record per message, metrics and masked logs for every attempt. Anything thrown other
 * than ProviderError is a bug and propagates.
 */
export class DeliveryService {
  private readonly newId: () => string;

  constructor(private readonly deps: DeliveryServiceDependencies) {
    this.newId = deps.newId ?? randomUUID;
  }

  async deliver(request: DeliveryRequest, idempotencyKey?: string): Promise<DeliveryResult> {
    if (idempotencyKey === undefined) return { outcome: await this.send(request), replayed: false };
    const result = await this.deps.idempotency.run(idempotencyKey, messageFingerprint(request), () => this.send(request, idempotencyKey));
    if (result.replayed) {
      this.deps.metrics.replays.inc({ provider: result.outcome.delivered ? result.outcome.provider : 'none' });
      this.deps.logger.info(
        { recipient: maskPhoneNumber(request.recipient), idempotencyKey, messageId: result.outcome.id },
        'sms delivery repeated with the same Idempotency-Key; answering the first outcome without sending again',
      );
    }
    return result;
  }

  private async send(request: DeliveryRequest, idempotencyKey?: string): Promise<DeliveryOutcome> {
    const { routes, logger } = this.deps;
    const id = this.newId();
    const channel = request.channel ?? 'sms';
    const route = routes.routeFor(request.recipient, channel);
    const message: OutgoingSms = {
      id,
      recipient: request.recipient,
      body: request.body,
      channel,
      ...optional('code', request.code),
      ...optional('language', request.language),
      ...optional('sender', request.sender),
      ...optional('routeSender', route.sender),
      ...(request.req !== undefined ? { req: request.req } : {}),
      ...(idempotencyKey !== undefined ? { idempotencyKey } : {}),
    };
    const result = await this.tryRoute(route.providers, message);
    await this.recordStatus(id, result);

    const logContext = {
      messageId: id,
      route: route.key,
      channel,
      recipient: maskPhoneNumber(request.recipient),
      idempotencyKey,
      attempts: result.attempts,
    };
    if (result.accepted) {
      logger.info({ ...logContext, provider: result.accepted.provider, providerMessageId: result.accepted.providerMessageId }, 'sms delivered');
      return { delivered: true, id, provider: result.accepted.provider, ...optional('providerMessageId', result.accepted.providerMessageId) };
    }
    const error = result.error;
    const description =
      error?.description ??
      (route.providers.length === 0
        ? `no ${channel} route for this number (SMS_ROUTES has ${channel}: routes, none matching it and no ${channel}:default)`
        : `no provider of the route is available (circuit open: ${route.providers.join(', ')})`);
    logger.warn(
      { ...logContext, provider: error?.provider, providerStatus: error?.details.status, providerCode: error?.details.code, reason: maskPhoneNumbers(description) },
      error !== undefined && !isProviderFailure(error)
        ? 'sms provider refused the message'
        : 'sms not delivered: every provider of the route failed or was skipped',
    );
    return { delivered: false, id, description };
  }

  private async tryRoute(providerNames: readonly string[], message: OutgoingSms): Promise<RouteResult> {
    const { providers, breakers, metrics, logger } = this.deps;
    const attempts: DeliveryAttempt[] = [];
    let error: ProviderError | undefined;
    // The provider passed over last (failed or skipped), for sms_failovers_total{from,to}.
    let passedOver: string | undefined;

    for (const name of providerNames) {
      const provider = providers.get(name);
      if (!provider) throw new Error(`route names unknown SMS provider ${name}`);
      const breaker = breakers.of(name);
      if (!breaker.tryAcquire()) {
        attempts.push({ provider: name, outcome: 'skipped' });
        passedOver = name;
        continue;
      }
      if (passedOver !== undefined) metrics.failovers.inc({ from: passedOver, to: name });

      const stopTimer = metrics.providerLatency.startTimer({ provider: name });
      try {
        const { providerMessageId } = await provider.send(message);
        breaker.recordSuccess();
        stopTimer({ outcome: 'delivered' });
        metrics.deliveries.inc({ provider: name, outcome: 'delivered', channel: message.channel });
        attempts.push({ provider: name, outcome: 'accepted' });
        return { attempts, accepted: { provider: name, ...optional('providerMessageId', providerMessageId) } };
      } catch (err) {
        stopTimer({ outcome: 'failed' });
        metrics.deliveries.inc({ provider: name, outcome: 'failed', channel: message.channel });
        if (!(err instanceof ProviderError)) {
          breaker.recordFailure();
          throw err;
        }
        error = err;
        const httpStatus = optional('http_status', err.details.status);
        if (!isProviderFailure(err)) {
          // The provider works; it refused this message, and another would too.
          breaker.recordSuccess();
          attempts.push({ provider: name, outcome: 'refused', ...httpStatus });
          return { attempts, error };
        }
        breaker.recordFailure();
        attempts.push({ provider: name, outcome: 'failed', ...httpStatus });
        passedOver = name;
        logger.warn(
          { messageId: message.id, provider: name, providerStatus: err.details.status, reason: maskPhoneNumbers(err.description), breaker: breaker.state },
          'sms provider failed; trying the next provider of the route',
        );
      }
    }
    return { attempts, ...optional('error', error) };
  }

  private async recordStatus(id: string, result: RouteResult): Promise<void> {
    const now = this.deps.clock.now().toISOString();
    const lastTried = [...result.attempts].reverse().find((attempt) => attempt.outcome !== 'skipped')?.provider ?? null;
    const record: MessageStatus = {
      id,
      status: result.accepted ? 'accepted' : 'failed',
      provider: result.accepted?.provider ?? lastTried,
      provider_message_id: result.accepted?.providerMessageId ?? null,
      error_code: result.accepted || result.error?.details.code === undefined ? null : String(result.error.details.code),
      attempts: result.attempts,
      created_at: now,
      updated_at: now,
    };
    try {
      await this.deps.statuses.put(record);
    } catch (err) {
      // The outcome stands whatever happens to its record: a message sent is not reported failed.
      this.deps.logger.error({ err: { message: (err as Error).message }, messageId: id }, 'could not record the message status');
    }
    this.deps.metrics.deliveryStatuses.inc({ provider: record.provider ?? 'none', status: record.status });
  }
}

/** `{[key]: value}` when value is defined, else `{}` (exactOptionalPropertyTypes-friendly spreads). */
function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}
