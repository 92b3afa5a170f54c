import { PhoneNumberSchema, type MessageStatusValue } from '@smsauth/contracts';
import { env } from '@smsauth/service-kit';
import type { KeyObject } from 'node:crypto';
import { z } from 'zod';
import { defineProvider, type ProviderDependencies, type ProviderSettings } from './provider';
import { answerTimeout, apiBaseUrl, decidedTransient, epochSeconds, isSuccess, receiptHeader, receiptJson, restProvider } from './rest-provider';
import { ed25519PublicKey, telnyxSignatureValid } from '../domain/receipt-signatures';
import { ALPHANUMERIC_SENDER_ID, SHORT_CODE } from '../domain/sender-id';
import type { ReceiptReading, ReceiptRequest, SmsProvider } from '../domain/sms-provider';

/** How far a receipt's `telnyx-timestamp` may be from now (Telnyx's SDKs default to 300 s): older ones are replays. */
export const TELNYX_RECEIPT_TOLERANCE_SECONDS = 300;

const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/** The telnyx provider's variables. */
const settingsSchema = z.object({
  TELNYX_API_KEY: env.optionalString().meta({
    secret: true,
    description: 'Telnyx API key (`KEY...`), sent as `Authorization: Bearer`; required for `telnyx`. Never logged or returned.',
  }),
  TELNYX_FROM: env.optionalString().meta({
    description:
      "Sender: a number of the account (E.164), a short code, or an alphanumeric sender id (1-11 letters, digits and spaces; needs `TELNYX_MESSAGING_PROFILE_ID`). `telnyx` needs this or `TELNYX_MESSAGING_PROFILE_ID` (the profile's number pool then picks the number). A route's `sender` replaces it; the request's `sender` is not used.",
  }),
  TELNYX_MESSAGING_PROFILE_ID: env
    .optionalString()
    .pipe(z.string().regex(UUID, { message: 'must be a Telnyx messaging profile id (a UUID)' }).optional())
    .meta({ description: 'Messaging profile id (UUID), sent as `messaging_profile_id`.' }),
  TELNYX_PUBLIC_KEY: env
    .optionalString()
    .pipe(
      z
        .string()
        .refine((value) => ed25519PublicKey(value) !== undefined, { message: "must be the account's Ed25519 public key as the Telnyx portal shows it (base64 of 32 bytes)" })
        .optional(),
    )
    .meta({
      description:
        "The account's webhook public key (Ed25519, base64, from the portal's Keys & Credentials). With `GATEWAY_PUBLIC_URL`, turns delivery receipts on: each message gets `webhook_url` at the gateway, and only receipts with a valid `telnyx-signature-ed25519` and a `telnyx-timestamp` within 5 minutes are accepted.",
    }),
  TELNYX_API_BASE_URL: apiBaseUrl('https://api.telnyx.com', 'Telnyx API base URL (tests point it at a local imitation).'),
  TELNYX_TIMEOUT_MS: answerTimeout('Telnyx'),
});

/**
 * Telnyx error codes (`errors[].code`: its API error codes and messaging error codes) and
 * whether another provider may deliver the message (`transient`: fail over) or the message
 * itself is refused. Problems of this account or its configuration (authentication,
 * permission, a missing or unknown resource such as the profile, a blocked sending number)
 * fail over: another provider has its own. A code not listed is decided by the HTTP status
 * (5xx, 408 and 429 fail over; other 4xx refuse).
 */
export const TELNYX_ERROR_CODES: Readonly<Record<string, { meaning: string; transient: boolean }>> = {
  '10001': { meaning: 'Inactive phone number', transient: true },
  '10002': { meaning: 'Invalid phone number', transient: false },
  '10004': { meaning: 'Missing required parameter', transient: true },
  '10005': { meaning: 'Resource not found', transient: true },
  '10007': { meaning: 'Unexpected error', transient: true },
  '10008': { meaning: 'Request timeout', transient: true },
  '10009': { meaning: 'Authentication failed', transient: true },
  '10010': { meaning: 'Authorization failed', transient: true },
  '10011': { meaning: 'Too many requests', transient: true },
  '10016': { meaning: 'Phone number must be in +E.164 format', transient: false },
  '40001': { meaning: 'Not routable (landline or non-routable number)', transient: false },
  '40002': { meaning: 'Blocked as spam (temporary)', transient: true },
  '40003': { meaning: 'Blocked as spam (permanent): the sending number', transient: true },
  '40004': { meaning: 'Rejected by destination', transient: true },
  '40005': { meaning: 'Message expired', transient: true },
  '40006': { meaning: 'Recipient unavailable', transient: true },
  '40008': { meaning: 'Undeliverable', transient: true },
  '40009': { meaning: 'Invalid message body', transient: false },
  '40011': { meaning: 'Rate limit', transient: true },
};

/** Whether another provider may deliver a message Telnyx refused with this code; undefined when the code is not in the table. */
export function telnyxErrorIsTransient(code: string): boolean | undefined {
  return TELNYX_ERROR_CODES[code]?.transient;
}

interface TelnyxError {
  code?: unknown;
  title?: unknown;
  detail?: unknown;
}

/**
 * Telnyx Messaging API v2: `POST /v2/messages`, JSON, `Authorization: Bearer <API key>`.
 * Sent with the gateway's axios client, as Twilio is, rather than the `telnyx` SDK: one JSON
 * POST does not justify the SDK, and the gateway already reads every provider's answer and
 * timeout the same way. Telnyx picks the encoding itself (GSM-7 or UCS-2) from the UTF-8
 * text. Channels: SMS only here (Telnyx's WhatsApp and voice are other APIs).
 */
export const telnyxProvider = defineProvider({
  name: 'telnyx',
  settingsSchema,
  secrets: ['TELNYX_API_KEY'],
  rules(settings, { selected, problem, required, requiredEither }) {
    if (selected) {
      required('TELNYX_API_KEY');
      requiredEither('TELNYX_FROM', 'TELNYX_MESSAGING_PROFILE_ID');
    }
    const from = settings.TELNYX_FROM;
    if (from !== undefined) {
      if (ALPHANUMERIC_SENDER_ID.test(from)) {
        if (settings.TELNYX_MESSAGING_PROFILE_ID === undefined) {
          problem('TELNYX_FROM', 'an alphanumeric sender id needs TELNYX_MESSAGING_PROFILE_ID (Telnyx sends it through a messaging profile)');
        }
      } else if (!PhoneNumberSchema.safeParse(from).success && !SHORT_CODE.test(from)) {
        problem('TELNYX_FROM', 'must be an E.164 number like +13125550100, a short code, or an alphanumeric sender id of 1-11 letters, digits and spaces');
      }
    }
  },
  create: (settings, deps) => createTelnyxSender(settings, deps),
});

function createTelnyxSender(settings: ProviderSettings<typeof settingsSchema>, deps: ProviderDependencies): SmsProvider {
  const { http, name, clock } = deps;
  const apiKey = settings.TELNYX_API_KEY ?? '';
  const url = `${settings.TELNYX_API_BASE_URL.replace(/\/+$/, '')}/v2/messages`;
  const publicKey = settings.TELNYX_PUBLIC_KEY !== undefined ? ed25519PublicKey(settings.TELNYX_PUBLIC_KEY) : undefined;
  // Receipts need the key to check them and a public URL to be sent to.
  const statusCallbackUrl = publicKey !== undefined ? deps.statusCallbackUrl : undefined;
  const { fail, post } = restProvider({ name, label: 'Telnyx', http, timeout: settings.TELNYX_TIMEOUT_MS, secrets: [apiKey] });

  const provider: SmsProvider = {
    name,
    async send(message) {
      if (message.channel !== 'sms') throw fail(`Telnyx sends SMS only here, not ${message.channel}`);
      const from = message.routeSender ?? settings.TELNYX_FROM;
      const body = {
        to: message.recipient,
        text: message.body,
        type: 'SMS',
        ...(from !== undefined ? { from } : {}),
        ...(settings.TELNYX_MESSAGING_PROFILE_ID !== undefined ? { messaging_profile_id: settings.TELNYX_MESSAGING_PROFILE_ID } : {}),
        ...(statusCallbackUrl ? { webhook_url: statusCallbackUrl(message.id), use_profile_webhooks: false } : {}),
      };
      const response = await post(url, body, {
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', accept: 'application/json' },
      });
      if (isSuccess(response.status)) {
        const id = (response.data as { data?: { id?: unknown } } | undefined)?.data?.id;
        return typeof id === 'string' ? { providerMessageId: id } : {};
      }
      const errors = (response.data as { errors?: unknown } | undefined)?.errors;
      const first = (Array.isArray(errors) ? errors[0] : undefined) as TelnyxError | undefined;
      const code = typeof first?.code === 'string' || typeof first?.code === 'number' ? String(first.code) : undefined;
      if (code === undefined) throw fail(`Telnyx answered HTTP ${response.status}`, { status: response.status });
      const reason = [first?.title, first?.detail].filter((part): part is string => typeof part === 'string' && part !== '').join(': ') || 'no error message';
      const transient = telnyxErrorIsTransient(code);
      throw fail(`Telnyx error ${code} (HTTP ${response.status}): ${reason}`, { status: response.status, code, ...decidedTransient(transient) });
    },
  };
  if (publicKey !== undefined) provider.readReceipt = (request) => readTelnyxReceipt(request, publicKey, epochSeconds(clock));
  return provider;
}


/**
 * A Telnyx messaging webhook (`message.sent`, `message.finalized`), signed with Ed25519 over
 * `{telnyx-timestamp}|{raw body}`. The timestamp must be within TELNYX_RECEIPT_TOLERANCE_SECONDS
 * of now. The signature does not cover the URL: the message status service ties the receipt to
 * the message by its Telnyx message id (`data.payload.id`).
 */
function readTelnyxReceipt(request: ReceiptRequest, publicKey: KeyObject, nowSeconds: number): ReceiptReading {
  const signature = receiptHeader(request, 'telnyx-signature-ed25519');
  const timestamp = receiptHeader(request, 'telnyx-timestamp');
  if (!signature || !timestamp) return { kind: 'unsigned' };
  if (!/^\d{1,12}$/.test(timestamp) || !telnyxSignatureValid(publicKey, timestamp, request.rawBody, signature)) return { kind: 'bad_signature' };
  if (Math.abs(nowSeconds - Number(timestamp)) > TELNYX_RECEIPT_TOLERANCE_SECONDS) return { kind: 'bad_signature' };

  const event = receiptJson(request);
  if (event === undefined) return { kind: 'invalid', description: 'A Telnyx webhook body must be JSON' };
  const payload = (event.value as { data?: { payload?: unknown } } | null)?.data?.payload as
    | { id?: unknown; to?: Array<{ status?: unknown }>; errors?: Array<{ code?: unknown }> }
    | undefined;
  const id = payload?.id;
  const rawStatus = Array.isArray(payload?.to) ? payload.to[0]?.status : undefined;
  const status = typeof rawStatus === 'string' ? statusFromTelnyx(rawStatus) : undefined;
  if (typeof id !== 'string' || status === undefined) {
    return { kind: 'invalid', description: `A Telnyx message webhook needs data.payload.id and a known to[0].status (got ${String(rawStatus ?? 'none')})` };
  }
  const errorCode = Array.isArray(payload?.errors) ? payload.errors[0]?.code : undefined;
  return {
    kind: 'receipt',
    receipt: {
      status,
      providerMessageId: id,
      ...((typeof errorCode === 'string' || typeof errorCode === 'number') && status !== 'delivered' ? { errorCode: String(errorCode) } : {}),
    },
  };
}

/**
 * A recipient's `status` in Telnyx's message webhooks, in the gateway's terms: `queued` and
 * `sending` are still accepted; `sent` and `delivery_unconfirmed` (the carrier sent no
 * receipt) are sent; `delivery_failed` and `expired` reached no handset (undelivered);
 * `sending_failed` never went out (failed).
 */
export function statusFromTelnyx(value: string): MessageStatusValue | undefined {
  switch (value) {
    case 'queued':
    case 'sending':
      return 'accepted';
    case 'sent':
    case 'delivery_unconfirmed':
      return 'sent';
    case 'delivered':
      return 'delivered';
    case 'delivery_failed':
    case 'expired':
      return 'undelivered';
    case 'sending_failed':
      return 'failed';
    default:
      return undefined;
  }
}
