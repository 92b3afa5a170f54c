import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import type { Express } from 'express';
import type { StartOptions } from '../../src/start';
import { adminToken, describeWithPostgres, dropSchema, startTestIdentity, uniqueSchema, type TestIdentity } from '../helpers';

/** A database that outlives an identity, so that a suite can start one again on it. */
export interface PersistentDatabase {
  name: string;
  env: Record<string, string>;
  schema?: string;
}

/**
 * Declares `fn`'s suite on a persistent embedded database (a PGlite directory) and, when
 * TEST_DATABASE_URL is set, on PostgreSQL (a schema of its own); `database()` is a fresh one
 * for each call (each test starts from nothing), removed after the suite.
 */
export function describeOnPersistentDatabases(name: string, fn: (database: () => PersistentDatabase) => void): void {
  describe(`${name} (PGlite)`, () => {
    const dirs: string[] = [];
    afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));
    fn(() => {
      const dir = mkdtempSync(join(tmpdir(), 'identity-bootstrap-'));
      dirs.push(dir);
      return { name: 'PGlite', env: { DATABASE_URL: `pglite:${dir}` } };
    });
  });
  describeWithPostgres(`${name} (PostgreSQL)`, (databaseUrl) => {
    const schemas: string[] = [];
    fn(() => {
      const schema = uniqueSchema('bootstrap');
      schemas.push(schema);
      return { name: 'PostgreSQL', env: { DATABASE_URL: databaseUrl }, schema };
    });
    afterAll(async () => {
      for (const schema of schemas) await dropSchema(databaseUrl, schema);
    });
  });
}

/** Starts identity on the database with `env`, runs `use`, and always closes it (a start that fails closes itself). */
export async function withIdentity<T>(
  database: PersistentDatabase,
  env: Record<string, string | undefined>,
  use: (identity: TestIdentity) => Promise<T>,
  options: StartOptions = {},
): Promise<T> {
  const identity = await startTestIdentity({ ...database.env, ...env }, { schema: database.schema, ...options });
  try {
    return await use(identity);
  } finally {
    await identity.close();
  }
}

/** A tenant file in a directory of its own: JSON of `document` (or `text` as written); its path. */
export function tenantFile(document: unknown, name = 'tenant.json'): string {
  const dir = mkdtempSync(join(tmpdir(), 'identity-tenant-'));
  const path = join(dir, name);
  writeFileSync(path, typeof document === 'string' ? document : JSON.stringify(document, null, 2));
  return path;
}

/** GET through the management API with the bootstrap admin's token: the body. */
export async function managementGet(app: Express, path: string): Promise<unknown> {
  const res = await request(app).get(`/api/v2${path}`).set('authorization', `Bearer ${await adminToken(app)}`);
  if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/**
 * Everything the bootstrap and a tenant file write, as the management API shows it: two
 * starts that changed nothing answer the same.
 */
export async function tenantState(app: Express): Promise<Record<string, unknown>> {
  const roles = (await managementGet(app, '/roles?per_page=100')) as Array<{ id: string; name: string }>;
  const users = (await managementGet(app, '/users?per_page=100')) as Array<{ user_id: string }>;
  return {
    clients: await managementGet(app, '/clients?per_page=100'),
    connections: await managementGet(app, '/connections?per_page=100'),
    resource_servers: await managementGet(app, '/resource-servers?per_page=100'),
    client_grants: await managementGet(app, '/client-grants?per_page=100'),
    roles,
    role_permissions: Object.fromEntries(await Promise.all(roles.map(async (r) => [r.name, await managementGet(app, `/roles/${r.id}/permissions?per_page=100`)]))),
    users,
    user_roles: Object.fromEntries(await Promise.all(users.map(async (u) => [u.user_id, await managementGet(app, `/users/${encodeURIComponent(u.user_id)}/roles`)]))),
  };
}
