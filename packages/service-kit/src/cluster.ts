import cluster, { type Worker } from 'node:cluster';
import type { Logger } from './logger';

export interface ClusterPrimaryOptions {
  /** How many worker processes to keep running (>= 2 makes sense; 1 works too). */
  workers: number;
  logger: Logger;
  /** Script the workers run; defaults to the primary's own script (process.argv[1]). */
  exec?: string;
  /** Extra environment for the workers. */
  env?: Record<string, string>;
  /** Install SIGTERM/SIGINT handlers that drain the workers and exit (runService sets this). */
  handleSignals?: boolean;
  /** Called once every worker has exited after a shutdown; defaults to process.exit. */
  exit?: (code: number) => void;
  /** How long workers get to drain before they are killed (their own drain takes up to 10 s). */
  shutdownTimeoutMs?: number;
  /** First delay before replacing a crashed worker; doubles while workers keep crashing early. */
  restartDelayMs?: number;
}

export interface ClusterHandle {
  /** Worker pids right now. */
  pids(): number[];
  /** Resolves once every initial worker is listening. */
  ready: Promise<void>;
  /** SIGTERM to every worker (each drains), then resolves with 0 if all exited cleanly, else 1. */
  shutdown(): Promise<number>;
}

/** A worker that dies sooner than this after its start counts as crashing early. */
const EARLY_CRASH_MS = 5_000;
const MAX_RESTART_DELAY_MS = 30_000;

/**
 * The primary of a `WEB_CONCURRENCY` > 1 service: forks N workers that share the listening
 * port (node:cluster hands connections out round-robin), replaces crashed workers (with a
 * growing delay while they keep crashing at start), and on SIGTERM/SIGINT forwards SIGTERM so
 * each worker drains its in-flight requests, exiting once they all have.
 */
export function runClusterPrimary(options: ClusterPrimaryOptions): ClusterHandle {
  const { logger } = options;
  const baseDelay = options.restartDelayMs ?? 500;
  const shutdownTimeoutMs = options.shutdownTimeoutMs ?? 15_000;
  cluster.setupPrimary({ ...(options.exec ? { exec: options.exec } : {}) });

  const live = new Set<Worker>();
  const startedAt = new Map<Worker, number>();
  let shuttingDown = false;
  let restartDelay = baseDelay;
  let restartTimers: NodeJS.Timeout[] = [];
  let failedExits = 0;
  let allExited: () => void = () => undefined;
  const exitedPromise = new Promise<void>((resolve) => (allExited = resolve));

  const fork = (): Worker => {
    const worker = cluster.fork({ ...options.env });
    live.add(worker);
    startedAt.set(worker, Date.now());
    worker.on('exit', (code, signal) => onExit(worker, code, signal));
    return worker;
  };

  const onExit = (worker: Worker, code: number | null, signal: string | null): void => {
    live.delete(worker);
    const lived = Date.now() - (startedAt.get(worker) ?? 0);
    startedAt.delete(worker);
    if (shuttingDown) {
      if (code !== 0) failedExits += 1;
      logger.info({ pid: worker.process.pid, code, signal }, 'worker exited');
      if (live.size === 0) allExited();
      return;
    }
    restartDelay = lived < EARLY_CRASH_MS ? Math.min(restartDelay * 2, MAX_RESTART_DELAY_MS) : baseDelay;
    const delayMs = lived < EARLY_CRASH_MS ? restartDelay : 0;
    logger.error({ pid: worker.process.pid, code, signal, restartInMs: delayMs }, 'worker died; starting a replacement');
    const timer = setTimeout(() => {
      restartTimers = restartTimers.filter((t) => t !== timer);
      if (!shuttingDown) fork();
    }, delayMs);
    restartTimers.push(timer);
  };

  const initial = Array.from({ length: options.workers }, fork);
  const ready = Promise.all(
    initial.map(
      (worker) =>
        new Promise<void>((resolve, reject) => {
          worker.once('listening', () => resolve());
          worker.once('exit', (code) => reject(new Error(`worker ${worker.process.pid} exited with code ${code} before listening`)));
        }),
    ),
  ).then(() => logger.info({ workers: options.workers }, 'all workers listening'));
  // The caller may not await readiness; a failing start is logged by the exit handler anyway.
  ready.catch(() => undefined);

  let shutdownPromise: Promise<number> | undefined;
  const shutdown = (): Promise<number> => {
    shutdownPromise ??= (async () => {
      shuttingDown = true;
      for (const timer of restartTimers) clearTimeout(timer);
      restartTimers = [];
      if (live.size === 0) return 0;
      for (const worker of live) worker.process.kill('SIGTERM');
      const killer = setTimeout(() => {
        logger.warn({ shutdownTimeoutMs, workers: live.size }, 'workers did not exit in time; killing them');
        for (const worker of live) worker.process.kill('SIGKILL');
      }, shutdownTimeoutMs);
      await exitedPromise;
      clearTimeout(killer);
      logger.info({ failedExits }, 'all workers exited');
      return failedExits === 0 ? 0 : 1;
    })();
    return shutdownPromise;
  };

  if (options.handleSignals) {
    const exit = options.exit ?? ((code: number) => process.exit(code));
    const onSignal = (signal: NodeJS.Signals) => {
      logger.info({ signal, workers: live.size }, 'shutdown requested; draining workers');
      void shutdown().then(exit);
    };
    process.once('SIGTERM', onSignal);
    process.once('SIGINT', onSignal);
  }

  return {
    pids: () => [...live].map((worker) => worker.process.pid).filter((pid): pid is number => pid !== undefined),
    ready,
    shutdown,
  };
}
