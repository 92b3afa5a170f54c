import type { WebhookDelivery } from '@smsauth/contracts';
import { ProviderError, describeTransportFailure, type ProviderFactory } from './provider';

/**
 * POSTs the message as JSON (WebhookDeliverySchema) to the operator's `WEBHOOK_URL`, with
 * `WEBHOOK_HEADERS`; any 2xx is success. Redirects are not followed, so a message never
 * lands somewhere the operator did not configure.
 */
export const createWebhookProvider: ProviderFactory = ({ config, http }) => {
  const url = config.WEBHOOK_URL ?? '';
  const timeout = config.WEBHOOK_TIMEOUT_MS;

  return {
    name: 'webhook',
    async send(message) {
      const payload: WebhookDelivery = {
        id: message.id,
        recipient: message.recipient,
        body: message.body,
        sender: message.sender ?? null,
        ...(message.req ? { req: message.req } : {}),
      };
      let response;
      try {
        response = await http.post(url, payload, {
          headers: {
            ...config.WEBHOOK_HEADERS,
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
        throw new ProviderError('webhook', `webhook request failed: ${describeTransportFailure(err, timeout)}`);
      }
      if (response.status < 200 || response.status > 299) {
        throw new ProviderError('webhook', `webhook answered HTTP ${response.status}`, { status: response.status });
      }
      return {};
    },
  };
};
