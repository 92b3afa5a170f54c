import type { IncomingHttpHeaders } from 'node:http';
import { answer, RecordingServer } from '@smsauth/test-support';

export interface ReceivedWebhook {
  headers: IncomingHttpHeaders;
  body: unknown;
}

export interface WebhookReceiver {
  url: string;
  requests: ReceivedWebhook[];
  /** Status to answer from now on (200 by default). */
  respondWith(status: number): void;
  /** Hold answers until release() (for concurrency tests). */
  hold(): void;
  release(): void;
  /** Resolves once `count` requests have arrived. */
  waitForRequests(count: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * The shared recording server (@smsauth/test-support) standing in for an operator's webhook:
 * answers `ok` (or `failed` from 300 on) as text, and gives the JSON bodies it received parsed.
 */
export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const answerWith = (status: number) => answer(status, { 'content-type': 'text/plain' }, status < 300 ? 'ok' : 'failed');
  const server = await RecordingServer.start({ path: '/sms-hook', responder: answerWith(200) });
  return {
    url: server.url(),
    get requests() {
      return server.requests.map((r) => ({ headers: r.headers, body: JSON.parse(r.body || 'null') as unknown }));
    },
    respondWith: (status) => server.respondWith(answerWith(status)),
    hold: () => server.hold(),
    release: () => server.release(),
    waitForRequests: (count) => server.waitForRequests(count),
    close: () => server.close(),
  };
}
