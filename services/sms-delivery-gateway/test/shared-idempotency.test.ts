import { randomUUID } from 'node:crypto';
import { HttpError } from '@smsauth/service-kit';
import { Redis } from 'ioredis';
import { SharedIdempotencyStore } from '../src/domain/idempotency';
import type { IdempotencyRecords } from '../src/store/idempotency-records';
import { RedisIdempotencyRecords } from '../src/store/redis-store';
import { captureLogs } from './support/logs';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A gate a task waits on until the test opens it. */
function gate(): { wait: Promise<void>; open: () => void } {
  let open!: () => void;
  const wait = new Promise<void>((resolve) => (open = resolve));
  return { wait, open };
}

describe('SharedIdempotencyStore on Redis (two replicas, one Redis)', () => {
  let redis: Redis;
  let prefix: string;
  beforeAll(() => {
    redis = new Redis(REDIS_URL);
  });
  afterAll(async () => {
    await redis.quit();
  });
  beforeEach(() => {
    prefix = `test:${randomUUID()}:`;
  });

  /** A replica's store; `onInFlight` is told each time a claim finds the key in flight elsewhere. */
  function replica(options: { onInFlight?: () => void; maxWaitMs?: number } = {}) {
    const records = new RedisIdempotencyRecords<string>(redis, prefix);
    const watched: IdempotencyRecords<string> = {
      claim: async (...args) => {
        const found = await records.claim(...args);
        if (found?.state === 'in_flight') options.onInFlight?.();
        return found;
      },
      complete: (...args) => records.complete(...args),
      release: (...args) => records.release(...args),
      extend: (...args) => records.extend(...args),
      completeIfAbsent: (...args) => records.completeIfAbsent(...args),
    };
    return new SharedIdempotencyStore<string>(watched, { inFlightTtlMs: 60_000, logger: captureLogs().logger, ...options });
  }

  it('makes a duplicate that finds the key in flight wait for the first outcome instead of sending', async () => {
    const sending = gate();
    const seenInFlight = gate();
    const a = replica();
    const b = replica({ onInFlight: seenInFlight.open });
    const taskB = jest.fn(async () => 'second send');

    const first = a.run('key', 'fp', async () => {
      await sending.wait;
      return 'sent once';
    });
    // Only once A holds the key does B start (one connection: A's SET ran before this EXISTS),
    // and only once B saw it in flight does A finish.
    await redis.exists(`${prefix}idempotency:key`).then((n) => expect(n).toBe(1));
    const second = b.run('key', 'fp', taskB);
    await seenInFlight.wait;
    sending.open();

    expect(await first).toEqual({ outcome: 'sent once', replayed: false });
    expect(await second).toEqual({ outcome: 'sent once', replayed: true });
    expect(taskB).not.toHaveBeenCalled();
  });

  it('answers 422 for the key reused with another message, in flight or done', async () => {
    const sending = gate();
    const a = replica();
    const first = a.run('key', 'fp-1', async () => {
      await sending.wait;
      return 'x';
    });
    await expect(replica().run('key', 'fp-2', async () => 'y')).rejects.toMatchObject({ status: 422 });
    sending.open();
    await first;
    await expect(replica().run('key', 'fp-2', async () => 'y')).rejects.toMatchObject({ status: 422 });
  });

  it('forgets the key when the task throws, so another replica can send', async () => {
    await expect(replica().run('key', 'fp', async () => Promise.reject(new Error('bug')))).rejects.toThrow('bug');
    expect(await replica().run('key', 'fp', async () => 'sent')).toEqual({ outcome: 'sent', replayed: false });
  });

  it('answers 409 instead of waiting past its limit for a delivery in flight elsewhere', async () => {
    const sending = gate();
    const first = replica().run('key', 'fp', async () => {
      await sending.wait;
      return 'x';
    });
    await redis.exists(`${prefix}idempotency:key`).then((n) => expect(n).toBe(1));
    const error = await replica({ maxWaitMs: 0 })
      .run('key', 'fp', async () => 'y')
      .catch((err: unknown) => err);
    expect(error).toBeInstanceOf(HttpError);
    expect(error).toMatchObject({ status: 409 });
    sending.open();
    await first;
  });
});
