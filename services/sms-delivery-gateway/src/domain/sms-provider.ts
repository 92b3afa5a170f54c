import type { DeliveryRequestInfo } from '@smsauth/contracts';

// The port the delivery domain sends through; each provider in providers/ implements it.

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
