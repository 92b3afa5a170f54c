import type { Express } from 'express';
import type { z } from 'zod';
import { loadConfigOrExit } from './config';
import type { Lifecycle } from './lifecycle';
import { createLogger, type Logger } from './logger';
import { serve, type ServerHandle } from './serve';

interface BaseConfig {
  PORT: number;
  HOST: string;
  LOG_LEVEL: string;
}

export interface RunServiceOptions<S extends z.ZodType<BaseConfig>> {
  name: string;
  configSchema: S;
  /** Fields to redact from logs besides the kit's defaults. */
  redact?: readonly string[];
  /** Builds the app from config (opens stores, loads data); may register closers. */
  build: (config: z.output<S>, logger: Logger) => Promise<{ app: Express; lifecycle: Lifecycle }>;
  env?: Record<string, string | undefined>;
}

/** What every main.ts does: config, logger, build, listen, drain on SIGTERM/SIGINT. */
export async function runService<S extends z.ZodType<BaseConfig>>(options: RunServiceOptions<S>): Promise<ServerHandle> {
  const config = loadConfigOrExit(options.configSchema, options.env ?? process.env);
  const logger = createLogger({ name: options.name, level: config.LOG_LEVEL, redact: options.redact });
  try {
    const { app, lifecycle } = await options.build(config, logger);
    return await serve(app, { port: config.PORT, host: config.HOST, logger, lifecycle, handleSignals: true });
  } catch (err) {
    logger.fatal({ err }, 'failed to start');
    process.exit(1);
  }
}
