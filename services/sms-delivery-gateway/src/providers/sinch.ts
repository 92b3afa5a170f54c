import type { MessageStatusValue } from '@smsauth/contracts';
import { env } from '@smsauth/service-kit';
import { createHmac } from 'node:crypto';
import { z } from 'zod';
import { defineProvider, type ProviderDependencies, type ProviderSettings } from './provider';
import {
  answerTimeout,
  bodyObject,
  decidedTransient,
  epochSeconds,
  isSuccess,
  messageIdInUrl,
  receiptHeader,
  receiptJson,
  receiptTokenRefusal,
  restProvider,
} from './rest-provider';
import { secretsMatch } from '../domain/constant-time';
import { withReceiptToken } from '../domain/receipt-url-token';
import { isNumberSenderIdOrShortCode } from '../domain/sender-id';
import type { ReceiptReading, ReceiptRequest, SmsProvider } from '../domain/sms-provider';

/** How far a signed callback's `x-sinch-webhook-signature-timestamp` may be from now: older ones are replays. */
export const SINCH_RECEIPT_TOLERANCE_SECONDS = 300;

/** The regions of the SMS REST API (`https://{region}.sms.api.sinch.com`); a service plan lives in one. */
export const SINCH_REGIONS = ['us', 'eu', 'au', 'br', 'ca'] as const;

const HEX_ID = /^[0-9a-fA-F]{32}$/;

/** The sinch provider's variables. */
const settingsSchema = z.object({
  SINCH_SERVICE_PLAN_ID: env
    .optionalString()
    .pipe(z.string().regex(HEX_ID, { message: 'must be a Sinch service plan id (32 hex digits, as the SMS dashboard shows it)' }).optional())
    .meta({ description: 'Sinch SMS service plan id (32 hex digits); required for `sinch`.' }),
  SINCH_API_TOKEN: env.optionalString().meta({
    secret: true,
    description:
      "The service plan's API token, sent as `Authorization: Bearer`; required for `sinch`. Also keys the token in each receipt URL. Never logged or returned.",
  }),
  SINCH_FROM: env.optionalString().meta({
    description:
      "Sender: a number of the service plan (E.164), a short code, or an alphanumeric sender id (1-11 letters, digits and spaces) where the destination country allows one; required for `sinch`. A route's `sender` replaces it; the request's `sender` is not used.",
  }),
  SINCH_REGION: z
    .enum(SINCH_REGIONS, { message: `must be one of ${SINCH_REGIONS.join(', ')}` })
    .default('us')
    .meta({ description: 'Region of the service plan: the API base URL is `https://{region}.sms.api.sinch.com`.' }),
  SINCH_API_BASE_URL: env
    .optionalString()
    .pipe(z.url({ protocol: /^https?$/, message: 'must be an http(s) URL' }).optional())
    .meta({ defaultText: 'from `SINCH_REGION`', description: 'Sinch SMS API base URL, replacing the region\'s (tests point it at a local imitation).' }),
  SINCH_CALLBACK_SECRET: env.optionalString().meta({
    secret: true,
    description:
      "The HMAC secret Sinch signs the service plan's callbacks with (ask your Sinch account manager to turn callback HMAC on). When set, a delivery report must also carry a valid `x-sinch-webhook-signature` with a timestamp within 5 minutes. Never logged.",
  }),
  SINCH_TIMEOUT_MS: answerTimeout('Sinch'),
});

/**
 * The SMS REST API's error `code`s (its "HTTP status codes" page) and whether another
 * provider may deliver the message (`transient`) or the message itself is refused.
 * Problems of this service plan or its setup (token, plan, region, callback) fail over.
 * A code not listed is decided by the HTTP status (5xx, 408 and 429 fail over; 4xx refuse).
 */
export const SINCH_ERROR_CODES: Readonly<Record<string, { meaning: string; transient: boolean }>> = {
  syntax_invalid_json: { meaning: 'The request body is not valid JSON', transient: true },
  syntax_invalid_parameter_format: { meaning: 'A parameter has an invalid format (e.g. the recipient)', transient: false },
  syntax_constraint_violation: { meaning: 'A parameter breaks a constraint (e.g. the text is too long)', transient: false },
  unauthorized: { meaning: 'The API token is not valid for this service plan', transient: true },
  forbidden: { meaning: 'The service plan may not do this', transient: true },
  unprovisioned_region: { meaning: 'The service plan is not provisioned in this region', transient: true },
  missing_callback_url: { meaning: 'The service plan has no callback URL', transient: true },
  not_found: { meaning: 'No such service plan or resource', transient: true },
  too_many_requests: { meaning: 'Throttled', transient: true },
  internal_error: { meaning: 'Internal error', transient: true },
};

/** Whether another provider may deliver a message Sinch refused with this code; undefined when it is not in the table. */
export function sinchErrorIsTransient(code: string): boolean | undefined {
  return SINCH_ERROR_CODES[code]?.transient;
}

/** What an HTTP status says when Sinch answers without a code (401 comes with an empty body). */
const UNCODED_STATUSES: Readonly<Record<number, string>> = { 401: 'unauthorized', 403: 'forbidden', 404: 'not_found', 429: 'too_many_requests' };

/**
 * Sinch SMS REST API: `POST {base}/xms/v1/{service_plan_id}/batches`, JSON, `Authorization:
 * Bearer <API token>`, one recipient per batch. Sent with the gateway's axios client rather
 * than `@sinch/sdk-core`: one JSON POST does not justify an SDK that installs every Sinch
 * product (eight packages, its own fetch client with its own timeouts and errors), and its
 * SMS package does not load without the whole core. Sinch
 * encodes the UTF-8 text itself (GSM-7 when it can, UCS-2 otherwise). Channels: SMS only
 * here (Sinch's WhatsApp and voice are other APIs).
 */
export const sinchProvider = defineProvider({
  name: 'sinch',
  settingsSchema,
  secrets: ['SINCH_API_TOKEN', 'SINCH_CALLBACK_SECRET'],
  rules(settings, { selected, problem, required }) {
    if (selected) {
      required('SINCH_SERVICE_PLAN_ID');
      required('SINCH_API_TOKEN');
      required('SINCH_FROM');
    }
    const from = settings.SINCH_FROM;
    if (from !== undefined && !isNumberSenderIdOrShortCode(from)) {
      problem('SINCH_FROM', 'must be an E.164 number like +12025550100, a short code, or an alphanumeric sender id of 1-11 letters, digits and spaces');
    }
  },
  create: (settings, deps) => createSinchSender(settings, deps),
});

function createSinchSender(settings: ProviderSettings<typeof settingsSchema>, deps: ProviderDependencies): SmsProvider {
  const { http, name, statusCallbackUrl, clock } = deps;
  const token = settings.SINCH_API_TOKEN ?? '';
  const base = (settings.SINCH_API_BASE_URL ?? `https://${settings.SINCH_REGION}.sms.api.sinch.com`).replace(/\/+$/, '');
  const url = `${base}/xms/v1/${encodeURIComponent(settings.SINCH_SERVICE_PLAN_ID ?? '')}/batches`;
  const callbackSecret = settings.SINCH_CALLBACK_SECRET;
  const { fail, post } = restProvider({ name, label: 'Sinch', http, timeout: settings.SINCH_TIMEOUT_MS, secrets: [token, callbackSecret] });

  const provider: SmsProvider = {
    name,
    async send(message) {
      if (message.channel !== 'sms') throw fail(`Sinch sends SMS only here, not ${message.channel}`);
      const body = {
        from: message.routeSender ?? settings.SINCH_FROM,
        to: [message.recipient],
        body: message.body,
        client_reference: message.id,
        ...(statusCallbackUrl ? { delivery_report: 'per_recipient', callback_url: withReceiptToken(statusCallbackUrl(message.id), token, name, message.id) } : {}),
      };
      const response = await post(url, body, {
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json; charset=utf-8', accept: 'application/json' },
      });
      if (isSuccess(response.status)) {
        const id = (response.data as { id?: unknown } | undefined)?.id;
        return typeof id === 'string' ? { providerMessageId: id } : {};
      }
      const data = bodyObject<{ code: unknown; text: unknown }>(response.data);
      const code = typeof data.code === 'string' ? data.code : UNCODED_STATUSES[response.status];
      if (code === undefined) throw fail(`Sinch answered HTTP ${response.status}`, { status: response.status });
      const reason = typeof data.text === 'string' ? data.text : (SINCH_ERROR_CODES[code]?.meaning ?? 'no error text');
      const transient = sinchErrorIsTransient(code);
      throw fail(`Sinch error ${code} (HTTP ${response.status}): ${reason}`, { status: response.status, code, ...decidedTransient(transient) });
    },
  };
  if (statusCallbackUrl) {
    provider.readReceipt = (request) =>
      readSinchReceipt(request, { token, provider: name, callbackSecret, nowSeconds: epochSeconds(clock) });
  }
  return provider;
}

/** The HMAC algorithms Sinch names in `x-sinch-webhook-signature-algorithm`. */
const SINCH_ALGORITHMS: Readonly<Record<string, string>> = { HmacSHA256: 'sha256', HmacSHA512: 'sha512' };

/**
 * Sinch's callback signature (its SDKs' `validateAuthenticationHeader`): base64 HMAC keyed
 * with the callback secret over `{raw body}.{nonce}.{timestamp}`; undefined for an algorithm it does not use.
 */
export function sinchCallbackSignature(secret: string, rawBody: Buffer, nonce: string, timestamp: string, algorithm = 'HmacSHA256'): string | undefined {
  const hash = SINCH_ALGORITHMS[algorithm];
  if (hash === undefined) return undefined;
  return createHmac(hash, secret).update(rawBody).update(`.${nonce}.${timestamp}`, 'utf8').digest('base64');
}


/**
 * A Sinch recipient delivery report. Sinch signs SMS callbacks only when the account manager
 * turns HMAC on, so every report must first carry the receipt URL's token (a capability
 * keyed with the API token: only Sinch, which was given the URL, has it) and, with
 * SINCH_CALLBACK_SECRET, a valid signature within SINCH_RECEIPT_TOLERANCE_SECONDS. Its
 * `client_reference` must be the message of the URL, its `batch_id` the one Sinch answered.
 */
function readSinchReceipt(
  request: ReceiptRequest,
  check: { token: string; provider: string; callbackSecret: string | undefined; nowSeconds: number },
): ReceiptReading {
  const refusal = receiptTokenRefusal(request, check.token, check.provider);
  if (refusal !== undefined) return refusal;
  if (check.callbackSecret !== undefined) {
    const signature = receiptHeader(request, 'x-sinch-webhook-signature');
    const nonce = receiptHeader(request, 'x-sinch-webhook-signature-nonce');
    const timestamp = receiptHeader(request, 'x-sinch-webhook-signature-timestamp');
    if (!signature || !nonce || !timestamp) return { kind: 'unsigned' };
    const expected = sinchCallbackSignature(check.callbackSecret, request.rawBody, nonce, timestamp, receiptHeader(request, 'x-sinch-webhook-signature-algorithm') ?? 'HmacSHA256');
    if (expected === undefined || !secretsMatch(signature, expected)) return { kind: 'bad_signature' };
    if (!/^\d{1,12}$/.test(timestamp) || Math.abs(check.nowSeconds - Number(timestamp)) > SINCH_RECEIPT_TOLERANCE_SECONDS) return { kind: 'bad_signature' };
  }

  const json = receiptJson(request);
  if (json === undefined) return { kind: 'invalid', description: 'A Sinch delivery report must be JSON' };
  if (json.value === null || typeof json.value !== 'object') return { kind: 'invalid', description: 'A Sinch delivery report must be a JSON object' };
  const report = json.value as { type?: unknown; batch_id?: unknown; status?: unknown; code?: unknown; client_reference?: unknown };
  if (report.client_reference !== undefined && report.client_reference !== messageIdInUrl(request.url)) {
    return { kind: 'invalid', description: 'The report is for another message (client_reference)' };
  }
  const status = typeof report.status === 'string' ? statusFromSinch(report.status) : undefined;
  if (report.type !== 'recipient_delivery_report_sms' || typeof report.batch_id !== 'string' || status === undefined) {
    return { kind: 'invalid', description: `A Sinch recipient_delivery_report_sms needs batch_id and a known status (got ${String(report.status ?? 'none')})` };
  }
  const code = typeof report.code === 'number' || typeof report.code === 'string' ? String(report.code) : undefined;
  // `code` is also set on progress (400 queued, 401 dispatched): an error only when the message failed.
  const failed = status === 'undelivered' || status === 'failed';
  return { kind: 'receipt', receipt: { status, providerMessageId: report.batch_id, ...(code !== undefined && failed ? { errorCode: code } : {}) } };
}

/**
 * A recipient's delivery report `status` in the gateway's terms: `Queued` is accepted,
 * `Dispatched` at the carrier (sent); `Failed` and `Expired` reached no handset
 * (undelivered); `Aborted`, `Rejected`, `Cancelled` and `Deleted` never went out (failed);
 * `Unknown` tells nothing new (accepted, which never moves a status).
 */
export function statusFromSinch(value: string): MessageStatusValue | undefined {
  switch (value) {
    case 'Queued':
    case 'Unknown':
      return 'accepted';
    case 'Dispatched':
      return 'sent';
    case 'Delivered':
      return 'delivered';
    case 'Failed':
    case 'Expired':
      return 'undelivered';
    case 'Aborted':
    case 'Rejected':
    case 'Cancelled':
    case 'Deleted':
      return 'failed';
    default:
      return undefined;
  }
}
