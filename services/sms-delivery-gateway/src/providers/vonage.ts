import { PhoneNumberSchema, type MessageStatusValue } from '@smsauth/contracts';
import { env } from '@smsauth/service-kit';
import { z } from 'zod';
import { defineProvider, type ProviderDependencies, type ProviderSettings } from './provider';
import { answerTimeout, apiBaseUrl, epochSeconds, isSuccess, messageIdInUrl, restProvider, withoutPlus } from './rest-provider';
import { secretsMatch } from '../domain/constant-time';
import { isNumberOrSenderId } from '../domain/sender-id';
import { isGsm7 } from '../domain/gsm7';
import { VONAGE_SIGNATURE_METHODS, vonageSignature, type VonageSignatureMethod } from '../domain/receipt-signatures';
import {
  isMessagesWebhook,
  parsePrivateKey,
  readVonageMessagesWebhook,
  sendVonageWhatsApp,
  type VonageMessagesAuth,
} from './vonage-messages';
import type { ReceiptReading, ReceiptRequest, SendResult, SmsProvider } from '../domain/sms-provider';

/** How far a signed delivery receipt's `timestamp` may be from now: older ones are replays. */
export const VONAGE_RECEIPT_TOLERANCE_SECONDS = 300;

/** The vonage provider's variables. */
const settingsSchema = z.object({
  VONAGE_API_KEY: env
    .optionalString()
    .pipe(z.string().regex(/^[A-Za-z0-9]{6,32}$/, { message: 'must be a Vonage API key (letters and digits, as the dashboard shows it)' }).optional())
    .meta({ description: 'Vonage API key (the dashboard\'s "API key"); required for `vonage`.' }),
  VONAGE_API_SECRET: env.optionalString().meta({
    secret: true,
    description:
      'Vonage API secret, sent as `api_secret`. `vonage` needs this or `VONAGE_SIGNATURE_SECRET` (then every request is signed instead). Never logged or returned.',
  }),
  VONAGE_SIGNATURE_SECRET: env.optionalString().meta({
    secret: true,
    description:
      "The account's SMS signature secret. Signs requests when `VONAGE_API_SECRET` is unset and, with `GATEWAY_PUBLIC_URL`, turns delivery receipts on: each message asks for its receipt at the gateway, and only receipts carrying a valid `sig` (ask Vonage support for signed webhooks) no older than 5 minutes are accepted. Never logged.",
  }),
  VONAGE_SIGNATURE_METHOD: z
    .enum(VONAGE_SIGNATURE_METHODS, { message: `must be one of ${VONAGE_SIGNATURE_METHODS.join(', ')}` })
    .default('md5hash')
    .meta({
      description:
        "The signature method chosen for the secret in the Vonage dashboard (`md5hash` is Vonage's default; an HMAC such as `sha256hmac` is stronger).",
    }),
  VONAGE_FROM: env.optionalString().meta({
    description:
      "Sender: a number of the account (E.164, e.g. `+447700900000`) or an alphanumeric sender id (1-11 letters, digits and spaces, at least one letter) where the destination country allows one; required for `vonage`. A route's `sender` replaces it; the request's `sender` is not used.",
  }),
  VONAGE_API_BASE_URL: apiBaseUrl('https://rest.nexmo.com', 'Vonage SMS API base URL (tests point it at a local imitation).'),
  VONAGE_WHATSAPP_FROM: env.optionalString().meta({
    description:
      'Your WhatsApp business number (E.164, e.g. `+447700900000`): `whatsapp` deliveries then go through the Messages API (`message_type: text`) from it. Without it a WhatsApp delivery fails and identity falls back to its next channel.',
  }),
  VONAGE_APPLICATION_ID: env
    .optionalString()
    .pipe(z.uuid({ message: 'must be a Vonage application id (a UUID)' }).optional())
    .meta({
      description:
        'Vonage application id, with `VONAGE_PRIVATE_KEY`: the Messages API (WhatsApp) is called with the application\'s JWT, and its status webhooks can be asked for. Without them it is called with `VONAGE_API_KEY` and `VONAGE_API_SECRET` (Basic auth, which Vonage gives no status webhooks).',
    }),
  VONAGE_PRIVATE_KEY: env.optionalString().meta({
    secret: true,
    description: "The application's private key (PEM; `\\n` escapes allowed on one line), signing the Messages API JWT (RS256). Never logged.",
  }),
  VONAGE_MESSAGES_API_BASE_URL: apiBaseUrl('https://api.nexmo.com', 'Vonage Messages API base URL, for WhatsApp (tests point it at a local imitation).'),
  VONAGE_TIMEOUT_MS: answerTimeout('Vonage'),
});

/**
 * The SMS API's `messages[].status` codes ("Troubleshooting SMS" in Vonage's documentation)
 * and whether another provider may deliver the message (`transient`: fail over) or the
 * message itself is refused (no other provider is tried). Problems of this account or of
 * its configuration (credentials, credit, sender, signature) fail over: another provider has
 * its own. A code not listed fails over too.
 */
export const VONAGE_STATUS_CODES: Readonly<Record<string, { meaning: string; transient: boolean }>> = {
  '1': { meaning: 'Throttled', transient: true },
  '2': { meaning: 'Missing parameters', transient: true },
  '3': { meaning: 'Invalid parameters', transient: false },
  '4': { meaning: 'Invalid credentials', transient: true },
  '5': { meaning: 'Internal error', transient: true },
  '6': { meaning: 'Invalid message (e.g. unrecognised number prefix)', transient: false },
  '7': { meaning: 'Number barred', transient: false },
  '8': { meaning: 'Partner account barred', transient: true },
  '9': { meaning: 'Partner quota violation (not enough credit)', transient: true },
  '10': { meaning: 'Too many existing binds', transient: true },
  '11': { meaning: 'Account not enabled for HTTP', transient: true },
  '12': { meaning: 'Message too long', transient: false },
  '14': { meaning: 'Invalid signature', transient: true },
  '15': { meaning: 'Invalid sender address', transient: true },
  '22': { meaning: 'Invalid network code', transient: false },
  '23': { meaning: 'Invalid callback URL', transient: true },
  '29': { meaning: 'Non-whitelisted destination (trial account)', transient: true },
  '32': { meaning: 'Signature and API secret disallowed', transient: true },
  '33': { meaning: 'Number de-activated', transient: false },
};

/** Whether another provider may deliver a message Vonage answered with this status code. */
export function vonageStatusIsTransient(code: string): boolean {
  return VONAGE_STATUS_CODES[code]?.transient ?? true;
}

/** One entry of the SMS API's `messages` array. */
interface VonageMessage {
  status?: unknown;
  'message-id'?: unknown;
  'error-text'?: unknown;
}

/**
 * Vonage SMS API (the "legacy" SMS API, not the Messages API): `POST /sms/json`,
 * form-encoded, with `api_key` and `api_secret` (or a `sig` made with the signature secret).
 * Sent with the gateway's axios client, as Twilio is, rather than `@vonage/server-sdk`: one
 * form POST does not justify the SDK's tree of packages, and its host is set per client
 * instead of the one base URL variable every provider here has. Vonage answers HTTP 200
 * even when it refuses, with the reason in `messages[].status` (VONAGE_STATUS_CODES).
 * Text outside the GSM-7 alphabet is sent with `type=unicode`, or Vonage would garble it.
 * Channels: SMS through the SMS API; WhatsApp through the Messages API (vonage-messages.ts)
 * when `VONAGE_WHATSAPP_FROM` is set; no voice.
 */
export const vonageProvider = defineProvider({
  name: 'vonage',
  settingsSchema,
  secrets: ['VONAGE_API_SECRET', 'VONAGE_SIGNATURE_SECRET', 'VONAGE_PRIVATE_KEY'],
  rules(settings, { selected, problem, required, requiredEither }) {
    if (selected) {
      required('VONAGE_API_KEY');
      required('VONAGE_FROM');
      requiredEither('VONAGE_API_SECRET', 'VONAGE_SIGNATURE_SECRET');
    }
    if (settings.VONAGE_FROM !== undefined && !isNumberOrSenderId(settings.VONAGE_FROM)) {
      problem('VONAGE_FROM', 'must be an E.164 number like +447700900000 or an alphanumeric sender id of 1-11 letters, digits and spaces');
    }
    if (settings.VONAGE_WHATSAPP_FROM !== undefined && !PhoneNumberSchema.safeParse(settings.VONAGE_WHATSAPP_FROM).success) {
      problem('VONAGE_WHATSAPP_FROM', 'must be an E.164 number like +447700900000 (the WhatsApp business number)');
    }
    if ((settings.VONAGE_APPLICATION_ID === undefined) !== (settings.VONAGE_PRIVATE_KEY === undefined)) {
      problem(settings.VONAGE_APPLICATION_ID === undefined ? 'VONAGE_APPLICATION_ID' : 'VONAGE_PRIVATE_KEY', 'VONAGE_APPLICATION_ID and VONAGE_PRIVATE_KEY go together');
    }
    if (settings.VONAGE_PRIVATE_KEY !== undefined && parsePrivateKey(settings.VONAGE_PRIVATE_KEY) === undefined) {
      problem('VONAGE_PRIVATE_KEY', 'must be a PEM private key (the file the Vonage dashboard downloads for the application)');
    }
    if (settings.VONAGE_WHATSAPP_FROM !== undefined && settings.VONAGE_APPLICATION_ID === undefined && settings.VONAGE_API_SECRET === undefined) {
      problem('VONAGE_WHATSAPP_FROM', 'WhatsApp through the Messages API needs VONAGE_APPLICATION_ID and VONAGE_PRIVATE_KEY, or VONAGE_API_SECRET');
    }
  },
  create: (settings, deps) => createVonageSender(settings, deps),
});

function createVonageSender(settings: ProviderSettings<typeof settingsSchema>, deps: ProviderDependencies): SmsProvider {
  const { http, name, clock } = deps;
  const apiKey = settings.VONAGE_API_KEY ?? '';
  const apiSecret = settings.VONAGE_API_SECRET;
  const signatureSecret = settings.VONAGE_SIGNATURE_SECRET;
  const method = settings.VONAGE_SIGNATURE_METHOD;
  const url = `${settings.VONAGE_API_BASE_URL.replace(/\/+$/, '')}/sms/json`;
  const timeout = settings.VONAGE_TIMEOUT_MS;
  // Receipts need a secret to check them and a public URL to be sent to.
  const statusCallbackUrl = signatureSecret !== undefined ? deps.statusCallbackUrl : undefined;
  const secrets = [apiSecret, signatureSecret, settings.VONAGE_PRIVATE_KEY];
  const { fail, post: postTo } = restProvider({ name, label: 'Vonage', http, timeout, secrets });
  const messagesApi = restProvider({ name, label: 'Vonage Messages', http, timeout, secrets });
  const privateKey = settings.VONAGE_PRIVATE_KEY !== undefined ? parsePrivateKey(settings.VONAGE_PRIVATE_KEY) : undefined;
  const applicationId = settings.VONAGE_APPLICATION_ID;
  const messagesAuth: VonageMessagesAuth | undefined =
    applicationId !== undefined && privateKey !== undefined
      ? { kind: 'application', applicationId, privateKey }
      : apiSecret !== undefined
        ? { kind: 'basic', apiKey, apiSecret }
        : undefined;

  async function post(params: Record<string, string>): Promise<SendResult> {
    const form: Record<string, string> = { api_key: apiKey, ...params };
    if (apiSecret !== undefined) {
      form.api_secret = apiSecret;
    } else {
      form.timestamp = String(epochSeconds(clock));
      form.sig = vonageSignature(form, signatureSecret ?? '', method);
    }
    const response = await postTo(url, new URLSearchParams(form).toString(), {
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    });
    if (!isSuccess(response.status)) {
      // Not the SMS API's own answer (a gateway in front of it): the HTTP status decides.
      throw fail(`Vonage answered HTTP ${response.status}`, { status: response.status });
    }
    const messages = (response.data as { messages?: unknown } | undefined)?.messages;
    if (!Array.isArray(messages) || messages.length === 0) throw fail('Vonage answered without a messages array', { transient: true });
    // A long text is sent as several messages, each with its status; the first refused one speaks for all.
    const parts = messages as VonageMessage[];
    const refused = parts.find((part) => String(part.status) !== '0');
    if (refused !== undefined) {
      const code = String(refused.status);
      const reason = typeof refused['error-text'] === 'string' ? refused['error-text'] : (VONAGE_STATUS_CODES[code]?.meaning ?? 'no error text');
      throw fail(`Vonage status ${code}: ${reason}`, { code, transient: vonageStatusIsTransient(code) });
    }
    const id = parts[0]?.['message-id'];
    return typeof id === 'string' ? { providerMessageId: id } : {};
  }

  const provider: SmsProvider = {
    name,
    async send(message) {
      if (message.channel === 'whatsapp' && settings.VONAGE_WHATSAPP_FROM !== undefined && messagesAuth !== undefined) {
        return sendVonageWhatsApp(message, {
          api: messagesApi,
          clock,
          baseUrl: settings.VONAGE_MESSAGES_API_BASE_URL,
          auth: messagesAuth,
          from: settings.VONAGE_WHATSAPP_FROM,
          // Vonage sends Messages status webhooks only to JWT (application) callers.
          ...(messagesAuth.kind === 'application' && statusCallbackUrl ? { statusCallbackUrl } : {}),
        });
      }
      if (message.channel === 'whatsapp') throw fail('Vonage WhatsApp needs VONAGE_WHATSAPP_FROM (sent through the Messages API)');
      if (message.channel !== 'sms') throw fail(`Vonage sends SMS and WhatsApp only, not ${message.channel}`);
      const params: Record<string, string> = {
        from: withoutPlus(message.routeSender ?? settings.VONAGE_FROM ?? ''),
        to: withoutPlus(message.recipient),
        text: message.body,
        'client-ref': message.id,
      };
      if (!isGsm7(message.body)) params.type = 'unicode';
      if (statusCallbackUrl) {
        params['status-report-req'] = 'true';
        params.callback = statusCallbackUrl(message.id);
      }
      return post(params);
    },
  };
  if (signatureSecret !== undefined) {
    provider.readReceipt = (request) => {
      const nowSeconds = epochSeconds(clock);
      if (isMessagesWebhook(request)) {
        return readVonageMessagesWebhook(request, {
          signatureSecret,
          apiKey,
          nowSeconds,
          messageId: messageIdInUrl(request.url),
          ...(applicationId !== undefined ? { applicationId } : {}),
        });
      }
      return readVonageReceipt(request, { apiKey, secret: signatureSecret, method, nowSeconds });
    };
  }
  return provider;
}

/** The receipt's parameters: Vonage sends them as a form (POST) or as JSON (POST-JSON), as the dashboard says. */
function receiptParams(request: ReceiptRequest): Record<string, string> | undefined {
  const text = request.rawBody.toString('utf8');
  const type = String(request.headers['content-type'] ?? '');
  if (!type.includes('json')) return Object.fromEntries(new URLSearchParams(text));
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  return Object.fromEntries(Object.entries(body).map(([key, value]) => [key, typeof value === 'string' ? value : JSON.stringify(value)]));
}

/**
 * A Vonage SMS delivery receipt (DLR), signed with the account's signature secret. The
 * signature covers the parameters, not the URL, so a receipt is also held to the message
 * the URL names: its `client-ref` (sent as the gateway's message id) must be that id, and
 * its `messageId` the one Vonage answered for the message (the message status service checks
 * the providerMessageId). Its signed `timestamp` must
 * be within VONAGE_RECEIPT_TOLERANCE_SECONDS of now, so a captured receipt cannot be replayed later.
 */
function readVonageReceipt(
  request: ReceiptRequest,
  check: { apiKey: string; secret: string; method: VonageSignatureMethod; nowSeconds: number },
): ReceiptReading {
  const params = receiptParams(request);
  const presented = params?.sig;
  if (params === undefined || presented === undefined || presented === '') return { kind: 'unsigned' };
  if (!secretsMatch(presented.toLowerCase(), vonageSignature(params, check.secret, check.method))) return { kind: 'bad_signature' };
  const timestamp = Number(params.timestamp);
  if (!Number.isInteger(timestamp) || Math.abs(check.nowSeconds - timestamp) > VONAGE_RECEIPT_TOLERANCE_SECONDS) return { kind: 'bad_signature' };
  if (params['api-key'] !== undefined && params['api-key'] !== check.apiKey) return { kind: 'invalid', description: 'The receipt is for another Vonage API key' };

  const clientRef = params['client-ref'];
  if (clientRef !== undefined && clientRef !== messageIdInUrl(request.url)) return { kind: 'invalid', description: 'The receipt is for another message (client-ref)' };

  const messageId = params.messageId;
  const status = statusFromVonage(params.status ?? '');
  if (!messageId || status === undefined) return { kind: 'invalid', description: `A Vonage delivery receipt needs messageId and a known status (got ${params.status ?? 'none'})` };
  const errorCode = params['err-code'];
  return {
    kind: 'receipt',
    receipt: {
      status,
      providerMessageId: messageId,
      ...(errorCode !== undefined && errorCode !== '0' && status !== 'delivered' ? { errorCode } : {}),
    },
  };
}

/**
 * The DLR `status` values in the gateway's terms: `accepted` and `buffered` are at the
 * carrier (sent); `expired` and `failed` reached no handset (undelivered); `rejected` never
 * went out (failed); `unknown` tells nothing new (accepted, which never moves a status).
 */
export function statusFromVonage(value: string): MessageStatusValue | undefined {
  switch (value) {
    case 'accepted':
    case 'buffered':
      return 'sent';
    case 'delivered':
      return 'delivered';
    case 'expired':
    case 'failed':
      return 'undelivered';
    case 'rejected':
      return 'failed';
    case 'unknown':
      return 'accepted';
    default:
      return undefined;
  }
}
