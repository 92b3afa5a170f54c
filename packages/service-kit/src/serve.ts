import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import type { Lifecycle } from './lifecycle';
import type { Logger } from './logger';

export interface ServeOptions {
  port: number;
  host?: string;
  logger: Logger;
  lifecycle: Lifecycle;
  /** How long in-flight requests may take to finish once shutdown begins. */
  shutdownTimeoutMs?: number;
  /** Install SIGTERM/SIGINT handlers that shut down and exit (main.ts sets this). */
  handleSignals?: boolean;
  /** Called after a signal-driven shutdown; defaults to process.exit. */
  exit?: (code: number) => void;
}

export interface ServerHandle {
  server: Server;
  url: string;
  port: number;
  /** Graceful shutdown: readiness fails, stop accepting, drain, run closers. */
  shutdown(): Promise<void>;
}

export async function serve(app: Express, options: ServeOptions): Promise<ServerHandle> {
  const { logger, lifecycle } = options;
  const host = options.host ?? '0.0.0.0';
  const server = app.listen(options.port, host);
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  // Keep-alive longer than typical load balancer idle timeouts, to avoid racing resets.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;

  const address = server.address() as AddressInfo;
  const urlHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  const url = `http://${urlHost}:${address.port}`;

  let shutdownPromise: Promise<void> | undefined;
  const shutdown = (): Promise<void> => {
    shutdownPromise ??= drainAndClose(server, lifecycle, logger, options.shutdownTimeoutMs ?? 10_000);
    return shutdownPromise;
  };

  if (options.handleSignals) {
    const exit = options.exit ?? ((code: number) => process.exit(code));
    const onSignal = (signal: NodeJS.Signals) => {
      logger.info({ signal }, 'shutdown requested');
      shutdown().then(
        () => exit(0),
        (err: unknown) => {
          logger.error({ err }, 'shutdown failed');
          exit(1);
        },
      );
    };
    process.once('SIGTERM', onSignal);
    process.once('SIGINT', onSignal);
  }

  logger.info({ url }, 'listening');
  return { server, url, port: address.port, shutdown };
}

async function drainAndClose(server: Server, lifecycle: Lifecycle, logger: Logger, timeoutMs: number): Promise<void> {
  lifecycle.beginShutdown();
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  // Idle keep-alive sockets would hold close() open; in-flight ones close after their response.
  server.closeIdleConnections();
  const sweeper = setInterval(() => server.closeIdleConnections(), 50);
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), timeoutMs);
  });
  const outcome = await Promise.race([closed.then(() => 'drained' as const), timedOut]);
  clearInterval(sweeper);
  clearTimeout(timer);
  if (outcome === 'timeout') {
    logger.warn({ timeoutMs }, 'in-flight requests did not finish in time; closing connections');
    server.closeAllConnections();
    await closed;
  }
  await lifecycle.runClosers((name, err) => logger.error({ err, closer: name }, 'closer failed'));
  logger.info('shutdown complete');
}
