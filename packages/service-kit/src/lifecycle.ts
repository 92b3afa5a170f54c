/**
 * A readiness check resolves when its dependency is usable and throws when it is not. It may
 * resolve with a detail instead of "ok" (say, "degraded: …") when the service still serves
 * without that dependency: the service stays ready and /readyz shows the detail.
 */
export type ReadinessCheck = () => Promise<void | string> | void | string;
export type Closer = () => Promise<void> | void;

/**
 * Shared state between the health endpoints and graceful shutdown: once shutdown begins,
 * readiness fails so load balancers stop routing here before the server closes.
 */
export class Lifecycle {
  private readonly checks = new Map<string, ReadinessCheck>();
  private readonly closers: Array<{ name: string; close: Closer }> = [];
  private shuttingDown = false;

  addReadinessCheck(name: string, check: ReadinessCheck): this {
    this.checks.set(name, check);
    return this;
  }

  /** Closers run in reverse registration order once in-flight requests finish. */
  addCloser(name: string, close: Closer): this {
    this.closers.push({ name, close });
    return this;
  }

  get isShuttingDown(): boolean {
    return this.shuttingDown;
  }

  beginShutdown(): void {
    this.shuttingDown = true;
  }

  async checkReadiness(timeoutMs = 2000): Promise<{ ready: boolean; checks: Record<string, string> }> {
    const results: Record<string, string> = {};
    let ready = !this.shuttingDown;
    await Promise.all(
      [...this.checks].map(async ([name, check]) => {
        try {
          const detail = await withTimeout(Promise.resolve().then(check), timeoutMs);
          results[name] = typeof detail === 'string' ? detail : 'ok';
        } catch (err) {
          ready = false;
          results[name] = err instanceof Error ? err.message : String(err);
        }
      }),
    );
    return { ready, checks: results };
  }

  async runClosers(onError: (name: string, err: unknown) => void): Promise<void> {
    for (const { name, close } of [...this.closers].reverse()) {
      try {
        await close();
      } catch (err) {
        onError(name, err);
      }
    }
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
