import { env } from '@smsauth/service-kit';
import { z } from 'zod';
// GATEWAY_URL_POLICY: where a connection's `gateway_url` may point; the policies are defined
// (and enforced) where they are enforced.
import { GATEWAY_URL_POLICIES, type GatewayUrlPolicy } from './domain/gateway-url-policy';
import { canonicalPhoneNumber, problemText } from './domain/phone/canonical-number';

/**
 * Environment fields of the passwordless flow, spread into configSchema below.
 * GATEWAY_URL_POLICY's default depends on NODE_ENV, which a field default cannot see;
 * withGatewayUrlPolicyDefault fills it in.
 */
export const passwordlessConfigShape = {
  GATEWAY_URL_POLICY: z.enum(GATEWAY_URL_POLICIES, { message: 'must be public or any' }).optional().meta({
    defaultText: '`public` in production, else `any`',
    description:
      '`public` refuses connection `gateway_url`s (and log stream `sink.httpEndpoint`s, at every delivery) that resolve to loopback, private, link-local, metadata, unspecified or multicast addresses, at connection create/update (400) and again at send time after DNS resolution (400 `sms_provider_error`). `any` allows them (local development, tests, compose networks). Redirects are never followed under either.',
  }),
  GATEWAY_TIMEOUT_MS: env.positiveInt(30_000).meta({ description: 'Timeout of a delivery to the SMS gateway.' }),
  PASSWORDLESS_START_LIMIT_PER_IP_PER_HOUR: env.positiveInt(50).meta({ description: '`/passwordless/start` calls per client IP per hour.' }),
  PASSWORDLESS_START_LIMIT_PER_PHONE_PER_HOUR: env.positiveInt(10).meta({ description: '`/passwordless/start` calls per phone number per hour.' }),
  BRUTE_FORCE_THRESHOLD: env.positiveInt(10).meta({
    description:
      'Failed code exchanges for one number from one IP before that IP is blocked for it (connections with `brute_force_protection`). The 100-consecutive-failure lock of a number is fixed.',
  }),
  BRUTE_FORCE_BLOCK_SECONDS: env.positiveInt(86_400).meta({ description: 'How long such a block lasts unless an admin lifts it.' }),
  /** Connection test numbers (fixed code, no SMS) also when NODE_ENV=production; see testNumbersAllowed. */
  ALLOW_TEST_NUMBERS: env.boolean(false).meta({
    description:
      '`true` lets connections\' `sms_test_numbers` (fixed code, no SMS) work when `NODE_ENV=production`; elsewhere they always work. Without it a production instance refuses to write them (400 naming `options.sms_test_numbers`) and refuses a start to one (400 `bad.phone_number`).',
  }),
};

/** Test numbers log in with a fixed code: everywhere but production, where ALLOW_TEST_NUMBERS=true must say so. */
export function testNumbersAllowed(config: { NODE_ENV?: string; ALLOW_TEST_NUMBERS: boolean }): boolean {
  return config.NODE_ENV !== 'production' || config.ALLOW_TEST_NUMBERS;
}

/** `public` in production, `any` elsewhere (local development, tests, compose networks). */
export function defaultGatewayUrlPolicy(nodeEnv: string | undefined): GatewayUrlPolicy {
  return nodeEnv === 'production' ? 'public' : 'any';
}

export function withGatewayUrlPolicyDefault<T extends { NODE_ENV?: string; GATEWAY_URL_POLICY?: GatewayUrlPolicy | undefined }>(
  config: T,
): Omit<T, 'GATEWAY_URL_POLICY'> & { GATEWAY_URL_POLICY: GatewayUrlPolicy } {
  return { ...config, GATEWAY_URL_POLICY: config.GATEWAY_URL_POLICY ?? defaultGatewayUrlPolicy(config.NODE_ENV) };
}

/** The passwordless fields on their own (with NODE_ENV), e.g. for tests. */
export const passwordlessConfigSchema = z
  .object({ NODE_ENV: env.nodeEnv(), ...passwordlessConfigShape })
  .transform(withGatewayUrlPolicyDefault);
export type PasswordlessConfig = z.output<typeof passwordlessConfigSchema>;

/** Log stream delivery (domain/log-streams): how often, how much, how long, how persistent. */
export const logStreamConfigShape = {
  LOG_STREAM_POLL_MS: env
    .positiveInt(1000)
    .pipe(z.number().max(3_600_000, { message: 'must be at most 3600000' }))
    .meta({ description: 'How often the log stream worker looks for records to deliver when no stream has a full batch waiting (up to 3600000).' }),
  STATS_ROLLUP_INTERVAL_MS: env
    .positiveInt(60_000)
    .pipe(z.number().max(3_600_000, { message: 'must be at most 3600000' }))
    .meta({
      description:
        'How often the tenant log records the figures count (`GET /api/v2/stats/*`) are rolled up into hourly counts (up to 3600000). The figures are exact either way; records not yet rolled up are counted from the log, which is slower.',
    }),
  USER_JOB_POLL_MS: env
    .positiveInt(2000)
    .pipe(z.number().max(3_600_000, { message: 'must be at most 3600000' }))
    .meta({ description: 'How often the user job worker looks for a pending bulk import or export when none was waiting (up to 3600000).' }),
  USER_IMPORT_BATCH_SIZE: env
    .positiveInt(1000)
    .pipe(z.number().max(10_000, { message: 'must be at most 10000' }))
    .meta({ description: 'Users a bulk import writes per transaction (up to 10000): each batch commits with the job\'s progress.' }),
  LOG_STREAM_BATCH_SIZE: env
    .positiveInt(100)
    .pipe(z.number().max(1000, { message: 'must be at most 1000' }))
    .meta({ description: 'Events per log stream request (1 to 1000; `JSONOBJECT` streams send one per request).' }),
  LOG_STREAM_TIMEOUT_MS: env
    .positiveInt(10_000)
    .pipe(z.number().min(100).max(120_000, { message: 'must be from 100 to 120000' }))
    .meta({
      description: 'Deadline of one log stream POST (100 to 120000); the delivery lease (5 s) is renewed while the POST runs, up to this deadline.',
    }),
  BACKCHANNEL_LOGOUT_POLL_MS: env
    .positiveInt(1000)
    .pipe(z.number().max(3_600_000, { message: 'must be at most 3600000' }))
    .meta({ description: 'How often the back-channel logout worker looks for logout_tokens to deliver when none was waiting (up to 3600000).' }),
  BACKCHANNEL_LOGOUT_TIMEOUT_MS: env
    .positiveInt(5000)
    .pipe(z.number().min(100).max(30_000, { message: 'must be from 100 to 30000' }))
    .meta({ description: 'Deadline of one logout_token POST to a client\'s back-channel logout URL (100 to 30000); redirects are never followed.' }),
  BACKCHANNEL_LOGOUT_RETRY_SECONDS: env
    .positiveInt(3600)
    .pipe(z.number().max(604_800, { message: 'must be at most 604800' }))
    .meta({
      description:
        'How long after a session ended a failed logout_token delivery is still retried (up to 604800). Retries start 5 s after a failure and double up to 5 minutes apart.',
    }),
  LOG_STREAM_MAX_FAILURES: env
    .positiveInt(10)
    .pipe(z.number().max(1000, { message: 'must be at most 1000' }))
    .meta({ description: 'Failed deliveries in a row after which a log stream is suspended (1 to 1000).' }),
  LOG_STREAM_BACKOFF_MS: env
    .positiveInt(1000)
    .pipe(z.number().max(3_600_000, { message: 'must be at most 3600000' }))
    .meta({ description: 'Delay before retrying a failed log stream delivery, doubled per consecutive failure (up to 3600000).' }),
  LOG_STREAM_MAX_BACKOFF_MS: env
    .positiveInt(300_000)
    .pipe(z.number().max(86_400_000, { message: 'must be at most 86400000' }))
    .meta({ description: 'The longest retry delay (up to 86400000).' }),
};

/**
 * What identity sets up by itself at every start besides the management API (domain/bootstrap*):
 * a declarative tenant file and the first operator. docs/tenant-file.md, docs/rbac.md.
 */
export const tenantBootstrapConfigShape = {
  TENANT_FILE: env
    .optionalString()
    .meta({
      description:
        'Path of a tenant file (JSON, or YAML when it ends in `.yaml`/`.yml`): `connections`, `clients`, `resource_servers`, `roles` and `client_grants` in the management API\'s shapes, created or updated at every start (by name; `identifier` for APIs, `client_id` when given), through the same validation as the API; nothing it does not name is changed or deleted. `${NAME}` in a string is the variable `NAME` of the environment (or the file `NAME_FILE` names). Anything invalid stops the start with a message naming the file, the entry and the field. docs/tenant-file.md.',
    }),
  FIRST_OPERATOR_PHONE_NUMBER: env
    .optionalString()
    .transform((value, ctx) => {
      if (value === undefined) return undefined;
      const parsed = canonicalPhoneNumber(value);
      if (parsed.ok) return parsed.number.e164;
      ctx.addIssue({ code: 'custom', message: problemText(parsed).replace(/^phone_number /, '') });
      return z.NEVER;
    })
    .meta({
      description:
        'A number (E.164) made an operator at every start: the user of `FIRST_OPERATOR_CONNECTION` with this number (created when missing) holds the roles of `FIRST_OPERATOR_ROLE`, and the console\'s client is enabled on that connection. They sign in to `/console` with a code sent to the number; there is no password. Roles taken from the user through the API come back at the next start while this is set. docs/rbac.md.',
    }),
  FIRST_OPERATOR_ROLE: z
    .string()
    .default('Admin')
    .transform((value) => value.split(',').map((name) => name.trim()).filter((name) => name !== ''))
    .pipe(z.array(z.string().max(50, { message: 'a role name has at most 50 characters' })).min(1, { message: 'must name a role' }))
    .meta({
      defaultText: '`Admin`',
      description:
        'The roles (comma-separated names, case-insensitive) of the first operator: the built-in `Admin`, `Support` and `Viewer`, or a role of `TENANT_FILE`. An unknown name stops the start with the list of roles.',
    }),
  FIRST_OPERATOR_CONNECTION: z
    .string()
    .min(1)
    .default('sms')
    .meta({
      description:
        'The SMS connection of the first operator. It must exist (from `TENANT_FILE` or created through the API before): otherwise the start stops, saying so.',
    }),
};

/**
 * The variables a tenant file's `${NAME}` may name: the process environment, read here because
 * config.ts alone reads it.
 */
export function tenantFileVariables(): Readonly<Record<string, string | undefined>> {
  return process.env;
}

const MIN_SECRET_LENGTH = 32;

/** Environment of the identity service; parsed once at start. */
export const configSchema = z
  .object({
    PORT: env.port(4000),
    HOST: env.host(),
    LOG_LEVEL: env.logLevel(),
    LOG_FORMAT: env.logFormat(),
    NODE_ENV: env.nodeEnv().meta({
      description:
        '`production` turns on the production safeguards (`KEY_ENCRYPTION_SECRET` required, `GATEWAY_URL_POLICY=public`, connection test numbers refused unless `ALLOW_TEST_NUMBERS=true`).',
    }),
    /** GET /docs, the API reference page: on unless NODE_ENV=production; API_DOCS=true|false decides. */
    API_DOCS: env.apiDocs(),
    /** GET /console, the operator console (packages/console's build). */
    CONSOLE: env.boolean(true).meta({
      description:
        '`true` or `false`: serve the operator console (the built `packages/console` single-page app) at `/console`, under its own strict CSP. It signs operators in through the hosted login with its SPA client, called back at `{AUTH_URL}/console/callback`, which identity creates at every start while this is `true`; docs/console.md.',
    }),
    /** Public base URL; the issuer is `${AUTH_URL}/`. Default http://localhost:{PORT}. */
    AUTH_URL: env
      .url()
      .optional()
      .transform((v) => v?.replace(/\/$/, ''))
      .meta({
        defaultText: '`http://localhost:{PORT}`',
        description:
          'Public base URL, without trailing slash (one is stripped). Tokens carry `iss` = `{AUTH_URL}/`; the management API audience is `{AUTH_URL}/api/v2/`.',
      }),
    DATABASE_URL: z
      .string()
      .regex(/^(postgres(ql)?:\/\/|pglite:.|memory:\/\/)/, {
        message: 'must be postgres://..., postgresql://..., pglite:<directory> or memory://',
      })
      .default('pglite:.data/identity')
      .meta({
        secret: true,
        description:
          '`postgres://…` / `postgresql://…` (PostgreSQL), `pglite:<directory>` (embedded PostgreSQL persisted in the directory, created if missing) or `memory://` (embedded, lost on exit).',
      }),
    PGLITE_SNAPSHOT_DIR: env.optionalString().meta({
      description:
        'Embedded databases only (`memory://`, or a `pglite:` directory that holds no database yet): a directory where the first new database, once migrated, is kept as a snapshot, and from which every later new database starts (well under a second instead of initdb and every migration). The snapshot\'s file name is a hash of PGlite\'s version, the schema and the migrations, so a changed migration never uses a stale one. The test suite sets it; useful wherever empty embedded databases are started often (previews, CI).',
    }),
    /** PostgreSQL: the most connections each process's pool opens. */
    DATABASE_POOL_SIZE: z.coerce
      .number()
      .int()
      .min(1)
      .max(1000)
      .default(10)
      .meta({
        description:
          'PostgreSQL only: the most connections one identity process opens for requests (1-1000), besides the one that `LISTEN`s for the M2M cache. A request that finds them all busy waits for one, up to 5 s, then answers 503. Size it so that (this + 1) x `WEB_CONCURRENCY` x replicas stays under PostgreSQL\'s `max_connections` (docs/production.md, "PostgreSQL").',
      }),
    /** PostgreSQL: named prepared statements (parsed and planned once per connection). */
    DATABASE_PREPARED_STATEMENTS: env.boolean(true).meta({
      description:
        'PostgreSQL only: send each statement as a named prepared statement, so each pool connection parses and plans it once (about a third less PostgreSQL CPU per login, BENCHMARKS.md section 4). Set `false` behind a pooler that cannot keep prepared statements across transactions (PgBouncer in transaction mode before 1.21, or without `max_prepared_statements`).',
    }),
    /**
     * How long the client_credentials lookups (client, API, grant, keys), and the client and API of
     * the user-token endpoints, may be served from this process's cache; every management write empties it on every replica (LISTEN/NOTIFY), so this
     * only bounds a miss of that. 0 disables the cache.
     */
    M2M_CACHE_TTL_MS: z.coerce
      .number({ message: 'must be a whole number of milliseconds from 0 to 60000' })
      .int({ message: 'must be a whole number of milliseconds from 0 to 60000' })
      .min(0, { message: 'must be a whole number of milliseconds from 0 to 60000' })
      .max(60_000, { message: 'must be a whole number of milliseconds from 0 to 60000' })
      .default(5_000)
      .meta({
        description:
          '0..60000. How long a process may serve the `client_credentials` lookups (client, API, grant, `private_key_jwt` keys), and the client and API of the user-token endpoints (code exchange, refresh, `/authorize`), from memory. Every write to them empties the cache of every instance at once (PostgreSQL `LISTEN/NOTIFY`, see "The M2M lookup cache" in docs/identity.md); the TTL only bounds how long a change could go unseen if the listening connection hung without dropping. `0` turns the cache off (every token reads the database).',
      }),
    ADMIN_CLIENT_ID: env
      .optionalString()
      .pipe(z.string().regex(/^[\w.-]{1,128}$/, { message: 'must be 1-128 letters, digits, _, . or -' }).optional())
      .meta({
        description:
          'With `ADMIN_CLIENT_SECRET`: the management admin client, created or updated at every start with every management scope. Both or neither. 1-128 letters, digits, `_`, `.` or `-`.',
      }),
    ADMIN_CLIENT_SECRET: env
      .optionalString()
      .pipe(z.string().min(MIN_SECRET_LENGTH, { message: `must be at least ${MIN_SECRET_LENGTH} characters` }).optional())
      .meta({
        secret: true,
        description:
          'At least 32 characters, or the service refuses to start. Without the pair, an admin client is generated on the first start and its credentials printed once to stdout (`pnpm start` always sets the pair: it keeps them in `.data/stack.json`).',
      }),
    KEY_ENCRYPTION_SECRET: env
      .optionalString()
      .pipe(z.string().min(MIN_SECRET_LENGTH, { message: `must be at least ${MIN_SECRET_LENGTH} characters` }).optional())
      .meta({
        secret: true,
        description:
          'At least 32 characters. Encrypts signing private keys, gateway secrets, one-time-code secrets and log streams\' authorization headers and signing secrets at rest (AES-256-GCM, key derived with HKDF-SHA256). Required when `NODE_ENV=production`. Changed on its own, the values sealed with the old one cannot be opened and the service refuses to start: rotate it with `KEY_ENCRYPTION_FALLBACK_SECRET` and `smsauth-identity keys rotate-secret` (docs/production.md, "Rotating KEY_ENCRYPTION_SECRET").',
      }),
    KEY_ENCRYPTION_FALLBACK_SECRET: env
      .optionalString()
      .pipe(z.string().min(MIN_SECRET_LENGTH, { message: `must be at least ${MIN_SECRET_LENGTH} characters` }).optional())
      .meta({
        secret: true,
        description:
          'A second secret that opens values sealed with it but never seals: the previous `KEY_ENCRYPTION_SECRET` while `smsauth-identity keys rotate-secret` reseals everything with the new one (or, in the first step of a rotation across several replicas, the next one). Needs `KEY_ENCRYPTION_SECRET`; remove it once the rotation is done.',
      }),
    /** Tenant log records (GET /api/v2/logs, log streams) older than this many days are pruned. */
    LOG_RETENTION_DAYS: env.positiveInt(30).meta({
      description: 'Tenant log records (`GET /api/v2/logs`) older than this many days are deleted (in batches, every 10 minutes).',
    }),
    /**
     * false: no tenant log records are written. Only for measuring what recording costs
     * (bench/benchmarks/login.mjs); an identity without them has no audit trail.
     */
    TENANT_LOG_RECORDING: env.boolean(true).meta({
      description:
        '`false` writes no tenant log records: only for measuring what recording costs (`pnpm bench login-logs`). An identity with `false` has no audit trail.',
    }),
    /** A login session unused this long ends (each silent or single sign-on use extends it); Auth0's default, 3 days. */
    SESSION_IDLE_LIFETIME_SECONDS: env.positiveInt(259_200).meta({
      defaultText: '`259200` (3 days)',
      description:
        'A hosted-login session not used for this long ends (each single sign-on or silent authentication extends it, never past the absolute lifetime).',
    }),
    /** A login session ends this long after the SMS login, however much it is used; Auth0's default, 7 days. */
    SESSION_ABSOLUTE_LIFETIME_SECONDS: env.positiveInt(604_800).meta({
      defaultText: '`604800` (7 days)',
      description:
        'A hosted-login session ends this long after its SMS login, however much it is used; also the session cookie\'s `Max-Age`.',
    }),
    /** How long an authorization code may wait for its exchange at /oauth/token (RFC 6749 §4.1.2: short, at most 10 minutes). */
    AUTHORIZATION_CODE_LIFETIME_SECONDS: env
      .positiveInt(60)
      .pipe(z.number().max(600, { message: 'must be at most 600' }))
      .meta({ description: 'How long an authorization code may wait for its exchange at `/oauth/token` (at most 600).' }),
    TRUST_PROXY: env.trustProxy().meta({
      description:
        'Express trust-proxy setting (`true`, hop count, or addresses/CIDRs): which client address counts behind proxies (rate limits, brute-force protection).',
    }),
    WEB_CONCURRENCY: env.webConcurrency().meta({
      description:
        'Worker processes sharing the port (node:cluster; 1 to 64). More than 1 requires `DATABASE_URL=postgres://...`: an embedded database belongs to one process, so it is refused with a message saying so. Codes, counters and limits live in PostgreSQL, so workers (and replicas) share them.',
    }),
    ...passwordlessConfigShape,
    ...logStreamConfigShape,
    ...tenantBootstrapConfigShape,
  })
  .superRefine((config, ctx) => {
    if (Boolean(config.ADMIN_CLIENT_ID) !== Boolean(config.ADMIN_CLIENT_SECRET)) {
      const missing = config.ADMIN_CLIENT_ID ? 'ADMIN_CLIENT_SECRET' : 'ADMIN_CLIENT_ID';
      ctx.addIssue({ code: 'custom', path: [missing], message: 'ADMIN_CLIENT_ID and ADMIN_CLIENT_SECRET must be set together' });
    }
    if (config.WEB_CONCURRENCY > 1 && !/^postgres(ql)?:\/\//.test(config.DATABASE_URL)) {
      ctx.addIssue({
        code: 'custom',
        path: ['WEB_CONCURRENCY'],
        message:
          'must be 1 with an embedded database (pglite:... or memory://): one process owns it; use DATABASE_URL=postgres://... to run several workers',
      });
    }
    if (config.KEY_ENCRYPTION_FALLBACK_SECRET && !config.KEY_ENCRYPTION_SECRET) {
      ctx.addIssue({
        code: 'custom',
        path: ['KEY_ENCRYPTION_FALLBACK_SECRET'],
        message: 'needs KEY_ENCRYPTION_SECRET: the fallback secret only opens values, the other one seals them',
      });
    }
    if (config.KEY_ENCRYPTION_FALLBACK_SECRET && config.KEY_ENCRYPTION_FALLBACK_SECRET === config.KEY_ENCRYPTION_SECRET) {
      ctx.addIssue({
        code: 'custom',
        path: ['KEY_ENCRYPTION_FALLBACK_SECRET'],
        message: 'is the same as KEY_ENCRYPTION_SECRET: it should be the previous (or next) secret of a rotation',
      });
    }
    if (config.NODE_ENV === 'production' && !config.KEY_ENCRYPTION_SECRET) {
      ctx.addIssue({
        code: 'custom',
        path: ['KEY_ENCRYPTION_SECRET'],
        message:
          'is required when NODE_ENV=production: without it signing keys and gateway secrets would be stored unencrypted',
      });
    }
  })
  .transform((config) => withGatewayUrlPolicyDefault({ ...config, AUTH_URL: config.AUTH_URL ?? `http://localhost:${config.PORT}` }));

export type Config = z.output<typeof configSchema>;

/** The secrets that seal and open stored secrets (the store's SecretCipher). */
export function secretsAtRestOf(config: Pick<Config, 'KEY_ENCRYPTION_SECRET' | 'KEY_ENCRYPTION_FALLBACK_SECRET'>) {
  return { secret: config.KEY_ENCRYPTION_SECRET, fallbackSecret: config.KEY_ENCRYPTION_FALLBACK_SECRET };
}

/** `iss` of every token and the discovery `issuer`: AUTH_URL with a trailing slash. */
export function issuerOf(config: Pick<Config, 'AUTH_URL'>): string {
  return `${config.AUTH_URL}/`;
}

/** Audience of management API tokens. */
export function managementAudienceOf(config: Pick<Config, 'AUTH_URL'>): string {
  return `${config.AUTH_URL}/api/v2/`;
}
