import type { MessageStatusValue } from '@smsauth/contracts';
import { env } from '@smsauth/service-kit';
import { z } from 'zod';
import { defineProvider, type ProviderDependencies, type ProviderSettings } from './provider';
import { answerTimeout, decidedTransient, isSuccess, messageIdInUrl, receiptJson, receiptTokenRefusal, restProvider, withoutPlus } from './rest-provider';
import { withReceiptToken } from '../domain/receipt-url-token';
import { isNumberSenderIdOrShortCode } from '../domain/sender-id';
import type { ReceiptReading, ReceiptRequest, SmsProvider } from '../domain/sms-provider';


/** The infobip provider's variables. */
const settingsSchema = z.object({
  INFOBIP_API_KEY: env.optionalString().meta({
    secret: true,
    description: 'Infobip API key, sent as `Authorization: App <key>`; required for `infobip`. Also keys the token in each receipt URL. Never logged or returned.',
  }),
  INFOBIP_BASE_URL: env
    .optionalString()
    .pipe(z.url({ protocol: /^https?$/, message: 'must be the account\'s base URL with its scheme, e.g. https://xxxxx.api.infobip.com' }).optional())
    .meta({ description: "The account's personal base URL (`https://<id>.api.infobip.com`, on the portal's home page); required for `infobip`." }),
  INFOBIP_FROM: env.optionalString().meta({
    description:
      "Sender (`from`): an alphanumeric sender id (1-11 letters, digits and spaces), a number (E.164) or a short code registered with Infobip. Unset: the account's default sender. A route's `sender` replaces it; the request's `sender` is not used.",
  }),
  INFOBIP_TIMEOUT_MS: answerTimeout('Infobip'),
});

/**
 * The `status.name`s of Infobip's REJECTED group (its "Response status and error codes")
 * that the send answer can carry, and whether another provider may deliver the message
 * (`transient`) or the message itself is refused. Problems of this account or its setup
 * (credit, sender, network or route not covered, test-account destinations) fail over. A
 * REJECTED name not listed fails over too.
 */
export const INFOBIP_REJECTIONS: Readonly<Record<string, { meaning: string; transient: boolean }>> = {
  REJECTED_NETWORK: { meaning: 'The network is not covered by this account', transient: true },
  REJECTED_PREFIX_MISSING: { meaning: 'The number has no valid prefix', transient: false },
  REJECTED_DND: { meaning: 'The recipient is on a do-not-disturb list', transient: false },
  REJECTED_SOURCE: { meaning: 'The sender is not allowed', transient: true },
  REJECTED_NOT_ENOUGH_CREDITS: { meaning: 'Not enough credit', transient: true },
  REJECTED_SENDER: { meaning: 'The sender is blocked', transient: true },
  REJECTED_DESTINATION: { meaning: 'The destination is blocked', transient: false },
  REJECTED_PREPAID_PACKAGE_EXPIRED: { meaning: 'The prepaid package expired', transient: true },
  REJECTED_DESTINATION_NOT_REGISTERED: { meaning: 'The destination is not registered (test account)', transient: true },
  REJECTED_ROUTE_NOT_AVAILABLE: { meaning: 'No route to the destination on this account', transient: true },
  REJECTED_FLOODING_FILTER: { meaning: 'Too many messages to this number', transient: false },
  REJECTED_SYSTEM_ERROR: { meaning: 'System error', transient: true },
  REJECTED_MESSAGE_TOO_LONG: { meaning: 'The message is too long', transient: false },
  MISSING_TO: { meaning: 'No destination', transient: false },
  REJECTED_INVALID_DESTINATION: { meaning: 'The destination is not a valid number', transient: false },
};

/** Whether another provider may deliver a message Infobip rejected with this status name. */
export function infobipRejectionIsTransient(name: string): boolean {
  return INFOBIP_REJECTIONS[name]?.transient ?? true;
}

/**
 * Infobip's request errors (`requestError.serviceException.messageId`): credentials and
 * permissions are this account's (fail over); a bad request is the message's (refused).
 * Other ids follow the HTTP status (general rule).
 */
export const INFOBIP_REQUEST_ERRORS: Readonly<Record<string, { meaning: string; transient: boolean }>> = {
  UNAUTHORIZED: { meaning: 'Invalid login details', transient: true },
  FORBIDDEN: { meaning: 'The API key may not send SMS (or the caller address is not allowed)', transient: true },
  BAD_REQUEST: { meaning: 'Bad request', transient: false },
  TOO_MANY_REQUESTS: { meaning: 'Too many requests', transient: true },
  GENERAL_ERROR: { meaning: 'General error', transient: true },
};

interface InfobipStatus {
  groupName?: unknown;
  name?: unknown;
  description?: unknown;
}

/**
 * Infobip SMS API: `POST {INFOBIP_BASE_URL}/sms/2/text/advanced`, JSON, `Authorization: App
 * <API key>`, one message with one destination. Sent with the gateway's axios client rather
 * than `@infobip-api/sdk` (a 0.x release that wraps the same POST in axios): one JSON POST does
 * not justify it, and the gateway reads every provider's answer and timeout the same way. Infobip answers 200 with each destination's
 * `status`: a REJECTED one is a refusal (INFOBIP_REJECTIONS). Infobip encodes the UTF-8 text
 * itself (GSM-7 when it can, UCS-2 otherwise). Channels: SMS only here.
 */
export const infobipProvider = defineProvider({
  name: 'infobip',
  settingsSchema,
  secrets: ['INFOBIP_API_KEY'],
  rules(settings, { selected, problem, required }) {
    if (selected) {
      required('INFOBIP_API_KEY');
      required('INFOBIP_BASE_URL');
    }
    const from = settings.INFOBIP_FROM;
    if (from !== undefined && !isNumberSenderIdOrShortCode(from)) {
      problem('INFOBIP_FROM', 'must be an alphanumeric sender id of 1-11 letters, digits and spaces, an E.164 number like +41793026727, or a short code');
    }
  },
  create: (settings, deps) => createInfobipSender(settings, deps),
});

/** Infobip wants numbers (recipient, numeric sender) in international format without the `+`. */
const infobipNumber = withoutPlus;

function createInfobipSender(settings: ProviderSettings<typeof settingsSchema>, deps: ProviderDependencies): SmsProvider {
  const { http, name, statusCallbackUrl } = deps;
  const apiKey = settings.INFOBIP_API_KEY ?? '';
  const url = `${(settings.INFOBIP_BASE_URL ?? '').replace(/\/+$/, '')}/sms/2/text/advanced`;
  const { fail, post } = restProvider({ name, label: 'Infobip', http, timeout: settings.INFOBIP_TIMEOUT_MS, secrets: [apiKey] });

  const provider: SmsProvider = {
    name,
    async send(message) {
      if (message.channel !== 'sms') throw fail(`Infobip sends SMS only here, not ${message.channel}`);
      const from = message.routeSender ?? settings.INFOBIP_FROM;
      const sms = {
        destinations: [{ to: infobipNumber(message.recipient) }],
        text: message.body,
        callbackData: message.id,
        ...(from !== undefined ? { from: infobipNumber(from) } : {}),
        ...(statusCallbackUrl ? { notifyUrl: withReceiptToken(statusCallbackUrl(message.id), apiKey, name, message.id), notifyContentType: 'application/json' } : {}),
      };
      const response = await post(url, { messages: [sms] }, {
        headers: { authorization: `App ${apiKey}`, 'content-type': 'application/json; charset=utf-8', accept: 'application/json' },
      });
      if (isSuccess(response.status)) {
        const first = (response.data as { messages?: Array<{ messageId?: unknown; status?: InfobipStatus }> } | undefined)?.messages?.[0];
        if (first === undefined) throw fail('Infobip answered without a messages array', { transient: true });
        const status = first.status;
        if (status?.groupName === 'REJECTED') {
          const statusName = typeof status.name === 'string' ? status.name : 'REJECTED';
          const reason = typeof status.description === 'string' ? status.description : (INFOBIP_REJECTIONS[statusName]?.meaning ?? 'no description');
          throw fail(`Infobip rejected the message: ${statusName} (${reason})`, { code: statusName, transient: infobipRejectionIsTransient(statusName) });
        }
        return typeof first.messageId === 'string' ? { providerMessageId: first.messageId } : {};
      }
      const exception = (response.data as { requestError?: { serviceException?: { messageId?: unknown; text?: unknown } } } | undefined)?.requestError
        ?.serviceException;
      const id = typeof exception?.messageId === 'string' ? exception.messageId : undefined;
      if (id === undefined) throw fail(`Infobip answered HTTP ${response.status}`, { status: response.status });
      const text = typeof exception?.text === 'string' ? exception.text : (INFOBIP_REQUEST_ERRORS[id]?.meaning ?? 'no error text');
      const transient = INFOBIP_REQUEST_ERRORS[id]?.transient;
      throw fail(`Infobip error ${id} (HTTP ${response.status}): ${text}`, { status: response.status, code: id, ...decidedTransient(transient) });
    },
  };
  if (statusCallbackUrl) provider.readReceipt = (request) => readInfobipReceipt(request, apiKey, name);
  return provider;
}

/**
 * An Infobip delivery report (`{results: [...]}`) posted to the message's `notifyUrl`.
 * Infobip's SMS API documents no signature on reports sent to a `notifyUrl` (an allow-list of
 * its addresses at the operator's proxy is the other protection), so each URL carries a token
 * keyed with the API key (only Infobip, which was given the URL, has it): a report without it
 * is unsigned, one with a wrong one forged. Its `callbackData` must be the URL's message, its `messageId` the
 * one Infobip answered (the message status service checks it).
 */
function readInfobipReceipt(request: ReceiptRequest, apiKey: string, provider: string): ReceiptReading {
  const refusal = receiptTokenRefusal(request, apiKey, provider);
  if (refusal !== undefined) return refusal;
  const json = receiptJson(request);
  if (json === undefined) return { kind: 'invalid', description: 'An Infobip delivery report must be JSON' };
  const report = json.value as { results?: unknown } | null;
  const result = (Array.isArray(report?.results) ? report.results[0] : undefined) as
    | { messageId?: unknown; callbackData?: unknown; status?: InfobipStatus; error?: { name?: unknown; groupName?: unknown } }
    | undefined;
  if (result?.callbackData !== undefined && result.callbackData !== messageIdInUrl(request.url)) {
    return { kind: 'invalid', description: 'The report is for another message (callbackData)' };
  }
  const status = statusFromInfobip(result?.status?.groupName, result?.status?.name);
  if (typeof result?.messageId !== 'string' || status === undefined) {
    return { kind: 'invalid', description: `An Infobip delivery report needs results[0].messageId and a known status (got ${String(result?.status?.groupName ?? 'none')})` };
  }
  const errorName = result.error?.name;
  return {
    kind: 'receipt',
    receipt: {
      status,
      providerMessageId: result.messageId,
      ...(typeof errorName === 'string' && errorName !== 'NO_ERROR' && status !== 'delivered' ? { errorCode: errorName } : {}),
    },
  };
}

/**
 * A report's status group in the gateway's terms: PENDING is accepted, `DELIVERED_TO_OPERATOR`
 * at the carrier (sent), `DELIVERED_TO_HANDSET` delivered; UNDELIVERABLE and EXPIRED reached
 * no handset (undelivered); REJECTED never went out (failed).
 */
export function statusFromInfobip(groupName: unknown, name: unknown): MessageStatusValue | undefined {
  switch (groupName) {
    case 'PENDING':
      return 'accepted';
    case 'DELIVERED':
      return name === 'DELIVERED_TO_OPERATOR' ? 'sent' : 'delivered';
    case 'UNDELIVERABLE':
    case 'EXPIRED':
      return 'undelivered';
    case 'REJECTED':
      return 'failed';
    default:
      return undefined;
  }
}
