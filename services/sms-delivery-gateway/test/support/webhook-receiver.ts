import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

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

/** A real HTTP server standing in for an operator's webhook: records what it receives. */
export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const requests: ReceivedWebhook[] = [];
  let status = 200;
  let held: Array<() => void> | undefined;
  let waiters: Array<{ count: number; resolve: () => void }> = [];

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      requests.push({ headers: req.headers, body: JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null') });
      waiters = waiters.filter((waiter) => (requests.length >= waiter.count ? (waiter.resolve(), false) : true));
      const answer = () => {
        res.writeHead(status, { 'content-type': 'text/plain' });
        res.end(status < 300 ? 'ok' : 'failed');
      };
      if (held) held.push(answer);
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/sms-hook`,
    requests,
    respondWith: (next) => {
      status = next;
    },
    hold: () => {
      held = [];
    },
    release: () => {
      const pending = held ?? [];
      held = undefined;
      for (const answer of pending) answer();
    },
    waitForRequests: (count) =>
      requests.length >= count ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ count, resolve })),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
