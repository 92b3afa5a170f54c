import type { DeliveryRequestInfo } from '@smsauth/contracts';
import type { Clock, Logger } from '@smsauth/service-kit';
import type { AxiosInstance } from 'axios';
import type { Config } from '../config';
import type { OutboxStore } from '../store/outbox-store';

/** One SMS to hand to a provider, as accepted by `POST /sms`. */
export interface OutgoingSms {
  /** The gateway's id for this message (also the outbox id). */
  id: string;
  recipient: string;
  body: string;
  sender?: string;
  req?: DeliveryRequestInfo;
  /** The caller's `Idempotency-Key`, for providers that can pass it on. */
  idempotencyKey?: string;
}

export interface SendResult {
  /** The provider's id of the message (Twilio's SM... sid), when it reports one. */
  providerMessageId?: string;
}

/**
 * Every provider: send the message or throw ProviderError. Anything else thrown is a bug
 * and becomes a generic 500.
 */
export interface SmsProvider {
  readonly name: string;
  send(message: OutgoingSms): Promise<SendResult>;
}

/**
 * The provider refused or could not be reached. `description` is shown to the caller:
 * the provider's reason, never a credential.
 */
export class ProviderError extends Error {
  constructor(
    public readonly provider: string,
    public readonly description: string,
    public readonly details: { status?: number; code?: string | number } = {},
  ) {
    super(`${provider}: ${description}`);
    this.name = 'ProviderError';
  }
}

/** What a provider factory may use; each takes only what it needs. */
export interface ProviderDependencies {
  config: Config;
  logger: Logger;
  http: AxiosInstance;
  outbox: OutboxStore;
  clock: Clock;
}

export type ProviderFactory = (deps: ProviderDependencies) => SmsProvider;

/** Removes every occurrence of the given secrets from a provider-supplied text. */
export function scrubSecrets(text: string, secrets: ReadonlyArray<string | undefined>): string {
  let scrubbed = text;
  for (const secret of secrets) {
    if (secret) scrubbed = scrubbed.split(secret).join('[REDACTED]');
  }
  return scrubbed;
}

/** A transport failure (no HTTP answer) in words, without the request config axios attaches. */
export function describeTransportFailure(err: unknown, timeoutMs: number): string {
  const code = (err as { code?: unknown }).code;
  if (code === 'ECONNABORTED' || code === 'ETIMEDOUT') return `no answer within ${timeoutMs} ms`;
  if (typeof code === 'string') return `could not connect (${code})`;
  return 'could not connect';
}
