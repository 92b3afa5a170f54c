import request from 'supertest';
import { stringify as toYaml } from 'yaml';
import { rmSync } from 'node:fs';
import { connectionRulesOf } from '../../src/app';
import { bootstrapTenant } from '../../src/domain/bootstrap-tenant';
import { adminToken, AUTH_URL, captureLogger, clientCredentialsToken, startTestIdentity, TestClock, type TestIdentity } from '../helpers';
import { describeOnPersistentDatabases, managementGet, tenantFile, withIdentity } from './tenant-harness';
import { AIRPORT_API, tenantDocument, VARIABLES } from './tenant-document';

type Named = { name: string; client_id: string };
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON documents, changed and read in assertions
type Json = any;

async function clientNamed(app: Parameters<typeof managementGet>[0], name: string): Promise<Record<string, unknown> & Named> {
  const clients = (await managementGet(app, '/clients?per_page=100')) as Array<Record<string, unknown> & Named>;
  return clients.find((c) => c.name === name)!;
}

describeOnPersistentDatabases('TENANT_FILE', (database) => {
  it('creates what the file describes, then updates what a changed file changes, at the next start', async () => {
    const db = database();
    const document = tenantDocument();
    const options = { tenantFileVariables: VARIABLES };
    await withIdentity(
      db,
      { TENANT_FILE: tenantFile(document) },
      async ({ app, logs }) => {
        const m2m = await clientNamed(app, 'Demo M2M');
        // The secret came from the environment: the client authenticates with it.
        await clientCredentialsToken(app, { clientId: m2m.client_id, clientSecret: VARIABLES.M2M_CLIENT_SECRET }, AIRPORT_API);
        const [connection] = (await managementGet(app, '/connections?name=sms')) as Array<Record<string, Json>>;
        expect(connection!.options).toMatchObject({ gateway_url: VARIABLES.GATEWAY_URL, template: 'Your code is @@password@@' });
        expect(connection!.options.gateway_authentication).toEqual({ method: 'bearer', subject: 'smsauth-identity', audience: VARIABLES.GATEWAY_URL, secret_base64_encoded: false });
        expect(logs()).not.toContain(VARIABLES.GATEWAY_AUTH_SECRET);
        expect(logs()).not.toContain(VARIABLES.M2M_CLIENT_SECRET);
      },
      options,
    );

    document.connections[0]!.options.template = 'Your airport code is @@password@@';
    document.clients[1]!.callbacks = ['http://localhost:4301/callback'];
    document.resource_servers[0]!.scopes.push({ value: 'write:airports', description: 'Rename airports' });
    document.client_grants[0]!.scope = ['read:airports', 'write:airports'];
    document.roles[0]!.description = 'Reads and renames airports';
    document.roles[0]!.permissions.push({ resource_server_identifier: AIRPORT_API, permission_name: 'write:airports' });
    const newSecret = 'a-new-m2m-secret-from-the-environment-002';
    await withIdentity(
      db,
      { TENANT_FILE: tenantFile(document) },
      async ({ app, logs }) => {
        expect(logs()).toMatch(/"created":0,"updated":6,"unchanged":1.*"msg":"tenant file applied"/);
        const [connection] = (await managementGet(app, '/connections?name=sms')) as Array<Record<string, Json>>;
        expect(connection!.options.template).toBe('Your airport code is @@password@@');
        expect((await clientNamed(app, 'Demo Web App')).callbacks).toEqual(['http://localhost:4301/callback']);
        const [grant] = (await managementGet(app, `/client-grants?audience=${encodeURIComponent(AIRPORT_API)}`)) as Array<{ scope: string[] }>;
        expect(grant!.scope).toEqual(['read:airports', 'write:airports']);
        const [role] = (await managementGet(app, '/roles?name_filter=Airport')) as Array<{ id: string; description: string }>;
        expect(role!.description).toBe('Reads and renames airports');
        const permissions = (await managementGet(app, `/roles/${role!.id}/permissions`)) as Array<{ permission_name: string }>;
        expect(permissions.map((p) => p.permission_name)).toEqual(['read:airports', 'write:airports']);
        const m2m = await clientNamed(app, 'Demo M2M');
        await expect(clientCredentialsToken(app, { clientId: m2m.client_id, clientSecret: newSecret }, AIRPORT_API, 'write:airports')).resolves.toEqual(expect.any(String));
        await expect(clientCredentialsToken(app, { clientId: m2m.client_id, clientSecret: VARIABLES.M2M_CLIENT_SECRET }, AIRPORT_API)).rejects.toThrow('401');
      },
      { tenantFileVariables: { ...VARIABLES, M2M_CLIENT_SECRET: newSecret } },
    );
  });

  it('changes and deletes nothing the file does not name, and a refused file changes nothing at all', async () => {
    const db = database();
    const document = tenantDocument();
    const options = { tenantFileVariables: VARIABLES };
    const own = await withIdentity(
      db,
      { TENANT_FILE: tenantFile(document) },
      async ({ app }) => {
        const auth = { authorization: `Bearer ${await adminToken(app)}` };
        const created = await request(app).post('/api/v2/clients').set(auth).send({ name: 'Own App', app_type: 'native' }).expect(201);
        const [connection] = (await managementGet(app, '/connections?name=sms')) as Array<{ id: string; enabled_clients: string[] }>;
        await request(app)
          .patch(`/api/v2/connections/${connection!.id}`)
          .set(auth)
          .send({ enabled_clients: [...connection!.enabled_clients, created.body.client_id], metadata: { team: 'ops' } })
          .expect(200);
        await request(app).patch(`/api/v2/clients/${(await clientNamed(app, 'Demo')).client_id}`).set(auth).send({ callbacks: ['https://demo.example.com/callback'] }).expect(200);
        return created.body.client_id as string;
      },
      options,
    );

    // Demo Web App is no longer in the file; Demo's entry names no callbacks.
    const smaller = { ...document, clients: document.clients.filter((c) => c.name !== 'Demo Web App') };
    smaller.connections = [{ ...document.connections[0]!, enabled_clients: ['Demo'] }];
    await withIdentity(
      db,
      { TENANT_FILE: tenantFile(smaller) },
      async ({ app }) => {
        expect(await clientNamed(app, 'Demo Web App')).toBeDefined();
        expect((await clientNamed(app, 'Demo')).callbacks).toEqual(['https://demo.example.com/callback']);
        const [connection] = (await managementGet(app, '/connections?name=sms')) as Array<{ enabled_clients: string[]; metadata: object }>;
        expect(connection!.enabled_clients).toContain(own);
        expect(connection!.enabled_clients).toContain((await clientNamed(app, 'Demo Web App')).client_id);
        expect(connection!.metadata).toEqual({ team: 'ops' });
      },
      options,
    );

    // The first entry would change the template; the client grant names a scope the API lacks.
    const refused = tenantDocument();
    refused.connections[0]!.options.template = 'Changed @@password@@';
    refused.client_grants[0]!.scope = ['fly:planes'];
    const file = tenantFile(refused);
    await expect(withIdentity(db, { TENANT_FILE: file }, async () => undefined, options)).rejects.toThrow(
      `TENANT_FILE ${file}: client_grants[0] "Demo M2M -> ${AIRPORT_API}": scope.0: fly:planes is not a scope of ${AIRPORT_API}`,
    );
    await withIdentity(db, {}, async ({ app }) => {
      const [connection] = (await managementGet(app, '/connections?name=sms')) as Array<Record<string, Json>>;
      expect(connection!.options.template).toBe('Your code is @@password@@');
    });
  });
});

describe('TENANT_FILE in YAML', () => {
  it('reads a .yaml file as the same document', async () => {
    const identity = await startTestIdentity({ TENANT_FILE: tenantFile(toYaml(tenantDocument()), 'tenant.yaml') }, { tenantFileVariables: VARIABLES });
    try {
      expect((await managementGet(identity.app, '/clients?per_page=100')) as Named[]).toHaveLength(5);
      expect(identity.logs()).toMatch(/"created":7,"updated":0,"unchanged":0.*"msg":"tenant file applied"/);
    } finally {
      await identity.close();
    }
  });
});

describe('a TENANT_FILE identity refuses to start with', () => {
  // What a start runs after the management API (start.ts), on one identity: each refusal is the start's.
  let identity: TestIdentity;
  beforeAll(async () => {
    identity = await startTestIdentity();
  });
  afterAll(() => identity.close());

  /** Applying the document (or text) changed by `change` as TENANT_FILE: the error a start refuses with. */
  const apply = (file: string) =>
    bootstrapTenant(identity.store, {
      authUrl: AUTH_URL,
      console: true,
      tenantFile: { path: file, variables: VARIABLES },
      connectionRules: connectionRulesOf(identity.config),
      clock: new TestClock(),
      logger: captureLogger().logger,
    }).then(
      () => 'applied',
      (err: Error) => err.message,
    );

  async function refusal(change: (document: Json) => unknown, name?: string): Promise<{ file: string; message: string }> {
    const document = tenantDocument();
    const file = tenantFile(change(document) ?? document, name);
    return { file, message: await apply(file) };
  }

  it('is refused by the start itself, before the service listens', async () => {
    const file = tenantFile({ clients: [{ name: 'Demo' }] });
    await expect(startTestIdentity({ TENANT_FILE: file })).rejects.toThrow(`TENANT_FILE ${file}: clients[0] "Demo": app_type: `);
  });

  it('names the file, the entry and the field of a value the management API would refuse', async () => {
    const schema = await refusal((d) => void (d.connections[0].options.totp = { length: 3 }));
    expect(schema.message).toBe(`TENANT_FILE ${schema.file}: connections[0] "sms": options.totp.length: Too small: expected number to be >=4`);
    const rule = await refusal((d) => void d.clients.push({ name: 'Browser', app_type: 'spa', grant_types: ['client_credentials'] }));
    expect(rule.message).toBe(
      `TENANT_FILE ${rule.file}: clients[3] "Browser": grant_types: client_credentials needs a confidential client (regular_web or non_interactive), not spa`,
    );
    const unknown = await refusal((d) => void (d.clients[0].colour = 'blue'));
    expect(unknown.message).toBe(`TENANT_FILE ${unknown.file}: clients[0] "Demo": colour: unknown field`);
    const permission = await refusal((d) => void d.roles[0].permissions.push({ resource_server_identifier: AIRPORT_API, permission_name: 'fly:planes' }));
    expect(permission.message).toBe(`TENANT_FILE ${permission.file}: roles[0] "Airport reader": permissions.1.permission_name: the API ${AIRPORT_API} defines no such scope`);
    const secret = await refusal((d) => void (d.clients[0].client_secret = 'a-secret-for-a-native-client-000000000'));
    expect(secret.message).toBe(`TENANT_FILE ${secret.file}: clients[0] "Demo": client_secret: a native client has no secret`);
  });

  it('names a client, a variable or a section that does not exist', async () => {
    const client = await refusal((d) => void d.connections[0].enabled_clients.push('Nobody'));
    expect(client.message).toBe(`TENANT_FILE ${client.file}: connections[0] "sms": enabled_clients.2: no client has the client_id or the name Nobody`);
    const variable = await refusal((d) => void (d.connections[0].options.gateway_authentication.secret = '${NOT_SET_ANYWHERE}'));
    expect(variable.message).toBe(
      `TENANT_FILE ${variable.file}: connections[0] "sms": options.gateway_authentication.secret: \${NOT_SET_ANYWHERE} is not set (set NOT_SET_ANYWHERE, or NOT_SET_ANYWHERE_FILE to a file holding the value)`,
    );
    const section = await refusal((d) => ({ ...d, conections: [] }));
    expect(section.message).toBe(`TENANT_FILE ${section.file}: conections: unknown section; the sections are resource_servers, clients, connections, client_grants, roles, tenant_settings, branding, custom_text`);
  });

  it('says which file does not parse', async () => {
    const json = await refusal(() => '{"clients": [');
    expect(json.message).toMatch(new RegExp(`^TENANT_FILE ${json.file}: not valid JSON: `));
    const yaml = await refusal(() => 'clients: [\n', 'tenant.yml');
    expect(yaml.message).toMatch(new RegExp(`^TENANT_FILE ${yaml.file}: not valid YAML: `));
    expect((await refusal(() => undefined)).message).toBe('applied');
    const missing = await refusal(() => undefined, 'gone.json');
    rmSync(missing.file);
    expect(await apply(missing.file)).toBe(`TENANT_FILE ${missing.file}: cannot be read (ENOENT)`);
  });
});
