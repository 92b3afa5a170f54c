import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { answer } from '@smsauth/test-support';
import request from 'supertest';
import { LEASE_MS } from '../../src/domain/log-streams/delivery';
import type { Timers } from '../../src/domain/log-streams/worker';
import pg from 'pg';
import { dropSchema, describeWithPostgres, TestClock, uniqueSchema } from '../helpers';
import { describeOnEachDatabase } from '../passwordless/flow-harness';
import { eventsOf, logRecord, RecordingServer, StreamHarness, verifyDelivery } from './stream-harness';

const AUTHORIZATION = 'Bearer siem-ingest-token-7f3a';
/** Small batches, three failures before suspension, 1 s doubling backoff. */
const ENV = { LOG_STREAM_BATCH_SIZE: '3', LOG_STREAM_MAX_FAILURES: '3', LOG_STREAM_BACKOFF_MS: '1000' };

/**
 * The log ids of the records the tests append (logRecord's `log_…` ids), as delivered: what
 * the tests do besides (admin tokens, creating, pausing, deleting streams) is recorded and
 * streamed too, with the service's own `900…` ids.
 */
const appended = (e: { log_id: string }) => e.log_id.startsWith('log_');
const logIdsOf = (receiver: RecordingServer, format?: 'JSONLINES' | 'JSONARRAY' | 'JSONOBJECT') =>
  receiver.requests.flatMap((r) => eventsOf(r, format).filter(appended).map((e) => e.log_id));

describeOnEachDatabase('log stream delivery', (database) => {
  let h: StreamHarness;
  let receiver: RecordingServer;
  beforeAll(async () => {
    h = await StreamHarness.start({ ...database.env, ...ENV }, { schema: database.schema });
    receiver = await RecordingServer.start({ path: '/logs' });
  });
  afterAll(async () => {
    await h?.close();
    await receiver?.close();
  });
  beforeEach(() => receiver.reset());
  // Each test's streams stop at its end, so later tests' records reach only their own streams.
  afterEach(async () => {
    for (const stream of (await h.management('get', '/log-streams')).body as Array<{ id: string }>) {
      await h.management('delete', `/log-streams/${stream.id}`).expect(204);
    }
  });

  it('delivers every record written after the stream was created once, in order, as signed JSON lines with the authorization header', async () => {
    await h.record(2); // history before the stream: not delivered
    const stream = await h.createStream({ httpEndpoint: receiver.url(), httpAuthorization: AUTHORIZATION });
    const ids = await h.record(7);
    await h.deliverUntil(() => logIdsOf(receiver).length >= 7);
    // The stream's own creation (a management write) comes first.
    expect(eventsOf(receiver.requests[0]!)[0]!.data).toMatchObject({ type: 'sapi', details: { target: stream.id } });

    expect(logIdsOf(receiver)).toEqual(ids);
    // Batches of LOG_STREAM_BATCH_SIZE (3, 3, 1 when all seven are settled at once).
    expect(receiver.requests.length).toBeGreaterThanOrEqual(3);
    expect(receiver.requests.every((r) => eventsOf(r).length <= 3)).toBe(true);
    for (const delivery of receiver.requests) {
      expect(delivery.method).toBe('POST');
      expect(delivery.headers['content-type']).toBe('application/json');
      expect(delivery.headers.authorization).toBe(AUTHORIZATION);
      expect(delivery.headers['x-smsauth-log-stream']).toBe(stream.id);
      expect(verifyDelivery(delivery.headers['x-smsauth-signature'] as string, delivery.body, stream.signing_secret, h.clock.now().getTime() / 1000)).toBe(true);
    }
    expect(receiver.requests.flatMap((r) => eventsOf(r)).find((e) => e.log_id === ids[0])).toEqual({
      log_id: ids[0],
      data: {
        log_id: ids[0],
        date: h.clock.now().toISOString(),
        type: 's',
        description: 'Successful login',
        client_id: 'client-1',
        client_name: 'Flow App',
        connection: 'sms',
        user_id: 'sms|0123',
        ip: '198.18.0.1',
        phone_number: '+1415***0100',
        details: { grant_type: 'otp' },
      },
    });
    const after = await h.stream(stream.id);
    expect(after.delivery).toEqual({ consecutive_failures: 0, last_delivered_at: h.clock.now().toISOString() });
    const sent = receiver.requests.length;
    expect(await h.metric('log_stream_deliveries_total', { stream: stream.id, outcome: 'delivered' })).toBe(sent);

    // Nothing new: another pass sends nothing.
    await h.identity.logStreamWorker.runOnce();
    expect(receiver.requests).toHaveLength(sent);
  });

  it('lets the receiver detect a tampered body, a wrong secret and an old replayed delivery', async () => {
    const stream = await h.createStream({ httpEndpoint: receiver.url() });
    await h.record(2);
    await h.deliverUntil(() => receiver.requests.length >= 1);
    const [delivery] = receiver.requests;
    const header = delivery!.headers['x-smsauth-signature'] as string;
    const now = h.clock.now().getTime() / 1000;
    expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(verifyDelivery(header, delivery!.body, stream.signing_secret, now)).toBe(true);
    expect(verifyDelivery(header, delivery!.body.replace('"type":"s"', '"type":"f"'), stream.signing_secret, now)).toBe(false);
    expect(verifyDelivery(header, `${delivery!.body}\n`, stream.signing_secret, now)).toBe(false);
    const other = await h.createStream({ httpEndpoint: receiver.url() }, 'other');
    expect(verifyDelivery(header, delivery!.body, other.signing_secret, now)).toBe(false);
    expect(verifyDelivery(header.replace(/t=\d+/, `t=${now + 1}`), delivery!.body, stream.signing_secret, now)).toBe(false);
    expect(verifyDelivery(header, delivery!.body, stream.signing_secret, now + 301)).toBe(false);
  });

  it('sends a JSON array per batch, or one JSON object per request, as the sink format says', async () => {
    const array = await h.createStream({ httpEndpoint: receiver.url('/array'), httpContentFormat: 'JSONARRAY' }, 'array');
    const object = await h.createStream({ httpEndpoint: receiver.url('/object'), httpContentFormat: 'JSONOBJECT', httpContentType: 'application/vnd.siem+json' }, 'object');
    const ids = await h.record(4);
    const to = (path: string) => ({ requests: receiver.requests.filter((r) => r.path === path) }) as RecordingServer;
    await h.deliverUntil(() => logIdsOf(to('/array'), 'JSONARRAY').length >= 4 && logIdsOf(to('/object'), 'JSONOBJECT').length >= 4);
    expect(logIdsOf(to('/array'), 'JSONARRAY')).toEqual(ids);
    expect(to('/array').requests.every((r) => eventsOf(r, 'JSONARRAY').length <= 3)).toBe(true);
    expect(logIdsOf(to('/object'), 'JSONOBJECT')).toEqual(ids);
    // One event per request (JSON.parse of the body is one object, not an array or lines).
    expect(to('/object').requests.every((r) => !Array.isArray(JSON.parse(r.body)))).toBe(true);
    expect(to('/object').requests[0]!.headers['content-type']).toBe('application/vnd.siem+json');
    for (const [stream, path] of [[array, '/array'], [object, '/object']] as const) {
      for (const r of to(path).requests) expect(verifyDelivery(r.headers['x-smsauth-signature'] as string, r.body, stream.signing_secret, h.clock.now().getTime() / 1000)).toBe(true);
    }
  });

  it('retries a failing receiver with growing delays, suspends the stream after repeated failures saying why, and resumes from where it stopped', async () => {
    const stream = await h.createStream({ httpEndpoint: receiver.url() });
    const ids = await h.record(4);
    receiver.respondWith(answer(503));

    await h.deliverUntil(() => receiver.requests.length >= 1);
    expect(receiver.requests).toHaveLength(1);
    const firstFailure = h.clock.now();
    expect((await h.stream(stream.id)).delivery).toEqual({
      consecutive_failures: 1,
      last_failure: { at: firstFailure.toISOString(), reason: 'the endpoint answered HTTP 503' },
      next_attempt_at: new Date(firstFailure.getTime() + 1000).toISOString(),
    });
    // Not due yet: nothing is sent until the backoff has passed.
    await h.identity.logStreamWorker.runOnce();
    expect(receiver.requests).toHaveLength(1);
    h.clock.advance(1);
    await h.identity.logStreamWorker.runOnce();
    expect(receiver.requests).toHaveLength(2);
    expect((await h.stream(stream.id)).delivery.next_attempt_at).toBe(new Date(h.clock.now().getTime() + 2000).toISOString());
    h.clock.advance(1);
    await h.identity.logStreamWorker.runOnce();
    expect(receiver.requests).toHaveLength(2);
    h.clock.advance(1);
    await h.identity.logStreamWorker.runOnce();
    expect(receiver.requests).toHaveLength(3);

    const suspended = await h.stream(stream.id);
    expect(suspended.status).toBe('suspended');
    expect(suspended.suspended_reason).toBe('3 consecutive failed deliveries; last: the endpoint answered HTTP 503');
    expect(suspended.delivery.consecutive_failures).toBe(3);
    expect(await h.metric('log_stream_deliveries_total', { stream: stream.id, outcome: 'failed' })).toBe(3);
    // Every attempt carried the same first batch.
    expect(new Set(receiver.requests.map((r) => r.body)).size).toBe(1);

    // Suspended: no more attempts however long it waits; its lag keeps growing.
    h.clock.advance(3600);
    await h.identity.logStreamWorker.runOnce();
    expect(receiver.requests).toHaveLength(3);
    expect(await h.metric('log_stream_lag_seconds', { stream: stream.id })).toBe(3603);

    receiver.reset();
    const resumed = await h.management('patch', `/log-streams/${stream.id}`, { status: 'active' });
    // Resuming forgets the failure count (the last failure stays visible) and retries at once.
    expect(resumed.body).toMatchObject({ status: 'active', delivery: { consecutive_failures: 0, last_failure: { reason: 'the endpoint answered HTTP 503' } } });
    expect(resumed.body.suspended_reason).toBeUndefined();
    await h.deliverUntil(() => logIdsOf(receiver).length >= 4);
    expect(logIdsOf(receiver)).toEqual(ids);
    expect((await h.stream(stream.id)).delivery.consecutive_failures).toBe(0);
    expect(await h.metric('log_stream_lag_seconds', { stream: stream.id })).toBe(0);
  });

  it('counts an unreachable receiver as a failure', async () => {
    const closed = await RecordingServer.start();
    const url = closed.url('/gone');
    await closed.close();
    const stream = await h.createStream({ httpEndpoint: url });
    await h.record(1);
    await h.deliverUntil(async () => (await h.stream(stream.id)).delivery.consecutive_failures === 1);
    expect((await h.stream(stream.id)).delivery.last_failure?.reason).toBe('the endpoint could not be reached');
  });

  it('delivers nothing while a stream is paused and everything recorded meanwhile once it is resumed', async () => {
    const stream = await h.createStream({ httpEndpoint: receiver.url() });
    await h.management('patch', `/log-streams/${stream.id}`, { status: 'paused' }).expect(200);
    const ids = await h.record(2);
    await h.drain();
    expect(receiver.requests).toEqual([]);
    await h.management('patch', `/log-streams/${stream.id}`, { status: 'active' }).expect(200);
    await h.deliverUntil(() => logIdsOf(receiver).length >= 2);
    expect(logIdsOf(receiver)).toEqual(ids);
  });

  it('never delivers a record whose transaction rolled back', async () => {
    await h.createStream({ httpEndpoint: receiver.url() });
    const kept = await h.record(1);
    await expect(
      h.identity.store.transaction(async (tx) => {
        await tx.tenantLogs.append(logRecord(h.clock, { log_id: 'rolled-back' }));
        throw new Error('the change failed');
      }),
    ).rejects.toThrow('the change failed');
    const after = await h.record(1);
    await h.deliverUntil(() => logIdsOf(receiver).length >= 2);
    expect(logIdsOf(receiver)).toEqual([...kept, ...after]);
  });
});

/** Restart: a new app instance on the same database carries on from the durable cursor. */
function restartSuite(database: () => { env: Record<string, string>; schema?: string }) {
  it('delivers every record once, in order, across an identity restart', async () => {
    const receiver = await RecordingServer.start({ path: '/logs' });
    const { env, schema } = database();
    const clock = new TestClock();
    const first = await StreamHarness.start({ ...env, ...ENV }, { schema, clock });
    let stream: { id: string; signing_secret: string };
    let ids: string[];
    try {
      stream = await first.createStream({ httpEndpoint: receiver.url() });
      ids = await first.record(4);
      // One pass: one batch (three records when all four are settled), then the instance stops.
      await (await first.passReaching(receiver, 1)).pass;
      ids.push(...(await first.record(2)));
    } finally {
      await first.close();
    }
    expect(receiver.requests).toHaveLength(1);

    const second = await StreamHarness.start({ ...env, ...ENV }, { schema, clock });
    try {
      ids.push(...(await second.record(1)));
      await second.deliverUntil(() => logIdsOf(receiver).length >= ids.length);
      expect(logIdsOf(receiver)).toEqual(ids);
      for (const r of receiver.requests) expect(verifyDelivery(r.headers['x-smsauth-signature'] as string, r.body, stream.signing_secret, clock.now().getTime() / 1000)).toBe(true);
    } finally {
      await second.close();
      await receiver.close();
    }
  });
}

describe('log stream delivery across a restart (PGlite directory)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'identity-streams-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  restartSuite(() => ({ env: { DATABASE_URL: `pglite:${dir}` } }));
});

describeWithPostgres('log stream delivery across a restart (PostgreSQL)', (databaseUrl) => {
  const schema = uniqueSchema('streams_restart');
  afterAll(() => dropSchema(databaseUrl, schema));
  restartSuite(() => ({ env: { DATABASE_URL: databaseUrl }, schema }));
});

describeWithPostgres('log stream delivery by two replicas on one PostgreSQL', (databaseUrl) => {
  const schema = uniqueSchema('streams_replicas');
  const clock = new TestClock();
  let a: StreamHarness;
  let b: StreamHarness;
  let receiver: RecordingServer;
  beforeAll(async () => {
    a = await StreamHarness.start({ DATABASE_URL: databaseUrl, ...ENV }, { schema, clock });
    b = await StreamHarness.start({ DATABASE_URL: databaseUrl, ...ENV }, { schema, clock });
    receiver = await RecordingServer.start({ path: '/logs' });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
    await receiver?.close();
    await dropSchema(databaseUrl, schema);
  });
  beforeEach(() => receiver.reset());
  afterEach(async () => {
    receiver.release();
    for (const stream of (await a.management('get', '/log-streams')).body as Array<{ id: string }>) await a.management('delete', `/log-streams/${stream.id}`);
  });

  it('sends a batch from one replica only while the other holds its lease', async () => {
    await a.createStream({ httpEndpoint: receiver.url() });
    const ids = await a.record(2);
    receiver.hold();
    const { pass: aPass } = await a.passReaching(receiver, 1);
    await b.identity.logStreamWorker.runOnce();
    expect(receiver.requests).toHaveLength(1);
    receiver.release();
    await aPass;
    await b.deliverUntil(() => logIdsOf(receiver).length >= 2);
    expect(logIdsOf(receiver)).toEqual(ids);
  });

  it('delivers every record once and in order when both replicas deliver at the same time', async () => {
    await a.createStream({ httpEndpoint: receiver.url() });
    const ids: string[] = [];
    for (let round = 0; round < 6; round += 1) {
      ids.push(...(await (round % 2 ? a : b).record(4)));
      await Promise.all([a.drain(), b.drain(), a.drain(), b.drain()]);
    }
    await Promise.all([a.deliverUntil(() => logIdsOf(receiver).length >= ids.length), b.drain()]);
    expect(logIdsOf(receiver)).toEqual(ids);
  });

  it('redelivers the batch of a replica that died mid-delivery once its lease expires, and moves the cursor once', async () => {
    const stream = await a.createStream({ httpEndpoint: receiver.url() });
    const ids = await a.record(5);
    // Settled first, so the batch A sends is the full first three.
    await a.settled(stream.id, 5);
    receiver.hold();
    // A sends the first batch and never hears back (it hangs, as a dying replica would).
    const { pass: aPass } = await a.passReaching(receiver, 1);
    await b.identity.logStreamWorker.runOnce();
    expect(receiver.requests).toHaveLength(1);
    // Past the lease (5 s; A's heartbeat never beats here, as a killed replica's): B takes over and sends the same batch.
    clock.advance(6);
    const bPass = b.identity.logStreamWorker.runOnce();
    await receiver.waitForRequests(2);
    expect(receiver.requests[1]!.body).toBe(receiver.requests[0]!.body);
    receiver.release();
    await Promise.all([aPass, bPass]);
    // A's late success must not move the cursor B now owns: the next batch follows once.
    // The first batch twice (A's and B's attempt), then everything after it once.
    const firstBatch = logIdsOf({ requests: receiver.requests.slice(0, 1) } as RecordingServer);
    expect(firstBatch.length).toBeGreaterThan(0);
    await b.deliverUntil(() => logIdsOf(receiver).length >= firstBatch.length + ids.length);
    await a.drain();
    expect(logIdsOf(receiver)).toEqual([...firstBatch, ...ids]);
    expect((await a.identity.store.logStreams.findById(stream.id))!.consecutiveFailures).toBe(0);
  });

  it('still delivers a record whose transaction numbered it first but committed after a later-numbered one', async () => {
    await a.createStream({ httpEndpoint: receiver.url() });
    const early = new pg.Client({ connectionString: databaseUrl, options: `-c search_path=${schema}` });
    const late = new pg.Client({ connectionString: databaseUrl, options: `-c search_path=${schema}` });
    await early.connect();
    await late.connect();
    try {
      const insert = (client: pg.Client, logId: string) =>
        client.query(
          `INSERT INTO tenant_logs (log_id, date, type, description, details) VALUES ($1, $2, 's', 'Successful login', '{}') RETURNING seq::int AS seq`,
          [logId, clock.now()],
        );
      // `late` takes its transaction id first (an earlier write, as a login's change before its record)...
      await late.query('BEGIN');
      await late.query('SELECT pg_current_xact_id()');
      // ...`early` then numbers its record first and stays open...
      await early.query('BEGIN');
      const earlySeq = (await insert(early, 'log_numbered-first')).rows[0].seq as number;
      // ...and `late` numbers after it and commits first.
      const lateSeq = (await insert(late, 'log_numbered-second')).rows[0].seq as number;
      await late.query('COMMIT');
      expect(lateSeq).toBeGreaterThan(earlySeq);

      await a.deliverUntil(() => receiver.requests.length >= 1);
      expect(logIdsOf(receiver)).toEqual(['log_numbered-second']);
      await early.query('COMMIT');
      await a.deliverUntil(() => logIdsOf(receiver).length >= 2);
      expect(logIdsOf(receiver)).toEqual(['log_numbered-second', 'log_numbered-first']);
    } finally {
      await early.end();
      await late.end();
    }
  });

  it('holds back records of a transaction still open behind an older one', async () => {
    await a.createStream({ httpEndpoint: receiver.url() });
    const open = new pg.Client({ connectionString: databaseUrl, options: `-c search_path=${schema}` });
    await open.connect();
    try {
      await open.query('BEGIN');
      await open.query('SELECT pg_current_xact_id()');
      // Committed, but younger than the open transaction: it might still be followed by an older record.
      const ids = await a.record(1);
      await a.drain();
      expect(logIdsOf(receiver)).toEqual([]);
      await open.query('COMMIT');
      await a.deliverUntil(() => logIdsOf(receiver).length >= 1);
      expect(logIdsOf(receiver)).toEqual(ids);
    } finally {
      await open.end();
    }
  });
});

describe('log stream worker lifecycle', () => {
  it('starts with the service, delivers on its own timer, and stops before the database closes', async () => {
    const receiver = await RecordingServer.start({ path: '/logs' });
    // Real timers with a short poll: the test waits for the delivery to arrive, not for time to pass.
    const h = await StreamHarness.start({ LOG_STREAM_POLL_MS: '20' }, { logStreamTimers: undefined });
    try {
      await h.createStream({ httpEndpoint: receiver.url() });
      const ids = await h.record(2);
      while (logIdsOf(receiver).length < 2) await receiver.waitForRequests(receiver.requests.length + 1);
      expect(logIdsOf(receiver)).toEqual(ids);
    } finally {
      // The graceful shutdown's closers (worker, sink connections, database); close() throws if one fails.
      await h.close();
      await receiver.close();
    }
    expect(h.identity.logs()).not.toContain('log stream delivery pass failed');
  });
});

describeWithPostgres('log stream lease heartbeat and takeover by another replica', (databaseUrl) => {
  const schema = uniqueSchema('streams_lease');
  const clock = new TestClock();
  // A's heartbeats run only when the test fires them; the delivery loop itself is driven by runOnce().
  let heartbeats: Array<() => void> = [];
  const heartbeatTimers: Timers = {
    setTimeout: (callback, ms) => {
      if (ms === Math.floor(LEASE_MS / 3)) heartbeats.push(callback);
      return undefined;
    },
    clearTimeout: () => undefined,
  };
  let a: StreamHarness;
  let b: StreamHarness;
  let receiver: RecordingServer;
  beforeAll(async () => {
    a = await StreamHarness.start({ DATABASE_URL: databaseUrl, ...ENV }, { schema, clock, logStreamTimers: heartbeatTimers });
    b = await StreamHarness.start({ DATABASE_URL: databaseUrl, ...ENV }, { schema, clock });
    receiver = await RecordingServer.start({ path: '/logs' });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
    await receiver?.close();
    await dropSchema(databaseUrl, schema);
  });
  beforeEach(() => {
    receiver.reset();
    heartbeats = [];
  });
  afterEach(async () => {
    receiver.release();
    for (const stream of (await a.management('get', '/log-streams')).body as Array<{ id: string }>) await a.management('delete', `/log-streams/${stream.id}`);
  });

  const leaseExpiresAt = async (streamId: string) =>
    (await a.identity.sql.query<{ at: Date | null }>('SELECT lease_expires_at AS at FROM log_streams WHERE id = $1', [streamId])).rows[0]!.at;

  it('keeps the lease of a batch in flight by its heartbeat, so no other replica sends the batch meanwhile', async () => {
    const stream = await a.createStream({ httpEndpoint: receiver.url() });
    const ids = await a.record(3);
    await a.settled(stream.id, 3);
    receiver.hold();
    const { pass: aPass } = await a.passReaching(receiver, 1);
    const firstLeaseEnd = (await leaseExpiresAt(stream.id))!.getTime();
    clock.advance(4);
    for (const beat of heartbeats.splice(0)) beat();
    for (let i = 0; i < 200 && (await leaseExpiresAt(stream.id))!.getTime() === firstLeaseEnd; i += 1) await new Promise((resolve) => setTimeout(resolve, 10));
    expect((await leaseExpiresAt(stream.id))!.getTime()).toBe(clock.now().getTime() + LEASE_MS);
    // Past the first lease, within the renewed one: B finds the stream busy.
    clock.advance(4);
    await b.identity.logStreamWorker.runOnce();
    expect(receiver.requests).toHaveLength(1);
    receiver.release();
    await aPass;
    await a.deliverUntil(() => logIdsOf(receiver).length >= 3);
    expect(logIdsOf(receiver)).toEqual(ids);
  });

  it('hands the stream of a replica killed mid-batch to another once the lease (5 s) ends: the batch again, same log_ids, counted as redelivered', async () => {
    const stream = await a.createStream({ httpEndpoint: receiver.url() });
    const ids = await a.record(3);
    await a.settled(stream.id, 3);
    receiver.hold();
    // A sends and is never heard from again: no heartbeat, no answer.
    const { pass: aPass } = await a.passReaching(receiver, 1);
    clock.advance(LEASE_MS / 1000 + 1);
    const bPass = b.identity.logStreamWorker.runOnce();
    await receiver.waitForRequests(2);
    expect(receiver.requests[1]!.body).toBe(receiver.requests[0]!.body);
    receiver.release();
    await Promise.all([aPass, bPass]);
    const metrics = await request(b.identity.app).get('/metrics');
    expect(metrics.text).toContain(`log_stream_redelivered_records_total{stream="${stream.id}",service="identity"} 3`);
    const [first, second] = receiver.requests.map((r) => logIdsOf({ requests: [r] } as unknown as RecordingServer));
    expect(second).toEqual(first);
    expect(ids).toEqual(expect.arrayContaining(first!));
  });
});
