import { ErrorCodes, SmsProviderErrorDescriptions, StartResponseSchema } from '@smsauth/contracts';
import { answer } from '@smsauth/test-support';
import { describeOnEachDatabase, FlowHarness, type LoginSetup } from './flow-harness';

/*
 * Write-ahead records and idempotent starts: the code and its `cs` record are committed before
 * the SMS is attempted, and a start retried with its Idempotency-Key sends at most once.
 */
describeOnEachDatabase('idempotent starts and write-ahead records', (database) => {
  let h: FlowHarness;
  let setup: LoginSetup;

  beforeAll(async () => {
    h = await FlowHarness.start({ TRUST_PROXY: 'true' }, { database });
    setup = await h.loginSetup();
  });
  afterEach(() => h.gateway.reset());
  afterAll(async () => {
    await h?.close();
  });

  const body = (who: { phone: string }, extra: Record<string, unknown> = {}) => ({
    client_id: setup.clientId,
    connection: setup.connection,
    phone_number: who.phone,
    send: 'code',
    ...extra,
  });
  const deliveriesTo = (phone: string) => h.gateway.requests.filter((r) => (JSON.parse(r.body) as { recipient: string }).recipient === phone);
  const codeSentRecords = async (phone: string) =>
    (
      await h.identity.sql.query<{ type: string; details: Record<string, unknown> }>(
        "SELECT type, details FROM tenant_logs WHERE type = 'cs' AND details->>'start_id' = ANY($1) ORDER BY seq",
        [await startIdsOf(phone)],
      )
    ).rows;
  async function startIdsOf(phone: string): Promise<string[]> {
    const { rows } = await h.identity.sql.query<{ request_id: string }>('SELECT request_id FROM one_time_codes WHERE phone_number = $1', [phone]);
    return rows.map((r) => r.request_id);
  }

  it('has the code and its code-sent record committed before the gateway receives the SMS, and marks it sent after', async () => {
    const who = h.caller();
    h.gateway.hold();
    const pending = h.start(body(who), who.ip).then((res) => res);
    await h.gateway.waitForRequests(1);
    // What a replica killed at this moment leaves: the code and a record whose outcome is unknown.
    const [startId] = await startIdsOf(who.phone);
    expect(startId).toEqual(expect.any(String));
    expect(await codeSentRecords(who.phone)).toEqual([{ type: 'cs', details: { start_id: startId, delivery: 'pending' } }]);
    h.gateway.release();
    const res = await pending;
    expect(res.status).toBe(200);
    expect(res.body._id).toBe(startId);
    expect(await codeSentRecords(who.phone)).toEqual([{ type: 'cs', details: { start_id: startId, delivery: 'sent', channel: 'sms', provider: 'unknown' } }]);
  });

  it('answers a retry with the same Idempotency-Key with the first answer, sends nothing more and counts nothing more', async () => {
    const who = h.caller();
    const first = await h.start(body(who), who.ip).set('Idempotency-Key', `once-${who.phone}`);
    expect(first.status).toBe(200);
    const counters = await h.identity.sql.query('SELECT key, count FROM rate_limit_counters WHERE key = $1', [`start:phone:${who.phone}`]);
    const retry = await h.start(body(who), who.ip).set('Idempotency-Key', `once-${who.phone}`);
    expect(retry.status).toBe(200);
    expect(retry.body).toEqual(first.body);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(deliveriesTo(who.phone)).toHaveLength(1);
    expect(deliveriesTo(who.phone)[0]!.headers['idempotency-key']).toBe(first.body._id);
    expect((await h.identity.sql.query('SELECT key, count FROM rate_limit_counters WHERE key = $1', [`start:phone:${who.phone}`])).rows).toEqual(counters.rows);
    expect((await h.ro(setup, who, h.codeSentTo(who.phone))).status).toBe(200);
  });

  it('refuses the key reused for a different start (422), and starts afresh with another key or none', async () => {
    const who = h.caller();
    const other = h.caller();
    expect((await h.start(body(who), who.ip).set('Idempotency-Key', `reuse-${who.phone}`)).status).toBe(200);
    const reused = await h.start(body(other), other.ip).set('Idempotency-Key', `reuse-${who.phone}`);
    expect(reused.status).toBe(422);
    expect(reused.body).toEqual({ error: ErrorCodes.INVALID_REQUEST, error_description: 'This Idempotency-Key was already used for a different start; use a new key per start' });
    expect((await h.start(body(who), who.ip).set('Idempotency-Key', `reuse-2-${who.phone}`)).status).toBe(200);
    expect((await h.start(body(who), who.ip)).status).toBe(200);
    expect(deliveriesTo(who.phone)).toHaveLength(3);
    expect(deliveriesTo(other.phone)).toHaveLength(0);
  });

  it('refuses a malformed Idempotency-Key with 400', async () => {
    const who = h.caller();
    const res = await h.start(body(who), who.ip).set('Idempotency-Key', 'x'.repeat(256));
    expect(res.status).toBe(400);
    expect(res.body.error).toBe(ErrorCodes.INVALID_REQUEST);
  });

  it('answers a gateway 503 with a retryable 503, keeps the keyed start, and delivers the same code under the same gateway key on the retry', async () => {
    const who = h.caller();
    h.gateway.respondWith(answer(503, { 'Retry-After': '1' }));
    const failed = await h.start(body(who), who.ip).set('Idempotency-Key', `later-${who.phone}`);
    expect(failed.status).toBe(503);
    expect(failed.headers['retry-after']).toBe('1');
    expect(failed.body).toEqual({ error: ErrorCodes.SERVICE_UNAVAILABLE, error_description: SmsProviderErrorDescriptions.GATEWAY_UNAVAILABLE });
    const [startId] = await startIdsOf(who.phone);
    expect(await codeSentRecords(who.phone)).toEqual([{ type: 'cs', details: { start_id: startId, delivery: 'unknown' } }]);

    h.gateway.respondWith(answer(200));
    const retry = await h.start(body(who), who.ip).set('Idempotency-Key', `later-${who.phone}`);
    expect(retry.status).toBe(200);
    expect(StartResponseSchema.parse(retry.body)._id).toBe(startId);
    const deliveries = deliveriesTo(who.phone);
    expect(deliveries).toHaveLength(2);
    // The same message under the same key: a gateway that had sent the first sends nothing more.
    expect(deliveries.map((d) => d.headers['idempotency-key'])).toEqual([startId, startId]);
    expect(deliveries[1]!.body).toBe(deliveries[0]!.body);
    expect(await codeSentRecords(who.phone)).toEqual([{ type: 'cs', details: { start_id: startId, delivery: 'sent', channel: 'sms', provider: 'unknown' } }]);
    expect((await h.ro(setup, who, h.codeSentTo(who.phone))).status).toBe(200);

    // Settled: a further retry is answered from the key.
    const again = await h.start(body(who), who.ip).set('Idempotency-Key', `later-${who.phone}`);
    expect(again.body).toEqual(retry.body);
    expect(deliveriesTo(who.phone)).toHaveLength(2);
  });

  it('without a key, a gateway 503 discards the code and marks its record failed, as any failed delivery', async () => {
    const who = h.caller();
    h.gateway.respondWith(answer(503));
    const failed = await h.start(body(who), who.ip);
    expect(failed.status).toBe(503);
    expect(await startIdsOf(who.phone)).toEqual([]);
    const { rows } = await h.identity.sql.query<{ type: string; details: Record<string, unknown> }>(
      "SELECT type, details FROM tenant_logs WHERE details->>'start_id' = (SELECT details->>'start_id' FROM tenant_logs WHERE type = 'fn' ORDER BY seq DESC LIMIT 1) ORDER BY seq",
    );
    expect(rows.map((r) => [r.type, r.details.delivery])).toEqual([
      ['cs', 'failed'],
      ['fn', undefined],
    ]);
  });

  it('gives two requests with the same key arriving together one start, delivered under one gateway key', async () => {
    const who = h.caller();
    h.gateway.hold();
    const both = [0, 1].map(() => h.start(body(who), who.ip).set('Idempotency-Key', `together-${who.phone}`).then((res) => res));
    await h.gateway.waitForRequests(1);
    h.gateway.release();
    const answers = await Promise.all(both);
    // One start: the later request answered its result or resumed it under the same gateway key.
    expect(answers.map((a) => a.status)).toEqual([200, 200]);
    expect(answers[1]!.body._id).toBe(answers[0]!.body._id);
    expect(new Set(deliveriesTo(who.phone).map((d) => d.headers['idempotency-key'])).size).toBe(1);
  });
});
