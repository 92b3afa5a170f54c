import type { RecordingServer, Responder } from '@smsauth/test-support';
import request from 'supertest';
import { buildGateway, deliveryBody, metricValue } from './gateway';
import { startProvider } from './providers';

/** What the provider tests need of a fake: what it received, the answer a test chose, a way to stop it. */
interface ResettableFake {
  requests: unknown[];
  answerWith: unknown;
  close(): Promise<void>;
}

/**
 * Starts the provider's fake and a webhook backup to fail over to for the describe block, and
 * forgets what both received (and the answer a test chose) before each test. `use` hands both
 * to the test file's own variables.
 */
export function withFakeAndBackup<Fake extends ResettableFake>(start: () => Promise<Fake>, use: (fake: Fake, backup: RecordingServer) => void): void {
  let fake: Fake;
  let backup: RecordingServer;
  beforeAll(async () => {
    [fake, backup] = await Promise.all([start(), startProvider()]);
    use(fake, backup);
  });
  afterAll(async () => {
    await Promise.all([fake.close(), backup.close()]);
  });
  beforeEach(() => {
    fake.requests.length = 0;
    fake.answerWith = undefined;
    backup.reset();
  });
}

/** A failover scenario: the provider under test answers badly, a second provider's fake takes the message. */
export interface FailoverScenario<Next extends { baseUrl: string; requests: unknown[]; close(): Promise<void> }> {
  /** The provider under test (its name in SMS_ROUTES) and its settings pointed at `origin`. */
  from: string;
  fromSettings: (origin: string) => Record<string, string>;
  /** How the provider under test answers (a failure status, or never). */
  answer: Responder;
  /** The instance failed over to: its name, its fake and its settings against that fake. */
  to: string;
  startNext: () => Promise<Next>;
  nextSettings: (next: Next) => Record<string, unknown>;
  /** The HTTP status the failed attempt is logged with; the attempts are checked when given. */
  failedWith?: number;
}

/** Delivers one message with the provider under test failing and checks it went to the next instance, counted and logged. */
export async function expectFailover<Next extends { baseUrl: string; requests: unknown[]; close(): Promise<void> }>(scenario: FailoverScenario<Next>): Promise<void> {
  const [failing, next] = await Promise.all([startProvider(scenario.answer), scenario.startNext()]);
  try {
    const { app, logs, metrics } = buildGateway({
      SMS_PROVIDER_INSTANCES: JSON.stringify({ [scenario.to]: scenario.nextSettings(next) }),
      SMS_ROUTES: JSON.stringify({ default: [scenario.from, scenario.to] }),
      ...scenario.fromSettings(failing.origin),
    });
    expect((await request(app).post('/sms').send(deliveryBody())).status).toBe(200);
    expect(next.requests).toHaveLength(1);
    expect(await metricValue(metrics, 'sms_failovers_total', { from: scenario.from, to: scenario.to })).toBe(1);
    if (scenario.failedWith !== undefined) {
      expect(logs.entries().find((entry) => entry.msg === 'sms delivered')?.attempts).toEqual([
        { provider: scenario.from, outcome: 'failed', http_status: scenario.failedWith },
        { provider: scenario.to, outcome: 'accepted' },
      ]);
    }
  } finally {
    await Promise.all([failing.close(), next.close()]);
  }
}
