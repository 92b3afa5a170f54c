import type { MessageStatusValue } from '@smsauth/contracts';
import { env } from '@smsauth/service-kit';
import { createHmac } from 'node:crypto';
import { z } from 'zod';
import { defineProvider, type ProviderDependencies, type ProviderSettings } from './provider';
import { answerTimeout, apiBaseUrl, decidedTransient, isSuccess, receiptHeader, restProvider } from './rest-provider';
import { secretsMatch } from '../domain/constant-time';
import { isNumberSenderIdOrShortCode } from '../domain/sender-id';
import type { ReceiptReading, ReceiptRequest, SmsProvider } from '../domain/sms-provider';

const AUTH_ID = /^[MS]A[A-Z0-9]{18}$/;
const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/** The plivo provider's variables. */
const settingsSchema = z.object({
  PLIVO_AUTH_ID: env
    .optionalString()
    .pipe(z.string().regex(AUTH_ID, { message: 'must be a Plivo Auth ID (MA or SA followed by 18 capital letters and digits)' }).optional())
    .meta({ description: 'Plivo Auth ID (`MA...` or `SA...`, 20 characters; the HTTP basic auth user); required for `plivo`.' }),
  PLIVO_AUTH_TOKEN: env.optionalString().meta({
    secret: true,
    description:
      'Plivo Auth Token (HTTP basic auth password; also what Plivo signs delivery reports with); required for `plivo`. Never logged or returned.',
  }),
  PLIVO_FROM: env.optionalString().meta({
    description:
      'Sender (`src`): a Plivo number of the account (E.164), a short code, or an alphanumeric sender id (1-11 letters, digits and spaces) where the destination country allows one. `plivo` needs this or `PLIVO_POWERPACK_UUID`. A route\'s `sender` replaces it; the request\'s `sender` is not used.',
  }),
  PLIVO_POWERPACK_UUID: env
    .optionalString()
    .pipe(z.string().regex(UUID, { message: 'must be a Plivo Powerpack UUID' }).optional())
    .meta({ description: 'Powerpack UUID, sent as `powerpack_uuid` when `PLIVO_FROM` is unset: the Powerpack\'s number pool picks the sender.' }),
  PLIVO_API_BASE_URL: apiBaseUrl('https://api.plivo.com', 'Plivo API base URL (tests point it at a local imitation).'),
  PLIVO_TIMEOUT_MS: answerTimeout('Plivo'),
});

/**
 * How Plivo's HTTP answers to `POST /Message/` decide failover (its "HTTP status codes"
 * page: 400 invalid request, 401 authentication failed, 404 resource not found, 405, 500).
 * Problems of this account or its setup (credentials, the account URL, the sender or
 * Powerpack) fail over: another provider has its own. A 400 that names the destination or
 * the text refuses the message; 429 and 5xx fail over by the general rule.
 */
export const PLIVO_HTTP_STATUSES: Readonly<Record<number, { meaning: string; transient: boolean }>> = {
  400: { meaning: 'Invalid request (a parameter such as dst or text is invalid)', transient: false },
  401: { meaning: 'Authentication failed (Auth ID or Auth Token)', transient: true },
  403: { meaning: 'Forbidden (account suspended or not allowed to send here)', transient: true },
  404: { meaning: 'Resource not found (no account with this Auth ID)', transient: true },
};

/** A 400 whose error names the sender or Powerpack: this account's setup, not the message. */
const SENDER_PROBLEM = /\b(src|powerpack(_uuid)?|sender)\b/i;

/** Whether another provider may deliver a message Plivo refused with this HTTP status and error text; undefined: the general rule decides. */
export function plivoErrorIsTransient(status: number, error: string): boolean | undefined {
  if (status === 400 && SENDER_PROBLEM.test(error)) return true;
  return PLIVO_HTTP_STATUSES[status]?.transient;
}

/**
 * Plivo Messages API: `POST /v1/Account/{auth_id}/Message/`, JSON, HTTP basic auth (Auth ID,
 * Auth Token). Sent with the gateway's axios client, as Twilio, Vonage and Telnyx are, rather
 * than the `plivo` SDK: one JSON POST does not justify its ~100 packages (among them the
 * deprecated `request`), and it hard-codes `https://api.plivo.com` where every provider here
 * has a base URL variable (which the tests point at a local imitation). Plivo encodes the UTF-8 text itself (GSM-7 when
 * it can, UCS-2 otherwise). Channels: SMS only here (Plivo's WhatsApp and voice are other APIs).
 */
export const plivoProvider = defineProvider({
  name: 'plivo',
  settingsSchema,
  secrets: ['PLIVO_AUTH_TOKEN'],
  rules(settings, { selected, problem, required, requiredEither }) {
    if (selected) {
      required('PLIVO_AUTH_ID');
      required('PLIVO_AUTH_TOKEN');
      requiredEither('PLIVO_FROM', 'PLIVO_POWERPACK_UUID');
    }
    const from = settings.PLIVO_FROM;
    if (from !== undefined && !isNumberSenderIdOrShortCode(from)) {
      problem('PLIVO_FROM', 'must be an E.164 number like +14155550100, a short code, or an alphanumeric sender id of 1-11 letters, digits and spaces');
    }
  },
  create: (settings, deps) => createPlivoSender(settings, deps),
});

function createPlivoSender(settings: ProviderSettings<typeof settingsSchema>, deps: ProviderDependencies): SmsProvider {
  const { http, name, statusCallbackUrl } = deps;
  const authId = settings.PLIVO_AUTH_ID ?? '';
  const authToken = settings.PLIVO_AUTH_TOKEN ?? '';
  const url = `${settings.PLIVO_API_BASE_URL.replace(/\/+$/, '')}/v1/Account/${encodeURIComponent(authId)}/Message/`;
  const { fail, post } = restProvider({ name, label: 'Plivo', http, timeout: settings.PLIVO_TIMEOUT_MS, secrets: [authToken] });

  return {
    name,
    async send(message) {
      if (message.channel !== 'sms') throw fail(`Plivo sends SMS only here, not ${message.channel}`);
      const from = message.routeSender ?? settings.PLIVO_FROM;
      const body = {
        dst: message.recipient,
        text: message.body,
        type: 'sms',
        ...(from !== undefined ? { src: from } : { powerpack_uuid: settings.PLIVO_POWERPACK_UUID }),
        ...(statusCallbackUrl ? { url: statusCallbackUrl(message.id), method: 'POST' } : {}),
      };
      const response = await post(url, body, {
        auth: { username: authId, password: authToken },
        headers: { 'content-type': 'application/json; charset=utf-8', accept: 'application/json' },
      });
      if (isSuccess(response.status)) {
        const uuids = (response.data as { message_uuid?: unknown } | undefined)?.message_uuid;
        const first: unknown = Array.isArray(uuids) ? uuids[0] : undefined;
        return typeof first === 'string' ? { providerMessageId: first } : {};
      }
      const data = response.data as { error?: unknown } | string | undefined;
      const error = typeof data === 'object' && data !== null && typeof data.error === 'string' ? data.error : (PLIVO_HTTP_STATUSES[response.status]?.meaning ?? 'no error message');
      const transient = plivoErrorIsTransient(response.status, error);
      throw fail(`Plivo answered HTTP ${response.status}: ${error}`, { status: response.status, ...decidedTransient(transient) });
    },
    readReceipt: (request) => readPlivoReceipt(request, authToken),
  };
}

/**
 * Plivo's request signature V3, as its SDKs compute it (`validateV3Signature`): for a POST,
 * the URL without its query, then `?` and the query parameters sorted as `name=value` joined
 * by `&` (and a `.` when there are both), then every POST parameter sorted by name as
 * `namevalue` (a repeated name's values sorted); then `.` and the nonce. HMAC-SHA256 keyed
 * with the Auth Token, base64.
 */
export function plivoSignatureV3(authToken: string, url: string, params: ReadonlyArray<readonly [string, string]>, nonce: string): string {
  const parsed = new URL(url);
  const group = (entries: Iterable<readonly [string, string]>) => {
    const byName = new Map<string, string[]>();
    for (const [key, value] of entries) byName.set(key, [...(byName.get(key) ?? []), value]);
    return [...byName.keys()].sort().map((key) => [key, byName.get(key)!.sort()] as const);
  };
  const query = group(parsed.searchParams.entries())
    .flatMap(([key, values]) => values.map((value) => `${key}=${value}`))
    .join('&');
  const posted = group(params)
    .flatMap(([key, values]) => values.map((value) => `${key}${value}`))
    .join('');
  let base = `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
  if (query !== '' || posted !== '') base += `?${query}`;
  if (query !== '' && posted !== '') base += '.';
  return createHmac('sha256', authToken).update(`${base}${posted}.${nonce}`, 'utf8').digest('base64');
}


/**
 * A Plivo message status callback: form-encoded, signed with `X-Plivo-Signature-V3` and/or
 * `X-Plivo-Signature-Ma-V3` (messaging callbacks carry the latter, made with the main
 * account's token: the same as PLIVO_AUTH_TOKEN unless it is a subaccount's), each one or more
 * comma-separated signatures, and `X-Plivo-Signature-V3-Nonce`, over the receipt URL
 * (which names the message) and every parameter. Plivo sends no timestamp: a replayed
 * genuine callback can only repeat what it said of its own message, and a status never moves
 * back. The message status service ties it to the message by `MessageUUID`.
 */
function readPlivoReceipt(request: ReceiptRequest, authToken: string): ReceiptReading {
  const signatures = [receiptHeader(request, 'x-plivo-signature-v3'), receiptHeader(request, 'x-plivo-signature-ma-v3')]
    .filter((value): value is string => value !== undefined && value !== '')
    .flatMap((value) => value.split(','));
  const nonce = receiptHeader(request, 'x-plivo-signature-v3-nonce');
  if (signatures.length === 0 || !nonce) return { kind: 'unsigned' };
  const params = [...new URLSearchParams(request.rawBody.toString('utf8'))];
  const expected = plivoSignatureV3(authToken, request.url, params, nonce);
  if (!signatures.some((signature) => secretsMatch(signature.trim(), expected))) return { kind: 'bad_signature' };

  const fields = Object.fromEntries(params);
  const status = statusFromPlivo(fields.Status ?? '');
  if (!fields.MessageUUID || status === undefined) {
    return { kind: 'invalid', description: `A Plivo status callback needs MessageUUID and a known Status (got ${fields.Status ?? 'none'})` };
  }
  const errorCode = fields.ErrorCode;
  return {
    kind: 'receipt',
    receipt: {
      status,
      providerMessageId: fields.MessageUUID,
      ...(errorCode !== undefined && errorCode !== '' && errorCode !== '000' && status !== 'delivered' ? { errorCode } : {}),
    },
  };
}

/**
 * Plivo's message `Status` in the gateway's terms: `queued` is accepted; `sent` is at the
 * carrier; `undelivered` reached no handset; `failed` and `rejected` never went out.
 */
export function statusFromPlivo(value: string): MessageStatusValue | undefined {
  switch (value) {
    case 'queued':
      return 'accepted';
    case 'sent':
      return 'sent';
    case 'delivered':
      return 'delivered';
    case 'undelivered':
      return 'undelivered';
    case 'failed':
    case 'rejected':
      return 'failed';
    default:
      return undefined;
  }
}
