import { generateKeyPairSync } from 'node:crypto';
import { detachedKeyPair } from '@smsauth/test-support';
import {
  AuthenticationMethodRecordSchema,
  ClientCredentialRecordSchema,
  ClientGrantRecordSchema,
  ClientRecordSchema,
  ConnectionClientsPageSchema,
  ConnectionRecordSchema,
  ErrorCodes,
  JobRecordErrorSchema,
  JobRecordSchema,
  LogStreamCreatedSchema,
  LogStreamRecordSchema,
  MANAGEMENT_SCOPES,
  OAuthErrorBodySchema,
  PermissionRecordSchema,
  RoleMemberRecordSchema,
  RoleRecordSchema,
  DailyStatSchema,
  SmsPricesSchema,
  SmsStatSchema,
  TimeToVerifySchema,
  UserPermissionRecordSchema,
  ResourceServerRecordSchema,
  SigningKeyRecordSchema,
  SigningKeyRotationSchema,
  SmsTemplateTestResponseSchema,
  SmsFraudBlockListSchema,
  TenantLogSchema,
  UserBlocksResponseSchema,
  UserRecordSchema,
  SessionRecordSchema,
  BrandingSchema,
  CustomTextSchema,
  PromptSettingsSchema,
  TenantSettingsSchema,
} from '@smsauth/contracts';
import jwt from 'jsonwebtoken';
import request from 'supertest';
import { z } from 'zod';
import { managementRouter, type ManagementDependencies } from '../../src/routes/management';
import { requiredScopeOf } from '../../src/routes/management/auth';
import { adminToken, AUTH_URL, clientCredentialsToken, connectionBody, MANAGEMENT_AUDIENCE } from '../helpers';
import { FlowHarness } from '../passwordless/flow-harness';

/**
 * Every route of the management API, read from the router itself (each route's requireScope
 * handler names its scope), against every kind of bad token. A route added without a case
 * below fails "has a success case for every route".
 */

type Method = 'get' | 'post' | 'patch' | 'put' | 'delete';
interface ManagementRoute {
  method: Method;
  /** As declared in the router, relative to /api/v2, e.g. /connections/:id. */
  path: string;
  /** Every requireScope check on the route (exactly one expected). */
  scopes: string[];
}

interface RouterLayer {
  route?: { path: string; methods: Record<string, boolean>; stack: Array<{ handle: unknown }> };
}

function managementRoutes(): ManagementRoute[] {
  // Building the router only declares its routes; none of the dependencies is touched.
  const router = managementRouter({} as ManagementDependencies) as unknown as { stack: RouterLayer[] };
  return router.stack.flatMap(({ route }) => {
    if (!route) return [];
    const scopes = route.stack.map((layer) => requiredScopeOf(layer.handle)).filter((s): s is string => s !== undefined);
    return Object.keys(route.methods)
      .filter((method) => route.methods[method])
      .map((method) => ({ method: method as Method, path: route.path, scopes }));
  });
}

const ROUTES = managementRoutes();
const key = (route: Pick<ManagementRoute, 'method' | 'path'>) => `${route.method.toUpperCase()} ${route.path}`;
const scopeOf = (route: ManagementRoute) => route.scopes[0] ?? '(no scope)';

/** A concrete URL for a route when nothing past authentication will run. */
function placeholderUrl(route: ManagementRoute): string {
  const path = route.path.replace(/:(\w+)/g, 'x_does_not_exist');
  return `/api/v2${path}${route.path === '/user-blocks' ? '?identifier=%2B15550000000' : ''}`;
}

/** What a request with the right scope sends, and the success it gets. */
interface SuccessCase {
  url: string;
  body?: object;
  /** A multipart upload instead of a JSON body (the users import): the `users` file and the form's fields. */
  upload?: { users: Buffer; fields: Record<string, string> };
  status: number;
  schema?: z.ZodType;
}

describe('management API auth matrix', () => {
  let h: FlowHarness;
  let n = 0;
  const unique = (prefix: string) => `${prefix}-${(n += 1)}-${Date.now().toString(36)}`;

  /** A fresh token per call: key rotations and revocations in the cases below retire old ones. */
  async function admin(method: Method, path: string, body?: object): Promise<request.Response> {
    const token = await adminToken(h.identity.app);
    const req = request(h.identity.app)[method](`/api/v2${path}`).set('authorization', `Bearer ${token}`);
    const res = await (body === undefined ? req : req.send(body));
    if (res.status >= 300) throw new Error(`${method.toUpperCase()} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res;
  }

  const createClient = async (appType = 'non_interactive') =>
    (await admin('post', '/clients', { name: unique('client'), app_type: appType })).body as { client_id: string; client_secret: string };
  const createConnection = async (enabledClients: string[] = []) =>
    (await admin('post', '/connections', connectionBody({ gateway_url: h.gateway.url() }, enabledClients))).body as { id: string; name: string };
  const createApi = async (scopes: string[] = []) =>
    (await admin('post', '/resource-servers', { name: unique('api'), identifier: `https://${unique('api')}.example.com`, scopes: scopes.map((value) => ({ value })) }))
      .body as { id: string; identifier: string };
  const createGrant = async () => {
    const [client, api] = [await createClient(), await createApi()];
    return (await admin('post', '/client-grants', { client_id: client.client_id, audience: api.identifier, scope: [] })).body as { id: string };
  };

  function publicKeyPem(): string {
    return generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ type: 'spki', format: 'pem' }).toString();
  }

  /** A private_key_jwt public key registered on a new confidential client. */
  async function createCredential(): Promise<{ clientId: string; id: string }> {
    const clientId = (await createClient()).client_id;
    const res = await admin('post', `/clients/${clientId}/credentials`, { credential_type: 'public_key', pem: publicKeyPem() });
    expect(res.status).toBe(201);
    return { clientId, id: res.body.id };
  }

  /** A user made by signing up: a code sent to the phone and exchanged. */
  async function createUser(): Promise<string> {
    const client = await createClient('native');
    const connection = await createConnection([client.client_id]);
    const who = h.caller();
    const setup = { clientId: client.client_id, clientName: '', connection: connection.name, connectionId: connection.id };
    const code = await h.sendCode(setup, who);
    const login = await h.ro(setup, who, code);
    expect(login.status).toBe(200);
    return String((jwt.decode(login.body.id_token) as jwt.JwtPayload).sub);
  }

  /** A live login session of a new user (as the hosted login leaves one), written through the store. */
  /** A user with a stored passkey (its row as a registration writes it). */
  async function createPasskey(): Promise<{ userId: string; id: string }> {
    const userId = await createUser();
    const id = unique('pk').replace(/[^A-Za-z0-9]/g, '');
    await h.identity.store.passkeys.insert({
      id,
      user_id: userId,
      user_handle: id,
      public_key: 'AQ',
      counter: 0,
      transports: ['internal'],
      aaguid: '00000000-0000-0000-0000-000000000000',
      device_type: 'singleDevice',
      backed_up: false,
      rp_id: 'identity.test',
      user_agent: null,
      created_at: h.clock.now(),
      last_used_at: null,
    });
    return { userId, id };
  }

  async function createSession(): Promise<{ userId: string; id: string }> {
    const userId = await createUser();
    const now = h.clock.now();
    const id = unique('ses').replace(/[^A-Za-z0-9]/g, '');
    const later = new Date(now.getTime() + 86_400_000);
    await h.identity.store.loginSessions.insert({
      id,
      secret_hash: id,
      user_id: userId,
      connection_name: 'sms',
      client_ids: [],
      initial_ip: null,
      initial_user_agent: null,
      authenticated_at: now,
      created_at: now,
      updated_at: now,
      idle_expires_at: later,
      expires_at: later,
    });
    return { userId, id };
  }

  async function signingKeys(): Promise<Array<{ kid: string; current: boolean }>> {
    return (await admin('get', '/keys/signing')).body;
  }

  const createRole = async () => (await admin('post', '/roles', { name: unique('role') })).body as { id: string };
  const readLogs = { resource_server_identifier: MANAGEMENT_AUDIENCE, permission_name: 'read:logs' };
  /** A user holding a new role and the read:logs permission directly. */
  async function createMember(): Promise<{ userId: string; roleId: string }> {
    const [userId, { id: roleId }] = [await createUser(), await createRole()];
    await admin('post', `/users/${encodeURIComponent(userId)}/roles`, { roles: [roleId] });
    await admin('post', `/users/${encodeURIComponent(userId)}/permissions`, { permissions: [readLogs] });
    return { userId, roleId };
  }

  const createLogStream = async () =>
    (await admin('post', '/log-streams', { name: unique('stream'), type: 'http', sink: { httpEndpoint: h.gateway.url('/logs') } })).body as { id: string };

  /** A users import job of one user, on a fresh connection. */
  async function createImportJob(): Promise<{ id: string }> {
    const token = await adminToken(h.identity.app);
    const res = await request(h.identity.app)
      .post('/api/v2/jobs/users-imports')
      .set('authorization', `Bearer ${token}`)
      .attach('users', Buffer.from(JSON.stringify([{ phone_number: '+14155550199' }])), 'users.json')
      .field('connection_id', (await createConnection()).id);
    if (res.status !== 201) throw new Error(`import job create failed: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body as { id: string };
  }

  const SUCCESS: Record<string, () => Promise<SuccessCase>> = {
    'POST /jobs/users-imports': async () => ({
      url: '/jobs/users-imports',
      upload: { users: Buffer.from(JSON.stringify([{ phone_number: '+14155550198' }])), fields: { connection_id: (await createConnection()).id } },
      status: 201,
      schema: JobRecordSchema,
    }),
    'POST /jobs/users-exports': async () => ({ url: '/jobs/users-exports', body: { format: 'csv', fields: [{ name: 'user_id' }] }, status: 201, schema: JobRecordSchema }),
    'GET /jobs/:id': async () => ({ url: `/jobs/${(await createImportJob()).id}`, status: 200, schema: JobRecordSchema }),
    'GET /jobs/:id/errors': async () => ({ url: `/jobs/${(await createImportJob()).id}/errors`, status: 200, schema: z.array(JobRecordErrorSchema) }),
    'GET /connections': async () => ({ url: '/connections', status: 200, schema: z.array(ConnectionRecordSchema) }),
    'POST /connections': async () => ({ url: '/connections', body: connectionBody({ gateway_url: h.gateway.url() }), status: 201, schema: ConnectionRecordSchema }),
    'GET /connections/:id': async () => ({ url: `/connections/${(await createConnection()).id}`, status: 200, schema: ConnectionRecordSchema }),
    'PATCH /connections/:id': async () => ({
      url: `/connections/${(await createConnection()).id}`,
      body: { options: { template: 'Code: @@password@@' } },
      status: 200,
      schema: ConnectionRecordSchema,
    }),
    'POST /connections/:id/sms-template/test': async () => ({
      url: `/connections/${(await createConnection()).id}/sms-template/test`,
      body: {},
      status: 200,
      schema: SmsTemplateTestResponseSchema,
    }),
    'DELETE /connections/:id': async () => ({ url: `/connections/${(await createConnection()).id}`, status: 204 }),
    'GET /connections/:id/clients': async () => ({
      url: `/connections/${(await createConnection([(await createClient('spa')).client_id])).id}/clients`,
      status: 200,
      schema: ConnectionClientsPageSchema,
    }),
    'PATCH /connections/:id/clients': async () => ({
      url: `/connections/${(await createConnection()).id}/clients`,
      body: [{ client_id: (await createClient('spa')).client_id, status: true }],
      status: 204,
    }),
    'GET /connections/:id/sms-fraud-blocks': async () => ({
      url: `/connections/${(await createConnection()).id}/sms-fraud-blocks`,
      status: 200,
      schema: SmsFraudBlockListSchema,
    }),
    'DELETE /connections/:id/sms-fraud-blocks/:prefix': async () => {
      const { id } = await createConnection();
      const now = h.clock.now();
      await h.identity.store.smsFraudGuard.block(id, '+447400', { windowStart: now, counts: { sends: 51, verified: 0 } }, now, new Date(now.getTime() + 60_000));
      return { url: `/connections/${id}/sms-fraud-blocks/%2B447400`, status: 204 };
    },

    'GET /clients': async () => ({ url: '/clients', status: 200, schema: z.array(ClientRecordSchema) }),
    'POST /clients': async () => ({ url: '/clients', body: { name: unique('client'), app_type: 'native' }, status: 201, schema: ClientRecordSchema }),
    'GET /clients/:id': async () => ({ url: `/clients/${(await createClient()).client_id}`, status: 200, schema: ClientRecordSchema }),
    'PATCH /clients/:id': async () => ({ url: `/clients/${(await createClient()).client_id}`, body: { name: 'Renamed' }, status: 200, schema: ClientRecordSchema }),
    'POST /clients/:id/rotate-secret': async () => ({
      url: `/clients/${(await createClient()).client_id}/rotate-secret`,
      status: 200,
      schema: ClientRecordSchema,
    }),
    'DELETE /clients/:id': async () => ({ url: `/clients/${(await createClient()).client_id}`, status: 204 }),
    'GET /clients/:id/credentials': async () => ({
      url: `/clients/${(await createClient()).client_id}/credentials`,
      status: 200,
      schema: z.array(ClientCredentialRecordSchema),
    }),
    'POST /clients/:id/credentials': async () => ({
      url: `/clients/${(await createClient()).client_id}/credentials`,
      body: { credential_type: 'public_key', pem: publicKeyPem() },
      status: 201,
      schema: ClientCredentialRecordSchema,
    }),
    'GET /clients/:id/credentials/:credential_id': async () => {
      const credential = await createCredential();
      return { url: `/clients/${credential.clientId}/credentials/${credential.id}`, status: 200, schema: ClientCredentialRecordSchema };
    },
    'PATCH /clients/:id/credentials/:credential_id': async () => {
      const credential = await createCredential();
      return {
        url: `/clients/${credential.clientId}/credentials/${credential.id}`,
        body: { expires_at: '2031-01-01T00:00:00.000Z' },
        status: 200,
        schema: ClientCredentialRecordSchema,
      };
    },
    'DELETE /clients/:id/credentials/:credential_id': async () => {
      const credential = await createCredential();
      return { url: `/clients/${credential.clientId}/credentials/${credential.id}`, status: 204 };
    },

    'GET /resource-servers': async () => ({ url: '/resource-servers', status: 200, schema: z.array(ResourceServerRecordSchema) }),
    'POST /resource-servers': async () => ({
      url: '/resource-servers',
      body: { name: 'API', identifier: `https://${unique('api')}.example.com` },
      status: 201,
      schema: ResourceServerRecordSchema,
    }),
    'GET /resource-servers/:id': async () => ({ url: `/resource-servers/${(await createApi()).id}`, status: 200, schema: ResourceServerRecordSchema }),
    'PATCH /resource-servers/:id': async () => ({
      url: `/resource-servers/${(await createApi()).id}`,
      body: { name: 'Renamed API' },
      status: 200,
      schema: ResourceServerRecordSchema,
    }),
    'DELETE /resource-servers/:id': async () => ({ url: `/resource-servers/${(await createApi()).id}`, status: 204 }),

    'GET /client-grants': async () => ({ url: '/client-grants', status: 200, schema: z.array(ClientGrantRecordSchema) }),
    'POST /client-grants': async () => {
      const [client, api] = [await createClient(), await createApi(['read:airports'])];
      return {
        url: '/client-grants',
        body: { client_id: client.client_id, audience: api.identifier, scope: ['read:airports'] },
        status: 201,
        schema: ClientGrantRecordSchema,
      };
    },
    'GET /client-grants/:id': async () => ({ url: `/client-grants/${(await createGrant()).id}`, status: 200, schema: ClientGrantRecordSchema }),
    'PATCH /client-grants/:id': async () => ({ url: `/client-grants/${(await createGrant()).id}`, body: { scope: [] }, status: 200, schema: ClientGrantRecordSchema }),
    'DELETE /client-grants/:id': async () => ({ url: `/client-grants/${(await createGrant()).id}`, status: 204 }),

    'GET /users': async () => ({ url: '/users', status: 200, schema: z.array(UserRecordSchema) }),
    'POST /users': async () => ({
      url: '/users',
      body: { connection: (await createConnection()).name, phone_number: h.caller().phone },
      status: 201,
      schema: UserRecordSchema,
    }),
    'PATCH /users/:id': async () => ({
      url: `/users/${encodeURIComponent(await createUser())}`,
      body: { blocked: true, app_metadata: { plan: 'gold' } },
      status: 200,
      schema: UserRecordSchema,
    }),
    'GET /users/:id': async () => ({ url: `/users/${encodeURIComponent(await createUser())}`, status: 200, schema: UserRecordSchema }),
    'DELETE /users/:id': async () => ({ url: `/users/${encodeURIComponent(await createUser())}`, status: 204 }),

    'GET /users/:id/sessions': async () => ({
      url: `/users/${encodeURIComponent((await createSession()).userId)}/sessions`,
      status: 200,
      schema: z.object({ sessions: z.array(SessionRecordSchema) }),
    }),
    'DELETE /users/:id/sessions': async () => ({ url: `/users/${encodeURIComponent((await createSession()).userId)}/sessions`, status: 202 }),
    'GET /sessions/:id': async () => ({ url: `/sessions/${(await createSession()).id}`, status: 200, schema: SessionRecordSchema }),
    'GET /users/:id/authentication-methods': async () => ({
      url: `/users/${encodeURIComponent((await createPasskey()).userId)}/authentication-methods`,
      status: 200,
      schema: z.array(AuthenticationMethodRecordSchema),
    }),
    'GET /users/:id/authentication-methods/:method_id': async () => {
      const passkey = await createPasskey();
      return { url: `/users/${encodeURIComponent(passkey.userId)}/authentication-methods/${passkey.id}`, status: 200, schema: AuthenticationMethodRecordSchema };
    },
    'DELETE /users/:id/authentication-methods/:method_id': async () => {
      const passkey = await createPasskey();
      return { url: `/users/${encodeURIComponent(passkey.userId)}/authentication-methods/${passkey.id}`, status: 204 };
    },
    'DELETE /sessions/:id': async () => ({ url: `/sessions/${(await createSession()).id}`, status: 202 }),

    'GET /user-blocks': async () => ({ url: '/user-blocks?identifier=%2B15550000000', status: 200, schema: UserBlocksResponseSchema }),
    'DELETE /user-blocks': async () => ({ url: '/user-blocks?identifier=%2B15550000000', status: 204 }),
    'GET /user-blocks/:id': async () => ({ url: `/user-blocks/${encodeURIComponent(await createUser())}`, status: 200, schema: UserBlocksResponseSchema }),
    'DELETE /user-blocks/:id': async () => ({ url: `/user-blocks/${encodeURIComponent(await createUser())}`, status: 204 }),

    'GET /logs': async () => ({ url: '/logs', status: 200, schema: z.array(TenantLogSchema) }),
    'GET /logs/:id': async () => {
      await createClient();
      const { rows } = await h.identity.sql.query<{ log_id: string }>('SELECT log_id FROM tenant_logs ORDER BY seq DESC LIMIT 1');
      return { url: `/logs/${rows[0]!.log_id}`, status: 200, schema: TenantLogSchema };
    },
    'GET /users/:id/logs': async () => ({ url: `/users/${encodeURIComponent(await createUser())}/logs`, status: 200, schema: z.array(TenantLogSchema) }),

    'GET /roles': async () => ({ url: '/roles', status: 200, schema: z.array(RoleRecordSchema) }),
    'POST /roles': async () => ({ url: '/roles', body: { name: unique('role') }, status: 200, schema: RoleRecordSchema }),
    'GET /roles/:id': async () => ({ url: `/roles/${(await createRole()).id}`, status: 200, schema: RoleRecordSchema }),
    'PATCH /roles/:id': async () => ({ url: `/roles/${(await createRole()).id}`, body: { description: 'changed' }, status: 200, schema: RoleRecordSchema }),
    'DELETE /roles/:id': async () => ({ url: `/roles/${(await createRole()).id}`, status: 204 }),
    'GET /roles/:id/permissions': async () => {
      const { id } = await createRole();
      await admin('post', `/roles/${id}/permissions`, { permissions: [readLogs] });
      return { url: `/roles/${id}/permissions`, status: 200, schema: z.array(PermissionRecordSchema).length(1) };
    },
    'POST /roles/:id/permissions': async () => ({ url: `/roles/${(await createRole()).id}/permissions`, body: { permissions: [readLogs] }, status: 201 }),
    'DELETE /roles/:id/permissions': async () => ({ url: `/roles/${(await createRole()).id}/permissions`, body: { permissions: [readLogs] }, status: 204 }),
    'GET /roles/:id/users': async () => ({ url: `/roles/${(await createMember()).roleId}/users`, status: 200, schema: z.array(RoleMemberRecordSchema).length(1) }),
    'POST /roles/:id/users': async () => ({ url: `/roles/${(await createRole()).id}/users`, body: { users: [await createUser()] }, status: 204 }),
    'GET /users/:id/roles': async () => ({
      url: `/users/${encodeURIComponent((await createMember()).userId)}/roles`,
      status: 200,
      schema: z.array(RoleRecordSchema).length(1),
    }),
    'POST /users/:id/roles': async () => ({ url: `/users/${encodeURIComponent(await createUser())}/roles`, body: { roles: [(await createRole()).id] }, status: 204 }),
    'DELETE /users/:id/roles': async () => {
      const member = await createMember();
      return { url: `/users/${encodeURIComponent(member.userId)}/roles`, body: { roles: [member.roleId] }, status: 204 };
    },
    'GET /users/:id/permissions': async () => ({
      url: `/users/${encodeURIComponent((await createMember()).userId)}/permissions`,
      status: 200,
      schema: z.array(UserPermissionRecordSchema).length(1),
    }),
    'POST /users/:id/permissions': async () => ({ url: `/users/${encodeURIComponent(await createUser())}/permissions`, body: { permissions: [readLogs] }, status: 201 }),
    'DELETE /users/:id/permissions': async () => ({
      url: `/users/${encodeURIComponent((await createMember()).userId)}/permissions`,
      body: { permissions: [readLogs] },
      status: 204,
    }),

    'GET /stats/daily': async () => ({ url: '/stats/daily?from=20300101&to=20300102', status: 200, schema: z.array(DailyStatSchema).length(2) }),
    'GET /stats/active-users': async () => ({ url: '/stats/active-users', status: 200, schema: z.int().nonnegative() }),
    'GET /stats/sms': async () => ({ url: '/stats/sms?interval=hour&group_by=prefix', status: 200, schema: z.array(SmsStatSchema) }),
    'GET /stats/sms-prices': async () => ({ url: '/stats/sms-prices', status: 200, schema: SmsPricesSchema }),
    'PATCH /stats/sms-prices': async () => ({ url: '/stats/sms-prices', body: { prices: [{ country: 'FR', channel: 'sms', price: 0.07 }] }, status: 200, schema: SmsPricesSchema }),
    'GET /stats/time-to-verify': async () => ({ url: '/stats/time-to-verify', status: 200, schema: TimeToVerifySchema }),

    'GET /keys/signing': async () => ({ url: '/keys/signing', status: 200, schema: z.array(SigningKeyRecordSchema) }),
    'POST /keys/signing/rotate': async () => ({ url: '/keys/signing/rotate', status: 201, schema: SigningKeyRotationSchema }),
    'GET /keys/signing/:kid': async () => {
      const current = (await signingKeys()).find((k) => k.current)!;
      return { url: `/keys/signing/${current.kid}`, status: 200, schema: SigningKeyRecordSchema };
    },
    'GET /log-streams': async () => ({ url: '/log-streams', status: 200, schema: z.array(LogStreamRecordSchema) }),
    'POST /log-streams': async () => ({
      url: '/log-streams',
      body: { name: unique('stream'), type: 'http', sink: { httpEndpoint: h.gateway.url('/logs') } },
      status: 201,
      schema: LogStreamCreatedSchema,
    }),
    'GET /log-streams/:id': async () => ({ url: `/log-streams/${(await createLogStream()).id}`, status: 200, schema: LogStreamRecordSchema }),
    'PATCH /log-streams/:id': async () => ({ url: `/log-streams/${(await createLogStream()).id}`, body: { status: 'paused' }, status: 200, schema: LogStreamRecordSchema }),
    'DELETE /log-streams/:id': async () => ({ url: `/log-streams/${(await createLogStream()).id}`, status: 204 }),
    'GET /branding': async () => ({ url: '/branding', status: 200, schema: BrandingSchema }),
    'PATCH /branding': async () => ({ url: '/branding', body: { colors: { primary: '#0059d6' } }, status: 200, schema: BrandingSchema }),
    'POST /branding/preview': async () => ({ url: '/branding/preview', body: { screen: 'phone', language: 'en' }, status: 200 }),
    'GET /prompts': async () => ({ url: '/prompts', status: 200, schema: PromptSettingsSchema }),
    'PATCH /prompts': async () => ({ url: '/prompts', body: { identifier_first: true }, status: 200, schema: PromptSettingsSchema }),
    'GET /prompts/:prompt/custom-text/:language': async () => ({ url: '/prompts/logout/custom-text/en', status: 200, schema: CustomTextSchema }),
    'PUT /prompts/:prompt/custom-text/:language': async () => ({ url: '/prompts/logout/custom-text/en', body: { logout: { title: 'Bye' } }, status: 200, schema: CustomTextSchema }),
    'GET /prompts/:prompt/default-text/:language': async () => ({ url: '/prompts/logout/default-text/en', status: 200, schema: CustomTextSchema }),
    'GET /prompts/:prompt/partials': async () => ({ url: '/prompts/login-passwordless/partials', status: 200, schema: z.strictObject({}) }),
    'GET /tenants/settings': async () => ({ url: '/tenants/settings', status: 200, schema: TenantSettingsSchema }),
    'PATCH /tenants/settings': async () => ({ url: '/tenants/settings', body: { friendly_name: 'Matrix' }, status: 200, schema: TenantSettingsSchema }),
    'PUT /keys/signing/:kid/revoke': async () => {
      const before = (await signingKeys()).find((k) => k.current)!;
      await admin('post', '/keys/signing/rotate');
      return { url: `/keys/signing/${before.kid}/revoke`, status: 200, schema: SigningKeyRecordSchema };
    },
  };

  /** Signs like this service would, with any key, for any audience and time. */
  function sign(privateKey: jwt.Secret, kid: string, claims: jwt.JwtPayload): string {
    return jwt.sign({ iss: `${AUTH_URL}/`, aud: MANAGEMENT_AUDIENCE, sub: 'test-admin@clients', azp: 'test-admin', scope: MANAGEMENT_SCOPES.join(' '), ...claims }, privateKey, {
      algorithm: 'RS256',
      keyid: kid,
    });
  }

  const foreignKey = detachedKeyPair('rsa', { modulusLength: 2048 }).privateKey;
  /** An M2M client holding every management scope name, but for another API. */
  let otherAudience: { clientId: string; clientSecret: string; audience: string };

  beforeAll(async () => {
    h = await FlowHarness.start({ PASSWORDLESS_START_LIMIT_PER_IP_PER_HOUR: '1000' });
    const api = await createApi([...MANAGEMENT_SCOPES]);
    const client = await createClient();
    await admin('post', '/client-grants', { client_id: client.client_id, audience: api.identifier, scope: [...MANAGEMENT_SCOPES] });
    otherAudience = { clientId: client.client_id, clientSecret: client.client_secret, audience: api.identifier };
  });
  afterEach(() => h.gateway.reset());
  afterAll(() => h.close());

  function send(route: ManagementRoute, token?: string, url = placeholderUrl(route), body?: object): request.Test {
    const req = request(h.identity.app)[route.method](url);
    if (token !== undefined) req.set('authorization', `Bearer ${token}`);
    return body === undefined ? req : req.send(body);
  }

  function expectInvalidToken(res: request.Response, description: string | RegExp, tokenSent = true): void {
    expect(res.status).toBe(401);
    const body = OAuthErrorBodySchema.strict().parse(res.body);
    expect(body.error).toBe(ErrorCodes.INVALID_TOKEN);
    expect(body.error_description).toMatch(description);
    expect(res.headers['www-authenticate']).toBe(tokenSent ? 'Bearer realm="api/v2", error="invalid_token"' : 'Bearer realm="api/v2"');
  }

  describe('the route table', () => {
    it('lists the management API routes from the router', () => {
      // Guards the enumeration itself: an empty or half-read table would make the matrix vacuous.
      expect(ROUTES.length).toBeGreaterThanOrEqual(30);
      expect(ROUTES.map(key)).toEqual(expect.arrayContaining(['GET /connections', 'POST /connections', 'PUT /keys/signing/:kid/revoke']));
    });

    it('gives every route exactly one scope, and only scopes the admin can be granted', () => {
      expect(ROUTES.filter((r) => r.scopes.length !== 1).map(key)).toEqual([]);
      expect(ROUTES.filter((r) => !MANAGEMENT_SCOPES.includes(scopeOf(r))).map(key)).toEqual([]);
    });

    it('has a success case for every route, and none for a route that does not exist', () => {
      expect(Object.keys(SUCCESS).sort()).toEqual(ROUTES.map(key).sort());
    });

    it.each([
      ['get', '/api/v2/no-such-route'],
      ['put', '/api/v2/connections'],
    ] as const)('authenticates before routing: %s %s is 401 without a token, 404 with one', async (method, url) => {
      const route: ManagementRoute = { method, path: url, scopes: [] };
      expectInvalidToken(await send(route, undefined, url), /^Missing bearer token$/, false);
      const res = await send(route, await adminToken(h.identity.app), url);
      expect(res.status).toBe(404);
      expect(OAuthErrorBodySchema.strict().parse(res.body).error).toBe(ErrorCodes.NOT_FOUND);
    });
  });

  describe.each(ROUTES.map((r) => [key(r), scopeOf(r), r] as const))('%s (needs %s)', (_name, scope, route) => {
    it('answers 401 invalid_token without a token', async () => {
      expectInvalidToken(await send(route), /^Missing bearer token$/, false);
    });

    it('answers 401 to a token that has expired', async () => {
      // Issued by /oauth/token two days ago by the service clock, so it is a real token past its exp.
      h.clock.advance(-2 * 86_400);
      let token: string;
      try {
        token = await adminToken(h.identity.app);
      } finally {
        h.clock.advance(2 * 86_400);
      }
      expectInvalidToken(await send(route, token), /^Invalid token: jwt expired$/);
    });

    it('answers 401 to a token of this service for another audience, even one carrying the scope', async () => {
      const token = await clientCredentialsToken(
        h.identity.app,
        { clientId: otherAudience.clientId, clientSecret: otherAudience.clientSecret },
        otherAudience.audience,
        scope,
      );
      expect((jwt.decode(token) as jwt.JwtPayload).scope).toBe(scope);
      expectInvalidToken(await send(route, token), /^Invalid token: jwt audience invalid/);
    });

    it('answers 401 to a token signed by a foreign key under the kid of the live key', async () => {
      const { kid } = (await signingKeys()).find((k) => k.current)!;
      const now = Math.floor(h.clock.now().getTime() / 1000);
      const token = sign(foreignKey, kid, { iat: now, exp: now + 600 });
      expectInvalidToken(await send(route, token), /^Invalid token: invalid signature$/);
    });

    it('answers 401 to a token signed by a foreign key under a kid of its own', async () => {
      const now = Math.floor(h.clock.now().getTime() / 1000);
      const token = sign(foreignKey, 'attacker-key', { iat: now, exp: now + 600 });
      expectInvalidToken(await send(route, token), /^Invalid token: unknown signing key$/);
    });

    it(`answers 403 insufficient_scope to an admin token holding every scope but ${scope}`, async () => {
      const token = await adminToken(h.identity.app, MANAGEMENT_SCOPES.filter((s) => s !== scope).join(' '));
      const res = await send(route, token);
      expect(res.status).toBe(403);
      expect(OAuthErrorBodySchema.strict().parse(res.body)).toEqual({
        error: ErrorCodes.INSUFFICIENT_SCOPE,
        error_description: `Insufficient scope, expected: ${scope}`,
      });
      expect(res.headers['www-authenticate']).toBe(`Bearer realm="api/v2", error="insufficient_scope", scope="${scope}"`);
    });

    it(`succeeds with a token holding only ${scope}`, async () => {
      const success = SUCCESS[key(route)];
      if (!success) throw new Error(`no success case for ${key(route)}: add one to SUCCESS`);
      const { url, body, upload, status, schema } = await success();
      // Minted after the case's setup, which may rotate the signing key.
      const token = await adminToken(h.identity.app, scope);
      let req = send(route, token, `/api/v2${url}`, body);
      if (upload) {
        req = req.attach('users', upload.users, 'users.json');
        for (const [name, value] of Object.entries(upload.fields)) req = req.field(name, value);
      }
      const res = await req;
      expect({ status: res.status, body: res.body }).toEqual({ status, body: expect.anything() });
      if (schema) schema.parse(res.body);
    });
  });
});
