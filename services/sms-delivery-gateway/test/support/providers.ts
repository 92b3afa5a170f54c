import { answer, hang, RecordingServer, type Responder } from '@smsauth/test-support';
import type { Clock } from '@smsauth/service-kit';
import { NOW } from './gateway';

/** A recording provider endpoint: a real HTTP server answering as the test says (200 by default). */
export function startProvider(responder: Responder = answer(200)): Promise<RecordingServer> {
  return RecordingServer.start({ path: '/send', responder });
}

export const failWith = (status: number): Responder => answer(status, { 'content-type': 'text/plain' }, 'failed');
export { answer, hang };

/** A clock the test moves by hand (starts at NOW). */
export function manualClock(start = NOW): Clock & { advance(ms: number): void } {
  let now = start;
  return {
    now: () => new Date(now),
    advance(ms: number) {
      now += ms;
    },
  };
}

/** SMS_PROVIDER_INSTANCES with one webhook instance per server, named as given. */
export function webhookInstances(servers: Record<string, RecordingServer>, extra: Record<string, string> = {}): string {
  return JSON.stringify(
    Object.fromEntries(
      Object.entries(servers).map(([name, server]) => [name, { provider: 'webhook', WEBHOOK_URL: server.url(), WEBHOOK_TIMEOUT_MS: '200', ...extra }]),
    ),
  );
}

/** The JSON bodies a recording server received. */
export function bodiesOf(server: RecordingServer): Array<Record<string, unknown>> {
  return server.requests.map((request) => JSON.parse(request.body) as Record<string, unknown>);
}
