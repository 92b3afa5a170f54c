import type { RecordingServer } from '@smsauth/test-support';
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
