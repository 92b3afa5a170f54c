import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig, secretVariablesOf } from '@smsauth/service-kit';
import { configSchema } from '../src/config';
import { ADMIN_CLIENT_SECRET, adminToken, startTestIdentity } from './helpers';

const problemsOf = (env: Record<string, string>) => {
  try {
    loadConfig(configSchema, env);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems.join('\n');
    throw err;
  }
  return '';
};

describe('identity configuration', () => {
  it('defaults: port 4000, AUTH_URL from the port, PGlite in .data/identity, policy any', () => {
    const config = loadConfig(configSchema, {});
    expect(config).toMatchObject({
      PORT: 4000,
      HOST: '0.0.0.0',
      AUTH_URL: 'http://localhost:4000',
      DATABASE_URL: 'pglite:.data/identity',
      TRUST_PROXY: false,
      LOG_LEVEL: 'info',
      NODE_ENV: 'development',
      GATEWAY_URL_POLICY: 'any',
      DATABASE_PREPARED_STATEMENTS: true,
    });
    expect(loadConfig(configSchema, { PORT: '4010' }).AUTH_URL).toBe('http://localhost:4010');
  });

  it('strips one trailing slash from AUTH_URL', () => {
    expect(loadConfig(configSchema, { AUTH_URL: 'https://auth.example.com/' }).AUTH_URL).toBe('https://auth.example.com');
  });

  it('refuses an ADMIN_CLIENT_SECRET shorter than 32 characters, naming it', () => {
    expect(problemsOf({ ADMIN_CLIENT_ID: 'admin', ADMIN_CLIENT_SECRET: 'short' })).toMatch(/^ADMIN_CLIENT_SECRET: must be at least 32 characters/);
  });

  it('refuses ADMIN_CLIENT_ID without ADMIN_CLIENT_SECRET', () => {
    expect(problemsOf({ ADMIN_CLIENT_ID: 'admin' })).toContain('ADMIN_CLIENT_SECRET');
  });

  it('refuses to run in production without KEY_ENCRYPTION_SECRET, saying why', () => {
    const problems = problemsOf({ NODE_ENV: 'production' });
    expect(problems).toContain('KEY_ENCRYPTION_SECRET: is required when NODE_ENV=production');
    expect(loadConfig(configSchema, { NODE_ENV: 'production', KEY_ENCRYPTION_SECRET: 'k'.repeat(32) }).GATEWAY_URL_POLICY).toBe('public');
  });

  it('refuses several workers on an embedded database, naming WEB_CONCURRENCY', () => {
    expect(problemsOf({ WEB_CONCURRENCY: '2' })).toMatch(/^WEB_CONCURRENCY: must be 1 with an embedded database/);
    expect(problemsOf({ WEB_CONCURRENCY: '2', DATABASE_URL: 'memory://' })).toContain('WEB_CONCURRENCY');
  });

  it('allows several workers on PostgreSQL', () => {
    expect(loadConfig(configSchema, { WEB_CONCURRENCY: '2', DATABASE_URL: 'postgres://db/identity' }).WEB_CONCURRENCY).toBe(2);
  });

  it('turns prepared statements off with DATABASE_PREPARED_STATEMENTS=false and refuses a value that is not a boolean', () => {
    expect(loadConfig(configSchema, { DATABASE_PREPARED_STATEMENTS: 'false' }).DATABASE_PREPARED_STATEMENTS).toBe(false);
    expect(problemsOf({ DATABASE_PREPARED_STATEMENTS: 'sometimes' })).toMatch(/^DATABASE_PREPARED_STATEMENTS: must be true or false/);
  });

  it('caches client_credentials lookups for 5 s by default, 0 turning it off, and refuses a value that is not 0..60000 ms, naming it', () => {
    expect(loadConfig(configSchema, {}).M2M_CACHE_TTL_MS).toBe(5000);
    expect(loadConfig(configSchema, { M2M_CACHE_TTL_MS: '0' }).M2M_CACHE_TTL_MS).toBe(0);
    for (const bad of ['-1', 'soon', '60001', '1.5']) {
      expect(problemsOf({ M2M_CACHE_TTL_MS: bad })).toMatch(/^M2M_CACHE_TTL_MS: must be a whole number of milliseconds from 0 to 60000/);
    }
  });

  it('refuses an unknown DATABASE_URL scheme', () => {
    expect(problemsOf({ DATABASE_URL: 'mysql://x' })).toContain('DATABASE_URL');
  });

  it('refuses an AUTH_URL that is not http(s)', () => {
    expect(problemsOf({ AUTH_URL: 'ftp://auth' })).toContain('AUTH_URL');
  });

  it('defaults log stream delivery to 100-record batches, 10 s deadlines and suspension after 10 failures, and refuses out-of-range values by name', () => {
    expect(loadConfig(configSchema, {})).toMatchObject({
      LOG_STREAM_POLL_MS: 1000,
      LOG_STREAM_BATCH_SIZE: 100,
      LOG_STREAM_TIMEOUT_MS: 10_000,
      LOG_STREAM_MAX_FAILURES: 10,
      LOG_STREAM_BACKOFF_MS: 1000,
      LOG_STREAM_MAX_BACKOFF_MS: 300_000,
    });
    expect(problemsOf({ LOG_STREAM_BATCH_SIZE: '5000' })).toMatch(/^LOG_STREAM_BATCH_SIZE: must be at most 1000/);
    expect(problemsOf({ LOG_STREAM_TIMEOUT_MS: '10' })).toMatch(/^LOG_STREAM_TIMEOUT_MS:/);
    expect(problemsOf({ LOG_STREAM_MAX_FAILURES: '0' })).toMatch(/^LOG_STREAM_MAX_FAILURES:/);
  });
});

describe('identity secrets from files (<NAME>_FILE)', () => {
  const KEY_ENCRYPTION_SECRET = 'key-encryption-secret-from-a-file-0123456789';
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'identity-secrets-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const secretFile = (name: string, content: string) => {
    const path = join(dir, name);
    writeFileSync(path, `${content}\n`);
    return path;
  };

  it('are the admin client secret, the key encryption secrets and DATABASE_URL (it carries a password)', () => {
    expect(secretVariablesOf(configSchema)).toEqual(['DATABASE_URL', 'ADMIN_CLIENT_SECRET', 'KEY_ENCRYPTION_SECRET', 'KEY_ENCRYPTION_FALLBACK_SECRET']);
  });

  it('an identity started with ADMIN_CLIENT_SECRET_FILE, KEY_ENCRYPTION_SECRET_FILE and DATABASE_URL_FILE signs the admin in with the file\'s secret, and logs neither secret', async () => {
    const identity = await startTestIdentity({
      ADMIN_CLIENT_SECRET: undefined,
      ADMIN_CLIENT_SECRET_FILE: secretFile('admin-client-secret', ADMIN_CLIENT_SECRET),
      KEY_ENCRYPTION_SECRET_FILE: secretFile('key-encryption-secret', KEY_ENCRYPTION_SECRET),
      DATABASE_URL: undefined,
      DATABASE_URL_FILE: secretFile('database-url', 'memory://'),
    });
    try {
      expect(identity.config).toMatchObject({ ADMIN_CLIENT_SECRET, KEY_ENCRYPTION_SECRET, DATABASE_URL: 'memory://' });
      await expect(adminToken(identity.app)).resolves.toEqual(expect.any(String));
      expect(identity.logs()).not.toContain(ADMIN_CLIENT_SECRET);
      expect(identity.logs()).not.toContain(KEY_ENCRYPTION_SECRET);
    } finally {
      await identity.close();
    }
  });

  it('meets the production requirement of KEY_ENCRYPTION_SECRET from KEY_ENCRYPTION_SECRET_FILE', () => {
    const config = loadConfig(configSchema, { NODE_ENV: 'production', KEY_ENCRYPTION_SECRET_FILE: secretFile('production-key', KEY_ENCRYPTION_SECRET) });
    expect(config.KEY_ENCRYPTION_SECRET).toBe(KEY_ENCRYPTION_SECRET);
  });

  it('refuses a secret both in the environment and in a file, and a file that is missing, naming the variables, never the value', () => {
    const both = problemsOf({ ADMIN_CLIENT_ID: 'admin', ADMIN_CLIENT_SECRET: ADMIN_CLIENT_SECRET, ADMIN_CLIENT_SECRET_FILE: secretFile('both', ADMIN_CLIENT_SECRET) });
    expect(both).toMatch(/^ADMIN_CLIENT_SECRET, ADMIN_CLIENT_SECRET_FILE: both are set/);
    expect(both).not.toContain(ADMIN_CLIENT_SECRET);
    const missing = join(dir, 'no-such-file');
    expect(problemsOf({ NODE_ENV: 'production', KEY_ENCRYPTION_SECRET_FILE: missing })).toBe(
      `KEY_ENCRYPTION_SECRET_FILE: cannot read ${missing}: no such file (ENOENT)`,
    );
  });

  it('names the file when its secret is too short', () => {
    const problems = problemsOf({ ADMIN_CLIENT_ID: 'admin', ADMIN_CLIENT_SECRET_FILE: secretFile('short', 'short') });
    expect(problems).toBe('ADMIN_CLIENT_SECRET (read from ADMIN_CLIENT_SECRET_FILE): must be at least 32 characters');
  });
});
