import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { LogStreamEventSchema, LogStreamRecordSchema, type LogStreamEvent, type LogStreamRecord } from '@smsauth/contracts';
import { RecordingServer, type RecordedRequest } from '@smsauth/test-support';
import request from 'supertest';
import type { Timers } from '../../src/domain/log-streams/worker';
import type { StartOptions } from '../../src/start';
import type { TenantLogRecord } from '../../src/store';
import { adminToken, startTestIdentity, TestClock, type TestIdentity } from '../helpers';
import { listen } from '../passwordless/flow-harness';

/** Timers that never fire: the tests drive delivery with logStreamWorker.runOnce(). */
export const manualTimers: Timers = { setTimeout: () => undefined, clearTimeout: () => undefined };

/**
 * The receiver's check, exactly as docs/tenant-logs.md "Log streams" documents it: split
 * `t=<unix>,v1=<hex>`, HMAC-SHA256 of `<t>.<raw body>` keyed with the signing secret, compare
 * in constant time, refuse timestamps older than `toleranceSeconds`.
 */
export function verifyDelivery(header: string | undefined, rawBody: string, signingSecret: string, nowSeconds: number, toleranceSeconds = 300): boolean {
  const parts = Object.fromEntries((header ?? '').split(',').map((part) => part.split('=', 2) as [string, string]));
  const t = Number(parts.t);
  if (!Number.isInteger(t) || !/^[0-9a-f]{64}$/.test(parts.v1 ?? '')) return false;
  if (Math.abs(nowSeconds - t) > toleranceSeconds) return false;
  const expected = createHmac('sha256', signingSecret).update(`${t}.${rawBody}`).digest();
  return timingSafeEqual(expected, Buffer.from(parts.v1!, 'hex'));
}

/** The events of one delivery, whatever its format. */
export function eventsOf(delivery: RecordedRequest, format: 'JSONLINES' | 'JSONARRAY' | 'JSONOBJECT' = 'JSONLINES'): LogStreamEvent[] {
  if (format === 'JSONARRAY') return (JSON.parse(delivery.body) as unknown[]).map((e) => LogStreamEventSchema.parse(e));
  if (format === 'JSONOBJECT') return [LogStreamEventSchema.parse(JSON.parse(delivery.body))];
  return delivery.body.split('\n').map((line) => LogStreamEventSchema.parse(JSON.parse(line)));
}

/** A tenant log record as the domain would append it. */
export function logRecord(clock: TestClock, overrides: Partial<TenantLogRecord> = {}): TenantLogRecord {
  return {
    log_id: `log_${randomBytes(8).toString('hex')}`,
    date: clock.now(),
    type: 's',
    description: 'Successful login',
    client_id: 'client-1',
    client_name: 'Flow App',
    connection: 'sms',
    user_id: 'sms|0123',
    ip: '198.18.0.1',
    phone_number: '+1415***0100',
    details: { grant_type: 'otp' },
    ...overrides,
  };
}

/** An identity instance on a real port with an admin token; delivery is driven by hand. */
export class StreamHarness {
  private constructor(
    readonly identity: TestIdentity,
    readonly server: Server,
    readonly admin: string,
    readonly clock: TestClock,
  ) {}

  static async start(env: Record<string, string | undefined>, options: StartOptions & { clock?: TestClock } = {}): Promise<StreamHarness> {
    const clock = options.clock ?? new TestClock();
    const identity = await startTestIdentity(env, { logStreamTimers: manualTimers, ...options, clock });
    const server = await listen(identity.app);
    return new StreamHarness(identity, server, await adminToken(identity.app), clock);
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  management(method: 'get' | 'post' | 'patch' | 'delete', path: string, body?: unknown): request.Test {
    const req = request(this.url)[method](`/api/v2${path}`).set('authorization', `Bearer ${this.admin}`);
    return body === undefined ? req : req.send(body as object);
  }

  async createStream(sink: Record<string, unknown>, name = 'SIEM'): Promise<{ id: string; signing_secret: string }> {
    const res = await this.management('post', '/log-streams', { name, type: 'http', sink });
    if (res.status !== 201) throw new Error(`log stream create failed: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  }

  async stream(id: string): Promise<LogStreamRecord> {
    const res = await this.management('get', `/log-streams/${id}`);
    expect(res.status).toBe(200);
    return LogStreamRecordSchema.strict().parse(res.body);
  }

  /** Appends records, each in a transaction of its own (as separate logins would). */
  async record(count: number, overrides: Partial<TenantLogRecord> = {}): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < count; i += 1) {
      const record = logRecord(this.clock, overrides);
      await this.identity.store.transaction((tx) => tx.tenantLogs.append(record));
      ids.push(record.log_id);
    }
    return ids;
  }

  /** Delivery passes until nothing more is waiting (or `max` passes). */
  async drain(max = 50): Promise<void> {
    for (let i = 0; i < max; i += 1) if (!(await this.identity.logStreamWorker.runOnce())) return;
  }

  /**
   * Delivery passes until `done()` holds. On a shared PostgreSQL another suite's open
   * transaction can hold records back for a moment (a stream sends only records older than
   * every open transaction), so a pass may find nothing settled yet: passes repeat, yielding
   * between them, until the condition holds; the test asserts the outcome, not a duration.
   */
  async deliverUntil(done: () => boolean | Promise<boolean>, maxPasses = 2000): Promise<void> {
    for (let i = 0; i < maxPasses; i += 1) {
      await this.drain();
      if (await done()) return;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error(`delivery did not reach the expected state after ${maxPasses} passes`);
  }

  /** Waits, without delivering, until `count` records are settled for the stream (see deliverUntil). */
  async settled(streamId: string, count: number): Promise<void> {
    const { logStreams } = this.identity.store;
    for (let i = 0; i < 2000; i += 1) {
      const stream = await logStreams.findById(streamId);
      if ((await logStreams.pendingRecords(stream!.cursor, count)).length >= count) return;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error(`${count} records did not settle`);
  }

  /**
   * Starts a delivery pass and answers it (still pending, wrapped: an async function would
   * wait for a returned promise) once `receiver` has `count` requests: passes that found
   * nothing settled yet (see deliverUntil) are repeated.
   */
  async passReaching(receiver: RecordingServer, count: number): Promise<{ pass: Promise<boolean> }> {
    for (let i = 0; i < 2000; i += 1) {
      const pass = this.identity.logStreamWorker.runOnce();
      const reached = await Promise.race([receiver.waitForRequests(count).then(() => true), pass.then(() => receiver.requests.length >= count)]);
      if (reached) return { pass };
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error(`no delivery pass reached ${count} requests`);
  }

  /** A metric's value for one stream label (undefined when absent). */
  async metric(name: string, labels: Record<string, string>): Promise<number | undefined> {
    const text = (await request(this.url).get('/metrics')).text;
    const line = text
      .split('\n')
      .find((l) => l.startsWith(`${name}{`) && Object.entries(labels).every(([k, v]) => l.includes(`${k}="${v}"`)));
    return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
  }

  /** As a graceful shutdown: the worker, the sink's connections, then the database. */
  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeAllConnections();
    await closed;
    await this.identity.lifecycle.runClosers((name, err) => {
      throw new Error(`closer ${name} failed: ${String(err)}`);
    });
  }
}

export { RecordingServer };
