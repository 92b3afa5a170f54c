import type { MessageStatusValue } from '@smsauth/contracts';
import { env } from '@smsauth/service-kit';
import { z } from 'zod';
import { defineProvider, type ProviderDependencies, type ProviderSettings } from './provider';
import { answerTimeout, apiBaseUrl, bodyObject, decidedTransient, epochSeconds, isSuccess, receiptHeader, receiptJson, restProvider } from './rest-provider';
import { secretsMatch } from '../domain/constant-time';
import { birdSignature } from '../domain/receipt-signatures';
import type { ReceiptReading, ReceiptRequest, SmsProvider } from '../domain/sms-provider';

/** How far a webhook's `messagebird-request-timestamp` may be from now: older ones are replays. */
export const BIRD_RECEIPT_TOLERANCE_SECONDS = 300;

const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const uuid = (what: string) => env.optionalString().pipe(z.string().regex(UUID, { message: `must be a Bird ${what} id (a UUID)` }).optional());

/** The bird provider's variables. */
const settingsSchema = z.object({
  BIRD_ACCESS_KEY: env.optionalString().meta({
    secret: true,
    description: 'Bird access key (organization settings, Access keys; its role must allow sending on the channel), sent as `Authorization: AccessKey <key>`; required for `bird`. Never logged or returned.',
  }),
  BIRD_WORKSPACE_ID: uuid('workspace').meta({ description: 'Workspace id (UUID); required for `bird`.' }),
  BIRD_CHANNEL_ID: uuid('channel').meta({
    description: "The SMS channel's id (UUID); required for `bird`. The channel is the sender: its number or alphanumeric sender id, set up in Bird. One channel per sender.",
  }),
  BIRD_SIGNING_KEY: env.optionalString().meta({
    secret: true,
    description:
      'The signing key of the webhook subscription (`sms.outbound` events, URL `{GATEWAY_PUBLIC_URL}/receipts/bird`). With `GATEWAY_PUBLIC_URL`, turns delivery receipts on: only events with a valid `messagebird-signature` and a `messagebird-request-timestamp` within 5 minutes are accepted. Never logged.',
  }),
  BIRD_API_BASE_URL: apiBaseUrl('https://api.bird.com', 'Bird API base URL (tests point it at a local imitation).'),
  BIRD_TIMEOUT_MS: answerTimeout('Bird'),
});

/**
 * Bird's API error codes (the `code` of an error answer) and whether another provider may
 * deliver the message (`transient`: fail over) or the message itself is refused. This account's
 * key, permissions, workspace, channel and destination list fail over: another provider has its
 * own. A payload Bird refuses (the receiver's number, the text) is refused. A code not listed is
 * decided by the HTTP status (5xx, 408 and 429 fail over; other 4xx refuse).
 */
export const BIRD_ERROR_CODES: Readonly<Record<string, { meaning: string; transient: boolean }>> = {
  Unauthorized: { meaning: 'The access key is not valid', transient: true },
  Forbidden: { meaning: "The access key's role may not send on this channel", transient: true },
  NotFound: { meaning: 'Workspace or channel not found', transient: true },
  TooManyRequests: { meaning: 'Rate limited', transient: true },
  DestinationBlocked: { meaning: "The workspace's destination list blocks the country", transient: true },
  ChannelNotActive: { meaning: 'The channel is not active', transient: true },
  InternalServerError: { meaning: 'Bird internal error', transient: true },
  InvalidPayload: { meaning: 'The message was refused as invalid (receiver or text)', transient: false },
  InvalidReceiver: { meaning: 'The receiver is not a valid phone number', transient: false },
};

/** Whether another provider may deliver a message Bird refused with this code; undefined when the code is not in the table. */
export function birdErrorIsTransient(code: string): boolean | undefined {
  return BIRD_ERROR_CODES[code]?.transient;
}

/**
 * Bird Channels API: `POST /workspaces/{workspace}/channels/{channel}/messages`, JSON,
 * `Authorization: AccessKey <key>`, one phone number receiver, a text body and the gateway's
 * message id as `reference` (its webhooks carry it back). Chosen over the legacy MessageBird
 * REST API (rest.messagebird.com), which Bird keeps only for accounts made before Bird: the
 * Channels API is the documented one for every account, with signed webhooks. Sent with the
 * gateway's axios client: Bird publishes no maintained Node SDK for it. The channel is the
 * sender (a route's `sender` cannot be applied); Bird picks GSM-7 or UCS-2 from the UTF-8 text.
 * Channels: SMS only here (a WhatsApp channel needs templates, not used).
 */
export const birdProvider = defineProvider({
  name: 'bird',
  settingsSchema,
  secrets: ['BIRD_ACCESS_KEY', 'BIRD_SIGNING_KEY'],
  rules(_settings, { selected, required }) {
    if (selected) {
      required('BIRD_ACCESS_KEY');
      required('BIRD_WORKSPACE_ID');
      required('BIRD_CHANNEL_ID');
    }
  },
  create: (settings, deps) => createBirdSender(settings, deps),
});

interface BirdError {
  code?: unknown;
  message?: unknown;
}

function createBirdSender(settings: ProviderSettings<typeof settingsSchema>, deps: ProviderDependencies): SmsProvider {
  const { http, name, clock } = deps;
  const accessKey = settings.BIRD_ACCESS_KEY ?? '';
  const url = `${settings.BIRD_API_BASE_URL.replace(/\/+$/, '')}/workspaces/${settings.BIRD_WORKSPACE_ID ?? ''}/channels/${settings.BIRD_CHANNEL_ID ?? ''}/messages`;
  const { fail, post } = restProvider({ name, label: 'Bird', http, timeout: settings.BIRD_TIMEOUT_MS, secrets: [accessKey, settings.BIRD_SIGNING_KEY] });

  const provider: SmsProvider = {
    name,
    async send(message) {
      if (message.channel !== 'sms') throw fail(`Bird sends SMS only here, not ${message.channel}`);
      // The channel is Bird's sender; pretending to honour another would send from the wrong one.
      if (message.routeSender !== undefined) throw fail('Bird sends from its channel; a route sender needs its own bird instance (BIRD_CHANNEL_ID)', { transient: true });
      const body = {
        receiver: { contacts: [{ identifierKey: 'phonenumber', identifierValue: message.recipient }] },
        body: { type: 'text', text: { text: message.body } },
        reference: message.id,
      };
      const response = await post(url, body, {
        headers: { authorization: `AccessKey ${accessKey}`, 'content-type': 'application/json', accept: 'application/json' },
      });
      if (isSuccess(response.status)) {
        const id = (response.data as { id?: unknown } | undefined)?.id;
        return typeof id === 'string' ? { providerMessageId: id } : {};
      }
      const error = bodyObject<BirdError>(response.data);
      const code = typeof error.code === 'string' && error.code !== '' ? error.code : undefined;
      if (code === undefined) throw fail(`Bird answered HTTP ${response.status}`, { status: response.status });
      const reason = typeof error.message === 'string' && error.message !== '' ? error.message : 'no error message';
      const transient = birdErrorIsTransient(code);
      throw fail(`Bird error ${code} (HTTP ${response.status}): ${reason}`, { status: response.status, code, ...decidedTransient(transient) });
    },
  };
  const signingKey = settings.BIRD_SIGNING_KEY;
  if (signingKey !== undefined) provider.readReceipt = (request) => readBirdEvent(request, signingKey, epochSeconds(clock));
  return provider;
}


interface BirdMessageEvent {
  event?: unknown;
  payload?: { id?: unknown; reference?: unknown; status?: unknown; direction?: unknown; failure?: { code?: unknown } | null; reason?: unknown };
}

/**
 * A Bird `sms.outbound` webhook, signed over its timestamp, the URL it was sent to and the
 * body's digest; the timestamp must be within BIRD_RECEIPT_TOLERANCE_SECONDS of now. The event
 * names its message by `payload.reference` (the gateway's id) and `payload.id` (Bird's).
 */
function readBirdEvent(request: ReceiptRequest, signingKey: string, nowSeconds: number): ReceiptReading {
  const signature = receiptHeader(request, 'messagebird-signature');
  const timestamp = receiptHeader(request, 'messagebird-request-timestamp');
  if (!signature || !timestamp) return { kind: 'unsigned' };
  if (!/^\d{1,12}$/.test(timestamp) || !secretsMatch(signature, birdSignature(signingKey, timestamp, request.url, request.rawBody))) return { kind: 'bad_signature' };
  if (Math.abs(nowSeconds - Number(timestamp)) > BIRD_RECEIPT_TOLERANCE_SECONDS) return { kind: 'bad_signature' };

  const json = receiptJson(request);
  if (json === undefined) return { kind: 'invalid', description: 'A Bird webhook body must be JSON' };
  const event = json.value as BirdMessageEvent | null;
  const payload = typeof event === 'object' && event !== null ? event.payload : undefined;
  if (typeof event?.event === 'string' && event.event !== 'sms.outbound') return { kind: 'acknowledged', description: `event ${event.event} moves no message status` };
  const status = typeof payload?.status === 'string' ? statusFromBird(payload.status) : undefined;
  // The subscription may cover messages others sent on the channel: theirs are not refused (Bird would resend them), only not recorded.
  if (typeof payload?.reference !== 'string' || payload.reference === '') return { kind: 'acknowledged', description: 'event of a message not sent by this gateway (no payload.reference)' };
  if (typeof payload.id !== 'string' || status === undefined) {
    return { kind: 'invalid', description: `A Bird sms.outbound event needs payload.id and a known payload.status (got ${String(payload.status ?? 'none')})` };
  }
  const failureCode = payload.failure?.code;
  return {
    kind: 'receipt',
    receipt: {
      status,
      messageId: payload.reference,
      providerMessageId: payload.id,
      ...((typeof failureCode === 'string' || typeof failureCode === 'number') && status !== 'delivered' ? { errorCode: String(failureCode) } : {}),
    },
  };
}

/**
 * A message `status` of Bird's lifecycle events ("Message status and interactions") in the
 * gateway's terms: `accepted`, `processing` and `scheduled` are still accepted; `sent` is at the
 * carrier; `delivered`; `delivery_failed` reached no handset (undelivered); `sending_failed`,
 * `rejected` and `skipped` never went out (failed).
 */
export function statusFromBird(value: string): MessageStatusValue | undefined {
  switch (value) {
    case 'accepted':
    case 'processing':
    case 'scheduled':
      return 'accepted';
    case 'sent':
      return 'sent';
    case 'delivered':
      return 'delivered';
    case 'delivery_failed':
      return 'undelivered';
    case 'sending_failed':
    case 'rejected':
    case 'skipped':
      return 'failed';
    default:
      return undefined;
  }
}
