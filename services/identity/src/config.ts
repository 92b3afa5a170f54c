import { env } from '@smsauth/service-kit';
import { z } from 'zod';

/** Environment of the identity service; parsed once at start. */
export const configSchema = z.object({
  PORT: env.port(4000),
  HOST: env.host(),
  LOG_LEVEL: env.logLevel(),
  NODE_ENV: env.nodeEnv(),
});

export type Config = z.output<typeof configSchema>;
