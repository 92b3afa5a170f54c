import { describeOnEachDatabase, FlowHarness } from '../passwordless/flow-harness';
import { eventsOf, manualTimers, RecordingServer, verifyDelivery } from './stream-harness';

/** Real events, made by the actions that cause them, reach a stream once, in order, and hold no secret. */
describeOnEachDatabase('log stream of a login', (database) => {
  let h: FlowHarness;
  let receiver: RecordingServer;
  beforeAll(async () => {
    h = await FlowHarness.start({}, { database, logStreamTimers: manualTimers });
    receiver = await RecordingServer.start({ path: '/logs' });
  });
  afterAll(async () => {
    await h?.close();
    await receiver?.close();
  });

  it('delivers the stream\'s own creation, the code sent, the wrong guess and the login, in that order, once each, without the code', async () => {
    const setup = await h.loginSetup();
    const created = await h.management('post', '/log-streams', { name: 'SIEM', type: 'http', sink: { httpEndpoint: receiver.url() } });
    expect(created.status).toBe(201);
    const who = h.caller();
    const code = await h.sendCode(setup, who);
    const wrong = String((Number(code) + 1) % 1_000_000).padStart(6, '0');
    expect((await h.ro(setup, who, wrong)).status).toBe(401);
    expect((await h.ro(setup, who, code)).status).toBe(200);

    const delivered = () => receiver.requests.flatMap((r) => eventsOf(r));
    for (let pass = 0; pass < 2000 && delivered().length < 4; pass += 1) {
      await h.identity.logStreamWorker.runOnce();
      if (delivered().length < 4) await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const events = delivered();
    expect(events.map((e) => e.data.type)).toEqual(['sapi', 'cs', 'fp', 's']);
    expect(events[0]!.data.details).toMatchObject({ request: { method: 'POST', path: '/api/v2/log-streams' }, target: created.body.id });
    expect(new Set(events.map((e) => e.log_id)).size).toBe(4);
    expect(events[3]!.data).toMatchObject({ client_id: setup.clientId, connection: setup.connection });
    for (const r of receiver.requests) {
      expect(verifyDelivery(r.headers['x-smsauth-signature'] as string, r.body, created.body.signing_secret, h.clock.now().getTime() / 1000)).toBe(true);
      expect(r.body).not.toContain(code);
      expect(r.body).not.toContain(who.phone);
    }
  });
});
