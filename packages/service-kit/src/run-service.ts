import cluster from 'node:cluster';
import type { Express } from 'express';
import type { z } from 'zod';
import { runClusterPrimary, type ClusterHandle } from './cluster';
import { loadConfigOrExit, secretVariablesOf } from './config';
import type { Lifecycle } from './lifecycle';
import { createLogger, defaultLogFormat, type LogFormat, type Logger } from './logger';
import { serve, type ServerHandle } from './serve';

interface BaseConfig {
  PORT: number;
  HOST: string;
  LOG_LEVEL: string;
  /** `env.logFormat()`; unset: pretty on a terminal outside production, JSON elsewhere. */
  LOG_FORMAT?: LogFormat;
  NODE_ENV?: string;
  /** Worker processes sharing the port (`env.webConcurrency()`); absent or 1 means no cluster. */
  WEB_CONCURRENCY?: number;
}

export interface RunServiceOptions<S extends z.ZodType<BaseConfig>> {
  name: string;
  configSchema: S;
  /** Fields to redact from logs besides the kit's defaults and the schema's secret variables. */
  redact?: readonly string[];
  /** Builds the app from config (opens stores, loads data); may register closers. */
  build: (config: z.output<S>, logger: Logger) => Promise<{ app: Express; lifecycle: Lifecycle }>;
  env?: Record<string, string | undefined>;
  /** Overrides the config's WEB_CONCURRENCY. */
  webConcurrency?: number;
}

/**
 * What every main.ts does: config, logger, build, listen, drain on SIGTERM/SIGINT. With
 * WEB_CONCURRENCY = N > 1 this process becomes a cluster primary that only supervises N
 * workers (each running this same main.ts, so each builds its own app and listens on the
 * shared port); the result is then the cluster's handle instead of a server's.
 */
export async function runService<S extends z.ZodType<BaseConfig>>(
  options: RunServiceOptions<S>,
): Promise<ServerHandle | ClusterHandle> {
  const config = loadConfigOrExit(options.configSchema, options.env ?? process.env);
  const format = config.LOG_FORMAT ?? defaultLogFormat({ nodeEnv: config.NODE_ENV ?? process.env.NODE_ENV });
  // A field named after a secret variable never reaches a log line, whatever logs it.
  const redact = [...new Set([...(options.redact ?? []), ...secretVariablesOf(options.configSchema)])];
  const logger = createLogger({ name: options.name, level: config.LOG_LEVEL, redact, format });
  const workers = options.webConcurrency ?? config.WEB_CONCURRENCY ?? 1;
  if (workers > 1 && cluster.isPrimary) {
    logger.info({ workers, port: config.PORT }, 'starting workers');
    return runClusterPrimary({ workers, logger, handleSignals: true });
  }
  try {
    const { app, lifecycle } = await options.build(config, logger);
    return await serve(app, { port: config.PORT, host: config.HOST, logger, lifecycle, handleSignals: true });
  } catch (err) {
    logger.fatal({ err }, 'failed to start');
    process.exit(1);
  }
}
