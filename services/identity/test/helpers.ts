import { randomBytes } from 'node:crypto';
import { createMemoryLogger, loadConfig, type Logger } from '@smsauth/service-kit';
import pg from 'pg';
import request from 'supertest';
import type { Express } from 'express';
import { configSchema, type Config } from '../src/config';
import { phoneNumberMigrationContext } from '../src/domain/phone/stored-numbers';
import { startIdentity, type StartedIdentity, type StartOptions } from '../src/start';

export const ADMIN_CLIENT_ID = 'test-admin';
export const ADMIN_CLIENT_SECRET = 'test-admin-secret-that-is-at-least-32-characters-long';
export const AUTH_URL = 'http://identity.test';
export const MANAGEMENT_AUDIENCE = `${AUTH_URL}/api/v2/`;

export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL;

/** PostgreSQL suites run only with TEST_DATABASE_URL, and say loudly when they do not. */
export function describeWithPostgres(name: string, fn: (databaseUrl: string) => void): void {
  if (!TEST_DATABASE_URL) {
    console.warn(`SKIPPED: "${name}" needs PostgreSQL; set TEST_DATABASE_URL (e.g. postgres://postgres@127.0.0.1:5432/test)`);
    describe.skip(name, () => {
      it('needs TEST_DATABASE_URL', () => undefined);
    });
    return;
  }
  describe(name, () => fn(TEST_DATABASE_URL));
}

/** A schema no other suite uses; drop it with dropSchema afterwards. */
export function uniqueSchema(prefix = 'identity_test'): string {
  return `${prefix}_${randomBytes(6).toString('hex')}`;
}

export async function dropSchema(databaseUrl: string, schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  } finally {
    await client.end();
  }
}

export function testConfig(env: Record<string, string | undefined> = {}): Config {
  return loadConfig(configSchema, {
    DATABASE_URL: 'memory://',
    PGLITE_SNAPSHOT_DIR: process.env.PGLITE_SNAPSHOT_DIR,
    AUTH_URL,
    ADMIN_CLIENT_ID,
    ADMIN_CLIENT_SECRET,
    LOG_LEVEL: 'info',
    ...env,
  });
}

/** A logger whose lines tests can read (to prove secrets never reach them). */
export function captureLogger(): { logger: Logger; text: () => string } {
  const { logger, text } = createMemoryLogger({ name: 'identity' });
  return { logger, text };
}

/** A clock tests move by hand. */
export class TestClock {
  constructor(private current = new Date('2030-01-01T00:00:00Z')) {}
  now(): Date {
    return new Date(this.current);
  }
  advance(seconds: number): void {
    this.current = new Date(this.current.getTime() + seconds * 1000);
  }
}

export interface TestIdentity extends StartedIdentity {
  logs: () => string;
  printed: string[];
  config: Config;
}

export async function startTestIdentity(
  env: Record<string, string | undefined> = {},
  options: StartOptions = {},
): Promise<TestIdentity> {
  const config = testConfig(env);
  const { logger, text } = captureLogger();
  const printed: string[] = [];
  const started = await startIdentity(config, logger, { print: (t) => printed.push(t), ...options });
  return { ...started, logs: text, printed, config };
}

/**
 * startTestIdentity for a describe block: each identity it starts is closed after the block's
 * tests (registers the afterAll; call it in the describe body).
 */
export function identitiesClosedAfterAll(): (env?: Record<string, string>) => Promise<TestIdentity> {
  const started: TestIdentity[] = [];
  afterAll(async () => {
    for (const identity of started) await identity.close();
  });
  return async (env = {}) => {
    const identity = await startTestIdentity(env);
    started.push(identity);
    return identity;
  };
}

export async function clientCredentialsToken(
  app: Express,
  credentials: { clientId: string; clientSecret: string },
  audience = MANAGEMENT_AUDIENCE,
  scope?: string,
): Promise<string> {
  const res = await request(app)
    .post('/oauth/token')
    .send({ grant_type: 'client_credentials', client_id: credentials.clientId, client_secret: credentials.clientSecret, audience, scope });
  if (res.status !== 200) throw new Error(`token request failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.access_token as string;
}

/** A management token of the bootstrap admin (every scope unless `scope` narrows it). */
export function adminToken(app: Express, scope?: string): Promise<string> {
  return clientCredentialsToken(app, { clientId: ADMIN_CLIENT_ID, clientSecret: ADMIN_CLIENT_SECRET }, MANAGEMENT_AUDIENCE, scope);
}

/** A valid 2.1 connection body; override parts per test. */
export function connectionBody(options: Record<string, unknown> = {}, enabledClients: string[] = []): Record<string, unknown> {
  return {
    options: {
      name: `sms-${randomBytes(4).toString('hex')}`,
      strategy: 'sms',
      provider: 'sms_gateway',
      gateway_url: 'http://127.0.0.1:4100/deliver',
      from: '+14155550100',
      syntax: 'md_with_macros',
      template: 'Your code is @@password@@',
      totp: { time_step: 300, length: 6 },
      brute_force_protection: true,
      disable_signup: false,
      ...options,
    },
    enabled_clients: enabledClients,
  };
}

/** Migration 7's number parser with a silent logger: what a test's openStore passes. */
export const quietMigrationContext = phoneNumberMigrationContext({ info: () => undefined, warn: () => undefined });

/** What a test's openStore passes besides its own options: a quiet migration 7, and the run's snapshots of new embedded databases. */
export const testStoreOptions = { migrationContext: quietMigrationContext, embeddedSnapshotDir: process.env.PGLITE_SNAPSHOT_DIR };
