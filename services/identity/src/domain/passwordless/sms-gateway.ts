import { ErrorCodes, SmsProviderErrorDescriptions, type DeliveryRequest, type MessageStatusValue } from '@smsauth/contracts';
import { HttpError } from '@smsauth/service-kit';

/** One text message for a connection's SMS delivery gateway. */
export interface SmsMessage {
  gatewayUrl: string;
  /** Spec 2.2 body: {recipient, body, sender, req?}. */
  payload: DeliveryRequest;
  /** The gateway JWT (signGatewayToken); sent as `Authorization: Bearer`. */
  authToken?: string;
  /** Unique per start, so a gateway can drop a retried duplicate. */
  idempotencyKey: string;
}

/**
 * What the passwordless start needs to send a code: the delivery adapter implements it
 * (URL policy and timeout are its own settings).
 */
export interface SmsGateway {
  /**
   * Resolves when the gateway answered 200 (with its message id, the `SMS-Message-Id` header,
   * and the provider that took it, `SMS-Provider`, when it sent them); otherwise rejects with
   * SmsProviderError.
   */
  deliverSms(message: SmsMessage): Promise<{ messageId?: string; provider?: string }>;
  /**
   * What the gateway knows of a message it took (`GET messages/{id}` beside the gateway URL:
   * its delivery receipts), or undefined when it cannot say (no such message, no answer, any
   * error): never throws, and waits at most a short deadline.
   */
  messageStatus?(query: { gatewayUrl: string; messageId: string; authToken?: string }): Promise<MessageStatusValue | undefined>;
}

/** Why a delivery failed; for logs and metrics (the caller only sees the description). */
export type SmsProviderFailure =
  | 'unexpected_status'
  | 'authentication_failed'
  | 'timeout'
  | 'unreachable'
  | 'address_refused'
  | 'gateway_unavailable';

/** Gateway statuses that say "try again" rather than "refused": its Redis or providers away, a balancer with no gateway, a key still in flight. */
export const RETRYABLE_GATEWAY_STATUSES: ReadonlySet<number> = new Set([409, 502, 503, 504]);

/** Seconds a caller is told to wait when the gateway said nothing usable. */
const DEFAULT_RETRY_AFTER_SECONDS = 5;

/**
 * A failed delivery: HTTP 400 `sms_provider_error` (reference behaviour), so thrown from a
 * route it renders as `{error: "sms_provider_error", error_description}` as it is.
 */
export class SmsProviderError extends HttpError {
  constructor(
    public readonly failure: SmsProviderFailure,
    description: string,
    /** The gateway's HTTP status, when it answered. */
    public readonly gatewayStatus?: number,
    retryAfterSeconds?: number,
  ) {
    // One super call: TypeScript assigns the parameter properties right after it.
    super(
      retryAfterSeconds === undefined ? 400 : 503,
      retryAfterSeconds === undefined ? ErrorCodes.SMS_PROVIDER_ERROR : ErrorCodes.SERVICE_UNAVAILABLE,
      description,
      retryAfterSeconds === undefined ? {} : { headers: { 'Retry-After': String(retryAfterSeconds) } },
    );
    this.name = 'SmsProviderError';
  }

  /** Whether the start may be retried (503 with Retry-After) rather than refused (400 sms_provider_error). */
  get retryable(): boolean {
    return this.failure === 'gateway_unavailable';
  }

  /** 409/502/503/504 from the gateway, or its connection reset mid-call: 503 `service_unavailable`, Retry-After the gateway's (1-60 s) or 5 s. */
  static gatewayUnavailable(status?: number, retryAfter?: string): SmsProviderError {
    const seconds = retryAfter !== undefined && /^\d{1,2}$/.test(retryAfter) ? Math.min(Math.max(Number(retryAfter), 1), 60) : DEFAULT_RETRY_AFTER_SECONDS;
    return new SmsProviderError('gateway_unavailable', SmsProviderErrorDescriptions.GATEWAY_UNAVAILABLE, status, seconds);
  }

  static unexpectedStatus(status: number): SmsProviderError {
    return new SmsProviderError('unexpected_status', SmsProviderErrorDescriptions.unexpectedGatewayResponse(status), status);
  }

  static authenticationFailed(): SmsProviderError {
    return new SmsProviderError('authentication_failed', SmsProviderErrorDescriptions.GATEWAY_AUTH_FAILED, 401);
  }

  static timeout(): SmsProviderError {
    return new SmsProviderError('timeout', SmsProviderErrorDescriptions.GATEWAY_TIMEOUT);
  }

  static unreachable(): SmsProviderError {
    return new SmsProviderError('unreachable', SmsProviderErrorDescriptions.GATEWAY_UNREACHABLE);
  }

  static addressRefused(): SmsProviderError {
    return new SmsProviderError('address_refused', SmsProviderErrorDescriptions.GATEWAY_ADDRESS_REFUSED);
  }
}
