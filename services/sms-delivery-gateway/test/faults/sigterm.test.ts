import { resolve } from 'node:path';
import { builtEntryPoint, exitWithin, startServiceProcess, untilNewRequestsRefused, type ServiceProcess } from '@smsauth/test-support';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';

const ENTRY = resolve(__dirname, '../../dist/main.js');
const SUITE = 'sms-delivery-gateway: SIGTERM during in-flight requests (faults)';

(builtEntryPoint(ENTRY, SUITE, 'pnpm -C services/sms-delivery-gateway build') ? describe : describe.skip)(SUITE, () => {
  let receiver: WebhookReceiver;
  let gateway: ServiceProcess | undefined;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
  });
  afterAll(async () => {
    receiver.release();
    await gateway?.kill();
    await receiver.close();
  });

  it('hands an in-flight message to a slow webhook provider, refuses new work, and exits 0 within 10 s', async () => {
    gateway = await startServiceProcess(ENTRY, { SMS_PROVIDER: 'webhook', WEBHOOK_URL: receiver.url });
    const { url } = gateway;

    // The provider holds its answer: the delivery is in flight when SIGTERM comes.
    receiver.hold();
    let finished = false;
    const inFlight = fetch(`${url}/sms`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ recipient: '+14155550123', body: 'Your code is 123456' }),
    }).finally(() => (finished = true));
    await receiver.waitForRequests(1);

    gateway.child.kill('SIGTERM');
    const exit = exitWithin(gateway, 10_000);
    await untilNewRequestsRefused(url);
    expect(finished).toBe(false); // refused new work while the delivery was still running

    receiver.release();
    const delivered = await inFlight;
    expect(delivered.status).toBe(200);
    expect(receiver.requests).toHaveLength(1);
    expect(receiver.requests[0]!.body).toMatchObject({ recipient: '+14155550123', body: 'Your code is 123456' });
    expect(await exit).toEqual({ code: 0, signal: null });
    // Starting a process and the 10 s exit budget above: jest's default
    // 5 s per test is less than the test's own budget, and ran out on a loaded machine.
  }, 30_000);
});
