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

/**
 * SMS_PROVIDER_INSTANCES with one webhook instance per server, named as given. Each waits 10 s
 * for an answer (on a loaded machine a provider's answer can take more than a few hundred ms,
 * which a short timeout would turn into a failover), except the instances `timeoutsMs` names:
 * a provider that hangs gets a short one so its test does not wait long.
 */
export function webhookInstances(servers: Record<string, RecordingServer>, extra: Record<string, string> = {}, timeoutsMs: Record<string, number> = {}): string {
  return JSON.stringify(
    Object.fromEntries(
      Object.entries(servers).map(([name, server]) => [
        name,
        { provider: 'webhook', WEBHOOK_URL: server.url(), WEBHOOK_TIMEOUT_MS: String(timeoutsMs[name] ?? 10_000), ...extra },
      ]),
    ),
  );
}

/** The JSON bodies a recording server received. */
export function bodiesOf(server: RecordingServer): Array<Record<string, unknown>> {
  return server.requests.map((request) => JSON.parse(request.body) as Record<string, unknown>);
}
