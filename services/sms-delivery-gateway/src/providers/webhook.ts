import { WebhookReceiptSchema, type WebhookDelivery } from '@smsauth/contracts';
import { env } from '@smsauth/service-kit';
import { z } from 'zod';
import {
  defineProvider,
  describeTransportFailure,
  timeoutMs,
  type ProviderDependencies,
  type ProviderSettings,
} from './provider';
import { secretsMatch } from '../domain/constant-time';
import { webhookSignature } from '../domain/receipt-signatures';
import { ProviderError, type ReceiptReading, type ReceiptRequest, type SmsProvider } from '../domain/sms-provider';

const optionalUrl = () => z.preprocess((value) => (value === '' ? undefined : value), env.url().optional());

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** `WEBHOOK_HEADERS`: a JSON object of header name -> string value. */
const webhookHeaders = () =>
  env.optionalString().transform((value, ctx): Record<string, string> => {
    if (value === undefined) return {};
    let parsed: unknown;
    try {
      parsed = JSON.parse(value);
    } catch {
      ctx.addIssue({ code: 'custom', message: 'must be a JSON object of header names to string values, e.g. {"X-Api-Key":"..."}' });
      return z.NEVER;
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      ctx.addIssue({ code: 'custom', message: 'must be a JSON object of header names to string values' });
      return z.NEVER;
    }
    for (const [name, headerValue] of Object.entries(parsed)) {
      if (!HEADER_NAME.test(name)) ctx.addIssue({ code: 'custom', message: `"${name}" is not a valid header name` });
      if (typeof headerValue !== 'string') ctx.addIssue({ code: 'custom', message: `value of "${name}" must be a string` });
    }
    return parsed as Record<string, string>;
  });

/** The webhook provider's variables. */
const settingsSchema = z.object({
  WEBHOOK_URL: optionalUrl().meta({
    description: 'http(s) URL the `webhook` provider POSTs each message to; required for `webhook`. Redirects are not followed.',
  }),
  WEBHOOK_HEADERS: webhookHeaders().meta({
    secret: true,
    description: 'JSON object of extra headers for the webhook, e.g. `{"X-Api-Key":"..."}`; values must be strings. Never logged.',
  }),
  WEBHOOK_TIMEOUT_MS: timeoutMs(10_000).meta({ description: 'Time the webhook has to answer (100..120000).' }),
  /** Key of the receipts' HMAC-SHA256 signature; receipts are off without it. */
  WEBHOOK_CALLBACK_SECRET: env
    .optionalString()
    .pipe(z.string().min(32, { message: 'must be at least 32 characters' }).optional())
    .meta({
      secret: true,
      description:
        "At least 32 characters: key of the HMAC-SHA256 `Webhook-Signature` on the webhook's delivery receipts; with `GATEWAY_PUBLIC_URL`, turns them on. Never logged.",
    }),
});

/**
 * POSTs the message as JSON (WebhookDeliverySchema) to the operator's `WEBHOOK_URL`, with
 * `WEBHOOK_HEADERS`; any 2xx is success. Redirects are not followed, so a message never
 * lands somewhere the operator did not configure.
 */
export const webhookProvider = defineProvider({
  name: 'webhook',
  settingsSchema,
  // Header values often carry the receiver's credentials.
  secrets: ['WEBHOOK_HEADERS', 'WEBHOOK_CALLBACK_SECRET'],
  rules(_settings, { required }) {
    required('WEBHOOK_URL');
  },
  create: (settings, deps) => createWebhookSender(settings, deps),
});

function createWebhookSender(settings: ProviderSettings<typeof settingsSchema>, deps: ProviderDependencies): SmsProvider {
  const { http, name } = deps;
  const url = settings.WEBHOOK_URL ?? '';
  const timeout = settings.WEBHOOK_TIMEOUT_MS;
  const secret = settings.WEBHOOK_CALLBACK_SECRET;
  // Receipts need both a secret to check them and a public URL to be sent to.
  const statusCallbackUrl = secret !== undefined ? deps.statusCallbackUrl : undefined;

  const provider: SmsProvider = {
    name,
    async send(message) {
      const payload: WebhookDelivery = {
        id: message.id,
        recipient: message.recipient,
        body: message.body,
        sender: message.routeSender ?? message.sender ?? null,
        ...(message.req ? { req: message.req } : {}),
        channel: message.channel,
        ...(message.code !== undefined ? { code: message.code } : {}),
        ...(message.language !== undefined ? { language: message.language } : {}),
        ...(statusCallbackUrl ? { status_callback: statusCallbackUrl(message.id) } : {}),
      };
      let response;
      try {
        response = await http.post(url, payload, {
          headers: {
            ...settings.WEBHOOK_HEADERS,
            'content-type': 'application/json',
            ...(message.idempotencyKey ? { 'idempotency-key': message.idempotencyKey } : {}),
          },
          timeout,
          maxRedirects: 0,
          // The answer is not used; do not buffer a large one.
          maxContentLength: 64 * 1024,
          responseType: 'text',
          validateStatus: () => true,
        });
      } catch (err) {
        // Header values (credentials) and the URL's query are never part of the description.
        throw new ProviderError(name, `webhook request failed: ${describeTransportFailure(err, timeout)}`);
      }
      if (response.status < 200 || response.status > 299) {
        throw new ProviderError(name, `webhook answered HTTP ${response.status}`, { status: response.status });
      }
      return {};
    },
  };
  if (secret !== undefined) provider.readReceipt = (request) => readWebhookReceipt(request, secret);
  return provider;
}

/** A receipt from the operator's receiver: JSON (WebhookReceiptSchema), `Webhook-Signature: sha256=<hex>`. */
function readWebhookReceipt(request: ReceiptRequest, secret: string): ReceiptReading {
  const presented = request.headers['webhook-signature'];
  if (typeof presented !== 'string' || presented === '') return { kind: 'unsigned' };
  if (!secretsMatch(presented, webhookSignature(secret, request.rawBody))) return { kind: 'bad_signature' };
  let body: unknown;
  try {
    body = JSON.parse(request.rawBody.toString('utf8'));
  } catch {
    return { kind: 'invalid', description: 'The receipt body must be JSON' };
  }
  const parsed = WebhookReceiptSchema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { kind: 'invalid', description: `Receipt ${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'invalid'}` };
  }
  const { status, error_code: errorCode, provider_message_id: providerMessageId } = parsed.data;
  return {
    kind: 'receipt',
    receipt: {
      status,
      ...(providerMessageId !== undefined ? { providerMessageId } : {}),
      ...(errorCode !== undefined ? { errorCode: String(errorCode) } : {}),
    },
  };
}
