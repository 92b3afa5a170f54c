import type { DeliveryChannel, DeliveryRequestInfo, MessageStatusValue } from '@smsauth/contracts';

// The port the delivery domain sends through; each provider in providers/ implements it.

/** One SMS to hand to a provider, as accepted by `POST /sms`. */
export interface OutgoingSms {
  /** The gateway's id for this message (also the outbox id). */
  id: string;
  recipient: string;
  body: string;
  /** The request's sender (the connection's `from`), when it had one. */
  sender?: string;
  /** The route's `sender` (SMS_ROUTES): replaces any other sender for this message. */
  routeSender?: string;
  req?: DeliveryRequestInfo;
  /** The caller's `Idempotency-Key`, for providers that can pass it on. */
  idempotencyKey?: string;
  /** `sms` unless the request said otherwise; `body` is then a WhatsApp message's text or what a call says. */
  channel: DeliveryChannel;
  /** The code's digits, when the request gave them (WhatsApp templates fill a variable with them). */
  code?: string;
  /** The language of `body`, when the request gave one (a call speaks in it). */
  language?: string;
}

export interface SendResult {
  /** The provider's id of the message (Twilio's SM... sid), when it reports one. */
  providerMessageId?: string;
}

/** A delivery receipt as the gateway received it, before any check. */
export interface ReceiptRequest {
  /** The full public URL it was sent to (GATEWAY_PUBLIC_URL + path and query): what signatures cover. */
  url: string;
  headers: Record<string, string | string[] | undefined>;
  /** The body's exact bytes. */
  rawBody: Buffer;
}

/** What a receipt says about a message. */
export interface Receipt {
  status: MessageStatusValue;
  providerMessageId?: string;
  errorCode?: string;
  /**
   * The gateway's id of the message, when the receipt itself names it: providers whose events
   * for every message go to one URL (`/receipts/{provider}`: AWS through SNS, Bird) carry it
   * back from the send (AWS `Context`, Bird `reference`).
   */
  messageId?: string;
}

export type ReceiptReading =
  | { kind: 'unsigned' }
  | { kind: 'bad_signature' }
  /** Signed correctly but not a receipt this gateway understands. */
  | { kind: 'invalid'; description: string }
  /** Signed correctly and handled, but about no message's status (an SNS subscription confirmed, an event the gateway does not track). */
  | { kind: 'acknowledged'; description: string }
  | { kind: 'receipt'; receipt: Receipt };

/**
 * Every provider: send the message or throw ProviderError. Anything else thrown is a bug
 * and becomes a generic 500.
 */
export interface SmsProvider {
  /** The instance name routes use (`twilio`, or a name from SMS_PROVIDER_INSTANCES). */
  readonly name: string;
  send(message: OutgoingSms): Promise<SendResult>;
  /**
   * Verifies and reads a delivery receipt for this provider; absent when it sends none. May
   * answer later: checking an SNS signature can mean fetching its signing certificate first.
   */
  readReceipt?(request: ReceiptRequest): ReceiptReading | Promise<ReceiptReading>;
}

/**
 * The provider refused or could not be reached. `description` is shown to the caller:
 * the provider's reason, never a credential. `details.status` is its HTTP status when it answered.
 * `details.transient`, when a provider sets it from its own error code (providers that answer
 * errors inside a 2xx body, or whose codes say more than the HTTP status), decides failover:
 * true when another provider may deliver the message (throttling, outage, this account's
 * credentials, quota or sender), false when the message itself is refused (bad or barred number).
 */
export class ProviderError extends Error {
  constructor(
    public readonly provider: string,
    public readonly description: string,
    public readonly details: { status?: number; code?: string | number; transient?: boolean } = {},
  ) {
    super(`${provider}: ${description}`);
    this.name = 'ProviderError';
  }
}

/**
 * Whether another provider should be tried: what the provider's own error table said
 * (`details.transient`) when it did; otherwise no answer (transport error, timeout), a 5xx, a
 * redirect (misconfigured endpoint), 408 or 429. Any other 4xx means this message was refused
 * (bad number, blocked) and another provider would refuse it too.
 */
export function isProviderFailure(err: ProviderError): boolean {
  if (err.details.transient !== undefined) return err.details.transient;
  const status = err.details.status;
  return status === undefined || status < 400 || status >= 500 || status === 408 || status === 429;
}
