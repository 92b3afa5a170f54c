import { createHash, createPrivateKey, randomUUID, type KeyObject } from 'node:crypto';
import type { MessageStatusValue } from '@smsauth/contracts';
import type { Clock } from '@smsauth/service-kit';
import jwt from 'jsonwebtoken';
import { isSuccess, receiptJson, withoutPlus, type RestProvider } from './rest-provider';
import type { OutgoingSms, ReceiptReading, ReceiptRequest, SendResult } from '../domain/sms-provider';

// Vonage's Messages API, which the vonage provider sends `whatsapp` deliveries through (its SMS
// API carries SMS only). Kept apart from vonage.ts: another API, its own auth, answers and webhooks.

/** How far a status webhook's signed `iat` may be from now: older ones are replays. */
export const VONAGE_MESSAGES_WEBHOOK_TOLERANCE_SECONDS = 300;

/**
 * The Messages API's HTTP answers to a send (its "Errors" reference, RFC 7807 bodies) and
 * whether another provider may deliver the message. Problems of this account (credentials,
 * balance, a sender not provisioned for WhatsApp) fail over; a request WhatsApp refuses for
 * this recipient or text does not. A status not listed is decided as for every provider
 * (5xx, 408 and 429 fail over; other 4xx refuse).
 */
export const VONAGE_MESSAGES_HTTP_STATUSES: Readonly<Record<number, { meaning: string; transient: boolean }>> = {
  400: { meaning: 'Invalid request (malformed message)', transient: false },
  401: { meaning: 'Invalid credentials', transient: true },
  402: { meaning: 'Low balance', transient: true },
  403: { meaning: 'Forbidden (sender or application not provisioned for the channel)', transient: true },
  404: { meaning: 'Not found (wrong base URL or application)', transient: true },
  413: { meaning: 'Payload too large', transient: false },
  422: { meaning: 'Unprocessable (e.g. the recipient is not a WhatsApp user)', transient: false },
  429: { meaning: 'Rate limit hit', transient: true },
  500: { meaning: 'Internal error', transient: true },
  503: { meaning: 'Service unavailable', transient: true },
};

/** How the Messages API is called: an application's JWT (RS256, its private key) or the account's key and secret (HTTP Basic). */
export type VonageMessagesAuth = { kind: 'application'; applicationId: string; privateKey: KeyObject } | { kind: 'basic'; apiKey: string; apiSecret: string };

/** Reads a PEM private key from a variable (`\n` escapes allowed, as a one-line environment value needs); undefined when it is not one. */
export function parsePrivateKey(pem: string): KeyObject | undefined {
  try {
    return createPrivateKey(pem.replace(/\\n/g, '\n'));
  } catch {
    return undefined;
  }
}

export interface VonageMessagesOptions {
  /** The provider's calls to the Messages API (`Vonage Messages request failed: …`). */
  api: RestProvider;
  clock: Clock;
  baseUrl: string;
  auth: VonageMessagesAuth;
  /** The WhatsApp business number (E.164) the messages come from. */
  from: string;
  /** Where Vonage posts this message's status webhooks; absent when receipts are off. */
  statusCallbackUrl?: (messageId: string) => string;
}

function authorization(auth: VonageMessagesAuth, clock: Clock): string {
  if (auth.kind === 'basic') return `Basic ${Buffer.from(`${auth.apiKey}:${auth.apiSecret}`).toString('base64')}`;
  // Vonage's application JWT: application_id, iat, jti, exp; RS256 with the application's private key.
  const iat = Math.floor(clock.now().getTime() / 1000);
  const token = jwt.sign({ application_id: auth.applicationId, iat, exp: iat + 300, jti: randomUUID() }, auth.privateKey, { algorithm: 'RS256' });
  return `Bearer ${token}`;
}

/**
 * Sends one WhatsApp text message: `POST {base}/v1/messages`, JSON, `message_type: text`,
 * `channel: whatsapp`, `client_ref` the gateway's message id. Vonage answers 202 with the
 * message's `message_uuid`, or an RFC 7807 problem (VONAGE_MESSAGES_HTTP_STATUSES).
 */
export async function sendVonageWhatsApp(message: OutgoingSms, options: VonageMessagesOptions): Promise<SendResult> {
  const { fail, post } = options.api;
  const body = {
    message_type: 'text',
    channel: 'whatsapp',
    to: withoutPlus(message.recipient),
    from: withoutPlus(options.from),
    text: message.body,
    client_ref: message.id,
    ...(options.statusCallbackUrl ? { webhook_url: options.statusCallbackUrl(message.id) } : {}),
  };
  const response = await post(`${options.baseUrl.replace(/\/+$/, '')}/v1/messages`, body, {
    headers: { authorization: authorization(options.auth, options.clock), 'content-type': 'application/json', accept: 'application/json' },
  });
  if (isSuccess(response.status)) {
    const id = (response.data as { message_uuid?: unknown } | undefined)?.message_uuid;
    return typeof id === 'string' ? { providerMessageId: id } : {};
  }
  const problem = (response.data ?? {}) as { title?: unknown; detail?: unknown };
  const known = VONAGE_MESSAGES_HTTP_STATUSES[response.status];
  const reason = [problem.title, problem.detail].filter((part): part is string => typeof part === 'string' && part !== '').join(': ') || known?.meaning || 'no error text';
  throw fail(`Vonage Messages HTTP ${response.status}: ${reason}`, {
    status: response.status,
    ...(known !== undefined ? { transient: known.transient } : {}),
  });
}

/** Whether a receipt is a Messages API status webhook (signed with a bearer JWT) rather than an SMS API DLR (signed with `sig`). */
export function isMessagesWebhook(request: ReceiptRequest): boolean {
  const value = request.headers.authorization;
  return typeof value === 'string' && /^Bearer\s/i.test(value);
}

interface WebhookCheck {
  signatureSecret: string;
  apiKey: string;
  applicationId?: string;
  nowSeconds: number;
  /** The gateway's message id, from the receipt URL. */
  messageId: string | undefined;
}

/**
 * A Messages API status webhook. Vonage signs it with a JWT in `Authorization: Bearer`, HS256
 * keyed with the account's signature secret, whose `payload_hash` is the SHA-256 of the body:
 * the signature, the hash, the `iat` (within VONAGE_MESSAGES_WEBHOOK_TOLERANCE_SECONDS) and the
 * account are checked before the body is read. The JWT does not cover the URL, so the body's
 * `client_ref` must be the message the URL names, and its `message_uuid` the one Vonage
 * answered for it (checked by the message status service).
 */
export function readVonageMessagesWebhook(request: ReceiptRequest, check: WebhookCheck): ReceiptReading {
  const token = String(request.headers.authorization).replace(/^Bearer\s+/i, '');
  let claims: jwt.JwtPayload;
  try {
    const verified = jwt.verify(token, check.signatureSecret, {
      algorithms: ['HS256'],
      clockTimestamp: check.nowSeconds,
      maxAge: VONAGE_MESSAGES_WEBHOOK_TOLERANCE_SECONDS,
    });
    if (typeof verified === 'string') return { kind: 'bad_signature' };
    claims = verified;
  } catch {
    return { kind: 'bad_signature' };
  }
  if (typeof claims.iat !== 'number' || claims.iat > check.nowSeconds + VONAGE_MESSAGES_WEBHOOK_TOLERANCE_SECONDS) return { kind: 'bad_signature' };
  if (claims.payload_hash !== createHash('sha256').update(request.rawBody).digest('hex')) return { kind: 'bad_signature' };
  if (claims.api_key !== undefined && claims.api_key !== check.apiKey) return { kind: 'invalid', description: 'The webhook is for another Vonage API key' };
  if (check.applicationId !== undefined && claims.application_id !== undefined && claims.application_id !== check.applicationId) {
    return { kind: 'invalid', description: 'The webhook is for another Vonage application' };
  }

  const json = receiptJson(request);
  if (json === undefined) return { kind: 'invalid', description: 'A Vonage Messages webhook body must be JSON' };
  const event = (typeof json.value === 'object' && json.value !== null ? json.value : {}) as {
    message_uuid?: unknown;
    status?: unknown;
    client_ref?: unknown;
    error?: { title?: unknown };
  };
  if (event.client_ref !== undefined && event.client_ref !== check.messageId) return { kind: 'invalid', description: 'The webhook is for another message (client_ref)' };
  const status = typeof event.status === 'string' ? statusFromVonageMessages(event.status) : undefined;
  if (typeof event.message_uuid !== 'string' || status === undefined) {
    return { kind: 'invalid', description: `A Vonage Messages webhook needs message_uuid and a known status (got ${String(event.status ?? 'none')})` };
  }
  const errorCode = event.error?.title;
  return {
    kind: 'receipt',
    receipt: {
      status,
      providerMessageId: event.message_uuid,
      ...((typeof errorCode === 'string' || typeof errorCode === 'number') && status !== 'delivered' ? { errorCode: String(errorCode) } : {}),
    },
  };
}

/**
 * A Messages status in the gateway's terms: `submitted` is at WhatsApp (sent); `delivered`
 * and `read` reached the handset; `undeliverable` reached none; `rejected` never went out.
 */
export function statusFromVonageMessages(value: string): MessageStatusValue | undefined {
  switch (value) {
    case 'submitted':
      return 'sent';
    case 'delivered':
    case 'read':
      return 'delivered';
    case 'undeliverable':
      return 'undelivered';
    case 'rejected':
      return 'failed';
    default:
      return undefined;
  }
}
