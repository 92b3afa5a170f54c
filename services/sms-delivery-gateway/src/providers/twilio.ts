import { PhoneNumberSchema, TwilioStatusCallbackSchema, type MessageStatusValue } from '@smsauth/contracts';
import { env } from '@smsauth/service-kit';
import { z } from 'zod';
import { defineProvider, type ProviderDependencies, type ProviderSettings } from './provider';
import { answerTimeout, bodyObject, isSuccess, restProvider } from './rest-provider';
import { secretsMatch } from '../domain/constant-time';
import { isNumberOrSenderId } from '../domain/sender-id';
import { twilioSignature } from '../domain/receipt-signatures';
import type { ReceiptReading, ReceiptRequest, SendResult, SmsProvider } from '../domain/sms-provider';

const ACCOUNT_SID = /^AC[0-9a-fA-F]{32}$/;
const MESSAGING_SERVICE_SID = /^MG[0-9a-fA-F]{32}$/;
const CONTENT_SID = /^HX[0-9a-fA-F]{32}$/;

/** The twilio provider's variables. */
const settingsSchema = z.object({
  TWILIO_ACCOUNT_SID: env
    .optionalString()
    .pipe(z.string().regex(ACCOUNT_SID, { message: 'must be a Twilio Account SID (AC followed by 32 hex digits)' }).optional())
    .meta({ description: 'Twilio Account SID (`AC` + 32 hex digits); required for `twilio`.' }),
  TWILIO_AUTH_TOKEN: env
    .optionalString()
    .meta({ secret: true, description: 'Twilio auth token (HTTP basic auth password); required for `twilio`. Never logged or returned.' }),
  TWILIO_FROM: env.optionalString().meta({
    description:
      'Sender: your Twilio number (E.164) or alphanumeric sender id. `twilio` needs this or `TWILIO_MESSAGING_SERVICE_SID`. The request\'s `sender` is not used: Twilio only sends from numbers the account owns.',
  }),
  TWILIO_MESSAGING_SERVICE_SID: env
    .optionalString()
    .pipe(z.string().regex(MESSAGING_SERVICE_SID, { message: 'must be a Messaging Service SID (MG followed by 32 hex digits)' }).optional())
    .meta({
      description: 'Messaging Service SID (`MG` + 32 hex digits), sent as `MessagingServiceSid` (with `From` too when `TWILIO_FROM` is set).',
    }),
  TWILIO_WHATSAPP_FROM: env
    .optionalString()
    .pipe(PhoneNumberSchema.optional())
    .meta({
      description:
        'Your WhatsApp sender (E.164), sent as `From=whatsapp:<number>` for `whatsapp` deliveries. Without it a WhatsApp delivery goes through `TWILIO_MESSAGING_SERVICE_SID` (which then needs a WhatsApp sender) or fails, and identity falls back to its next channel.',
    }),
  TWILIO_WHATSAPP_CONTENT_SID: env
    .optionalString()
    .pipe(z.string().regex(CONTENT_SID, { message: 'must be a Content SID (HX followed by 32 hex digits)' }).optional())
    .meta({
      description:
        'Content template SID (`HX` + 32 hex digits) of an approved WhatsApp authentication template: WhatsApp deliveries send `ContentSid` and `ContentVariables` `{"1": "<code>"}` instead of a free-form `Body` (WhatsApp only lets a business start a conversation with an approved template).',
    }),
  TWILIO_VOICE_FROM: env
    .optionalString()
    .pipe(PhoneNumberSchema.optional())
    .meta({
      description:
        'Caller id (E.164, a voice-capable number of the account) for `voice` deliveries; `TWILIO_FROM` when unset and it is a number. The call reads the message with TwiML `<Say language>`.',
    }),
  TWILIO_API_BASE_URL: env
    .url()
    .default('https://api.twilio.com')
    .meta({ description: 'Twilio REST base URL (tests, and the README\'s Twilio recipe, point it at a local imitation).' }),
  TWILIO_TIMEOUT_MS: answerTimeout('Twilio'),
});

/** The fields of a Twilio REST error body the gateway uses. */
interface TwilioErrorBody {
  code?: unknown;
  message?: unknown;
}

/**
 * Twilio Programmable Messaging: `POST /2010-04-01/Accounts/{sid}/Messages.json`,
 * form-encoded, HTTP basic auth. The sender is the route's `sender` or the operator's
 * `TWILIO_FROM` and/or Messaging Service, not the request's `sender`: Twilio only sends from
 * numbers the account owns. With a public URL it asks for status callbacks, which
 * readReceipt verifies (X-Twilio-Signature).
 */
export const twilioProvider = defineProvider({
  name: 'twilio',
  settingsSchema,
  secrets: ['TWILIO_AUTH_TOKEN'],
  rules(settings, { selected, problem, required, requiredEither }) {
    if (selected) {
      required('TWILIO_ACCOUNT_SID');
      required('TWILIO_AUTH_TOKEN');
      requiredEither('TWILIO_FROM', 'TWILIO_MESSAGING_SERVICE_SID');
    }
    if (settings.TWILIO_FROM !== undefined && !isNumberOrSenderId(settings.TWILIO_FROM)) {
      problem('TWILIO_FROM', 'must be an E.164 number like +14155550123 or an alphanumeric sender id of 1-11 characters');
    }
  },
  create: (settings, deps) => createTwilioSender(settings, deps),
});

function createTwilioSender(settings: ProviderSettings<typeof settingsSchema>, deps: ProviderDependencies): SmsProvider {
  const { http, name, statusCallbackUrl } = deps;
  const accountSid = settings.TWILIO_ACCOUNT_SID ?? '';
  const authToken = settings.TWILIO_AUTH_TOKEN ?? '';
  const accountUrl = `${settings.TWILIO_API_BASE_URL.replace(/\/+$/, '')}/2010-04-01/Accounts/${encodeURIComponent(accountSid)}`;
  const { fail, post: postTo } = restProvider({ name, label: 'Twilio', http, timeout: settings.TWILIO_TIMEOUT_MS, secrets: [authToken] });

  /** One POST to a Twilio REST resource; the sid it answers, or a ProviderError. */
  async function post(resource: 'Messages' | 'Calls', form: URLSearchParams): Promise<SendResult> {
    const response = await postTo(`${accountUrl}/${resource}.json`, form.toString(), {
      auth: { username: accountSid, password: authToken },
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    });
    if (isSuccess(response.status)) {
      const sid = (response.data as { sid?: unknown } | undefined)?.sid;
      return typeof sid === 'string' ? { providerMessageId: sid } : {};
    }
    const body = bodyObject<TwilioErrorBody>(response.data);
    const code = typeof body.code === 'number' || typeof body.code === 'string' ? body.code : undefined;
    const reason = typeof body.message === 'string' ? body.message : 'no error message';
    const description =
      code !== undefined
        ? `Twilio error ${code} (HTTP ${response.status}): ${reason}`
        : `Twilio answered HTTP ${response.status}: ${reason}`;
    // A refused login (HTTP 401, Twilio error 20003) is this account's problem, not the
    // message's: another provider has its own credentials, so it fails over as Vonage's
    // status 4 and Telnyx's 10009 do.
    const authenticationFailed = response.status === 401 || String(code) === '20003';
    throw fail(description, { status: response.status, ...(code !== undefined ? { code } : {}), ...(authenticationFailed ? { transient: true } : {}) });
  }

  return {
    name,
    async send(message) {
      if (message.channel === 'voice') {
        // A call: Twilio dials, then speaks the TwiML given inline (no URL of ours to fetch).
        const caller = settings.TWILIO_VOICE_FROM ?? (settings.TWILIO_FROM && PhoneNumberSchema.safeParse(settings.TWILIO_FROM).success ? settings.TWILIO_FROM : undefined);
        if (!caller) throw fail('Twilio voice needs a caller id: set TWILIO_VOICE_FROM (or TWILIO_FROM to a number)');
        const form = new URLSearchParams({ To: message.recipient, From: caller, Twiml: sayTwiml(message.body, message.language) });
        if (statusCallbackUrl) form.set('StatusCallback', statusCallbackUrl(message.id));
        return post('Calls', form);
      }
      if (message.channel === 'whatsapp') {
        const from = settings.TWILIO_WHATSAPP_FROM;
        if (!from && !settings.TWILIO_MESSAGING_SERVICE_SID) {
          throw fail('Twilio WhatsApp needs a sender: set TWILIO_WHATSAPP_FROM or TWILIO_MESSAGING_SERVICE_SID');
        }
        const form = new URLSearchParams({ To: `whatsapp:${message.recipient}` });
        if (settings.TWILIO_WHATSAPP_CONTENT_SID && message.code !== undefined) {
          form.set('ContentSid', settings.TWILIO_WHATSAPP_CONTENT_SID);
          form.set('ContentVariables', JSON.stringify({ 1: message.code }));
        } else {
          form.set('Body', message.body);
        }
        if (settings.TWILIO_MESSAGING_SERVICE_SID) form.set('MessagingServiceSid', settings.TWILIO_MESSAGING_SERVICE_SID);
        if (from) form.set('From', `whatsapp:${from}`);
        if (statusCallbackUrl) form.set('StatusCallback', statusCallbackUrl(message.id));
        return post('Messages', form);
      }
      const form = new URLSearchParams({ To: message.recipient, Body: message.body });
      if (settings.TWILIO_MESSAGING_SERVICE_SID) form.set('MessagingServiceSid', settings.TWILIO_MESSAGING_SERVICE_SID);
      // Both may be set: Twilio then sends from From and applies the service's features.
      const from = message.routeSender ?? settings.TWILIO_FROM;
      if (from) form.set('From', from);
      if (statusCallbackUrl) form.set('StatusCallback', statusCallbackUrl(message.id));
      return post('Messages', form);
    },
    readReceipt: (request) => readTwilioReceipt(request, authToken),
  };
}

/** TwiML that speaks `text` once (the text itself says the code twice), in `language` when given. */
export function sayTwiml(text: string, language: string | undefined): string {
  const lang = language !== undefined ? ` language="${escapeXml(language)}"` : '';
  return `<?xml version="1.0" encoding="UTF-8"?><Response><Say${lang}>${escapeXml(text)}</Say></Response>`;
}

function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c]!);
}

/** A Twilio status callback: form-encoded, signed over the URL and the sorted parameters. */
function readTwilioReceipt(request: ReceiptRequest, authToken: string): ReceiptReading {
  const presented = request.headers['x-twilio-signature'];
  if (typeof presented !== 'string' || presented === '') return { kind: 'unsigned' };
  const params = [...new URLSearchParams(request.rawBody.toString('utf8'))];
  if (!secretsMatch(presented, twilioSignature(authToken, request.url, params))) return { kind: 'bad_signature' };

  const fields = Object.fromEntries(params);
  if (fields.CallSid !== undefined && fields.MessageSid === undefined) return readTwilioCallReceipt(fields);
  const parsed = TwilioStatusCallbackSchema.safeParse(fields);
  if (!parsed.success) return { kind: 'invalid', description: 'A Twilio status callback needs MessageSid and MessageStatus' };
  const status = statusFromTwilio(parsed.data.MessageStatus);
  if (status === undefined) return { kind: 'invalid', description: `Unknown Twilio MessageStatus ${parsed.data.MessageStatus}` };
  return {
    kind: 'receipt',
    receipt: {
      status,
      providerMessageId: parsed.data.MessageSid,
      ...(parsed.data.ErrorCode ? { errorCode: parsed.data.ErrorCode } : {}),
    },
  };
}

/**
 * Twilio's MessageStatus values in the gateway's terms: queued/sending/... are still
 * `accepted`, `read` (RCS/WhatsApp) implies delivered, `canceled` never went out.
 */
function statusFromTwilio(value: string): MessageStatusValue | undefined {
  switch (value) {
    case 'accepted':
    case 'scheduled':
    case 'queued':
    case 'sending':
      return 'accepted';
    case 'sent':
      return 'sent';
    case 'delivered':
    case 'read':
      return 'delivered';
    case 'undelivered':
      return 'undelivered';
    case 'failed':
    case 'canceled':
      return 'failed';
    default:
      return undefined;
  }
}

/** A call's status callback (CallSid, CallStatus): answered and ended is delivered; busy or unanswered is undelivered. */
function readTwilioCallReceipt(fields: Record<string, string>): ReceiptReading {
  const status = statusFromTwilioCall(fields.CallStatus ?? '');
  if (!fields.CallSid || status === undefined) return { kind: 'invalid', description: `Unknown Twilio CallStatus ${fields.CallStatus ?? '(none)'}` };
  return {
    kind: 'receipt',
    receipt: { status, providerMessageId: fields.CallSid, ...(fields.ErrorCode ? { errorCode: fields.ErrorCode } : {}) },
  };
}

function statusFromTwilioCall(value: string): MessageStatusValue | undefined {
  switch (value) {
    case 'queued':
    case 'initiated':
      return 'accepted';
    case 'ringing':
    case 'in-progress':
      return 'sent';
    case 'completed':
      return 'delivered';
    case 'busy':
    case 'no-answer':
      return 'undelivered';
    case 'failed':
    case 'canceled':
      return 'failed';
    default:
      return undefined;
  }
}
