import { MANAGEMENT_SCOPES } from '@smsauth/contracts';
import jwt from 'jsonwebtoken';
import { BUILT_IN_ROLES } from '../../src/domain/management/built-in-roles';
import { MANAGEMENT_AUDIENCE } from '../helpers';
import { CALLBACK } from '../authorize/login-session';
import { describeOnEachDatabase, FlowHarness, type LoginSetup } from '../passwordless/flow-harness';
import { createUser, managementScopesOf, signInWithPkce } from './operator-login';

const EVERY_MANAGEMENT_SCOPE = `openid offline_access ${MANAGEMENT_SCOPES.join(' ')}`;
const SUPPORT_SCOPES = [...BUILT_IN_ROLES.find((r) => r.key === 'support')!.scopes].sort();

describeOnEachDatabase('role-based access control for user logins', (database) => {
  let h: FlowHarness;
  let spa: LoginSetup;
  let roleIds: Record<string, string>;

  beforeAll(async () => {
    h = await FlowHarness.start({}, { database });
    spa = await h.loginSetup({}, { name: 'Console', app_type: 'spa', callbacks: [CALLBACK] });
    const roles = await h.management('get', '/roles');
    roleIds = Object.fromEntries((roles.body as Array<{ id: string; name: string }>).map((r) => [r.name, r.id]));
  });
  afterAll(() => h.close());

  const asUser = (token: string, method: 'get' | 'post' | 'patch' | 'delete', path: string, body?: object) => {
    const req = h.http()[method](`/api/v2${path}`).set('authorization', `Bearer ${token}`);
    return body ? req.send(body) : req;
  };

  async function operator(roles: string[]): Promise<{ who: { phone: string; ip: string }; userId: string }> {
    const who = h.caller();
    const userId = await createUser(h, spa, who.phone);
    if (roles.length) expect((await h.management('post', `/users/${encodeURIComponent(userId)}/roles`, { roles: roles.map((r) => roleIds[r]) })).status).toBe(204);
    return { who, userId };
  }

  it('seeds the built-in roles Admin, Support and Viewer, Admin holding every management scope', async () => {
    expect(Object.keys(roleIds).sort()).toEqual(['Admin', 'Support', 'Viewer']);
    const list = await h.management('get', `/roles/${roleIds.Admin}/permissions?per_page=100&include_totals=true`);
    expect(list.body.total).toBe(MANAGEMENT_SCOPES.length);
    expect(list.body.permissions[0]).toMatchObject({ resource_server_identifier: MANAGEMENT_AUDIENCE, resource_server_name: 'Auth0 Management API' });
  });

  it("gives a Support operator's token exactly Support's permissions, in scope and in the permissions claim", async () => {
    const { who, userId } = await operator(['Support']);
    const res = await signInWithPkce(h, spa, who, EVERY_MANAGEMENT_SCOPE);
    expect(res.status).toBe(200);
    expect(managementScopesOf(res.body.scope, MANAGEMENT_SCOPES)).toEqual(SUPPORT_SCOPES);
    const { claims } = await h.verifyWithJwks(res.body.access_token, MANAGEMENT_AUDIENCE);
    expect(claims.sub).toBe(userId);
    expect([...(claims.permissions as string[])].sort()).toEqual(SUPPORT_SCOPES);
    expect((await asUser(res.body.access_token, 'get', '/users')).status).toBe(200);
    const refused = await asUser(res.body.access_token, 'post', '/roles', { name: 'Escalated' });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toBe('insufficient_scope');
    expect((await asUser(res.body.access_token, 'post', `/users/${encodeURIComponent(userId)}/roles`, { roles: [roleIds.Admin] })).status).toBe(403);
  });

  it('gives a user with no role the management audience with no management scope, and the API refuses it', async () => {
    const { who } = await operator([]);
    const res = await signInWithPkce(h, spa, who, EVERY_MANAGEMENT_SCOPE);
    expect(res.status).toBe(200);
    expect(res.body.scope).toBe('openid offline_access');
    const { claims } = await h.verifyWithJwks(res.body.access_token, MANAGEMENT_AUDIENCE);
    expect(claims.permissions).toEqual([]);
    const refused = await asUser(res.body.access_token, 'get', '/users');
    expect(refused.status).toBe(403);
    expect(refused.body.error).toBe('insufficient_scope');
  });

  it('takes a removed role away from the next token: the refresh answers without its scopes', async () => {
    const { who, userId } = await operator(['Viewer']);
    const first = await signInWithPkce(h, spa, who, EVERY_MANAGEMENT_SCOPE);
    expect(managementScopesOf(first.body.scope, MANAGEMENT_SCOPES)).toContain('read:users');
    expect((await h.management('delete', `/users/${encodeURIComponent(userId)}/roles`, { roles: [roleIds.Viewer] })).status).toBe(204);
    const refreshed = await h.http().post('/oauth/token').send({ grant_type: 'refresh_token', client_id: spa.clientId, refresh_token: first.body.refresh_token });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.scope).toBe('openid offline_access');
    expect((await asUser(refreshed.body.access_token, 'get', '/users')).status).toBe(403);
  });

  it('gives a custom role and a direct permission, lists each permission with its sources, and the token carries both', async () => {
    const role = await h.management('post', '/roles', { name: 'Auditor', description: 'Reads logs' });
    expect(role.status).toBe(200);
    expect(role.body).toEqual({ id: expect.stringMatching(/^rol_/), name: 'Auditor', description: 'Reads logs', built_in: false });
    const readLogs = { resource_server_identifier: MANAGEMENT_AUDIENCE, permission_name: 'read:logs' };
    const readStats = { resource_server_identifier: MANAGEMENT_AUDIENCE, permission_name: 'read:stats' };
    expect((await h.management('post', `/roles/${role.body.id}/permissions`, { permissions: [readLogs] })).status).toBe(201);
    const who = h.caller();
    const userId = await createUser(h, spa, who.phone);
    expect((await h.management('post', `/roles/${role.body.id}/users`, { users: [userId] })).status).toBe(204);
    expect((await h.management('post', `/users/${encodeURIComponent(userId)}/permissions`, { permissions: [readStats, readLogs] })).status).toBe(201);

    const members = await h.management('get', `/roles/${role.body.id}/users?include_totals=true`);
    expect(members.body).toMatchObject({ total: 1, users: [{ user_id: userId, phone_number: who.phone }] });
    const userRoles = await h.management('get', `/users/${encodeURIComponent(userId)}/roles`);
    expect(userRoles.body).toEqual([role.body]);
    const permissions = await h.management('get', `/users/${encodeURIComponent(userId)}/permissions`);
    expect(permissions.body).toEqual([
      {
        ...readLogs,
        resource_server_name: 'Auth0 Management API',
        description: 'read logs',
        sources: [
          { source_id: '', source_name: '', source_type: 'DIRECT' },
          { source_id: role.body.id, source_name: 'Auditor', source_type: 'ROLE' },
        ],
      },
      { ...readStats, resource_server_name: 'Auth0 Management API', description: 'read stats', sources: [{ source_id: '', source_name: '', source_type: 'DIRECT' }] },
    ]);

    const res = await signInWithPkce(h, spa, who, EVERY_MANAGEMENT_SCOPE);
    expect(managementScopesOf(res.body.scope, MANAGEMENT_SCOPES)).toEqual(['read:logs', 'read:stats']);

    expect((await h.management('delete', `/users/${encodeURIComponent(userId)}/permissions`, { permissions: [readStats, readLogs] })).status).toBe(204);
    expect((await h.management('delete', `/roles/${role.body.id}`)).status).toBe(204);
    expect((await h.management('get', `/users/${encodeURIComponent(userId)}/permissions`)).body).toEqual([]);
  });

  it('pages and filters the roles, refuses a duplicate name and an unknown permission', async () => {
    const page = await h.management('get', '/roles?name_filter=VIEW&include_totals=true&per_page=1');
    expect(page.body).toEqual({ start: 0, limit: 1, total: 1, roles: [expect.objectContaining({ name: 'Viewer', built_in: true })] });
    expect((await h.management('post', '/roles', { name: 'viewer' })).status).toBe(409);
    const unknown = await h.management('post', `/roles/${roleIds.Viewer}/permissions`, {
      permissions: [{ resource_server_identifier: MANAGEMENT_AUDIENCE, permission_name: 'fly:planes' }],
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.details[0].path).toBe('permissions.0.permission_name');
    const noApi = await h.management('post', `/roles/${roleIds.Viewer}/permissions`, {
      permissions: [{ resource_server_identifier: 'https://nowhere.example.com', permission_name: 'x' }],
    });
    expect(noApi.body.details[0].path).toBe('permissions.0.resource_server_identifier');
    expect((await h.management('post', '/users/sms%7Cnobody/roles', { roles: [roleIds.Viewer] })).status).toBe(404);
    expect((await h.management('post', `/roles/${roleIds.Viewer}/users`, { users: ['sms|nobody'] })).status).toBe(400);
  });

  it('keeps the built-in roles: not deleted, and Admin keeps every management scope, and only those', async () => {
    expect((await h.management('delete', `/roles/${roleIds.Support}`)).status).toBe(403);
    // Re-applied as auth0-deploy-cli does (remove all, add the file's): accepted, and nothing moves.
    const readUsers = [{ resource_server_identifier: MANAGEMENT_AUDIENCE, permission_name: 'read:users' }];
    expect((await h.management('delete', `/roles/${roleIds.Admin}/permissions`, { permissions: readUsers })).status).toBe(204);
    expect((await h.management('post', `/roles/${roleIds.Admin}/permissions`, { permissions: readUsers })).status).toBe(201);
    const held = await h.management('get', `/roles/${roleIds.Admin}/permissions?per_page=100&include_totals=true`);
    expect(held.body.total).toBe(MANAGEMENT_SCOPES.length);
    const other = [{ resource_server_identifier: 'https://elsewhere.example.com', permission_name: 'read:things' }];
    const change = await h.management('delete', `/roles/${roleIds.Admin}/permissions`, { permissions: other });
    expect(change.status).toBe(403);
    expect(change.body.error_description).toMatch(/Admin role always holds every management scope/);
    const renamed = await h.management('patch', `/roles/${roleIds.Viewer}`, { description: 'Read-only operators' });
    expect(renamed.body).toMatchObject({ name: 'Viewer', description: 'Read-only operators', built_in: true });
  });

  it('accepts built_in sent back unchanged (as GET shows it) and refuses a change to it', async () => {
    const viewer = await h.management('get', `/roles/${roleIds.Viewer}`);
    const sentBack = await h.management('patch', `/roles/${roleIds.Viewer}`, { name: 'Viewer', description: viewer.body.description, built_in: true });
    expect(sentBack.status).toBe(200);
    expect(sentBack.body).toEqual(viewer.body);
    const demoted = await h.management('patch', `/roles/${roleIds.Viewer}`, { built_in: false });
    expect(demoted.status).toBe(400);
    expect(demoted.body.details).toEqual([{ path: 'built_in', message: expect.stringMatching(/read-only/) }]);
    const created = await h.management('post', '/roles', { name: 'Dispatcher', built_in: false });
    expect(created.body).toMatchObject({ name: 'Dispatcher', built_in: false });
    expect((await h.management('patch', `/roles/${created.body.id}`, { built_in: false })).status).toBe(200);
    expect((await h.management('patch', `/roles/${created.body.id}`, { built_in: true })).status).toBe(400);
    const promoted = await h.management('post', '/roles', { name: 'Superuser', built_in: true });
    expect(promoted.status).toBe(400);
    expect(promoted.body.details[0].path).toBe('built_in');
  });

  it("names the acting operator in the tenant log of a change made with the operator's token", async () => {
    const admin = await operator(['Admin']);
    const target = await operator([]);
    const token = (await signInWithPkce(h, spa, admin.who, EVERY_MANAGEMENT_SCOPE)).body.access_token;
    expect((await asUser(token, 'patch', `/users/${encodeURIComponent(target.userId)}`, { blocked: true })).status).toBe(200);
    const logs = await h.management('get', `/logs?q=${encodeURIComponent(`type:sapi AND user_id:"${target.userId}"`)}`);
    expect(logs.body[0].details.request).toMatchObject({ method: 'PATCH', auth: { user: { user_id: admin.userId } } });
    expect(logs.body[0].client_id).toBe(spa.clientId);
  });

  it("refuses an operator's token once the operator is blocked", async () => {
    const { who, userId } = await operator(['Viewer']);
    const token = (await signInWithPkce(h, spa, who, EVERY_MANAGEMENT_SCOPE)).body.access_token;
    expect((await asUser(token, 'get', '/roles')).status).toBe(200);
    await h.management('patch', `/users/${encodeURIComponent(userId)}`, { blocked: true });
    const refused = await asUser(token, 'get', '/roles');
    expect(refused.status).toBe(401);
    expect(refused.body.error_description).toMatch(/blocked/);
  });

  it('enforces policies on an API of its own, without a permissions claim in the access_token dialect', async () => {
    const api = 'https://rbac-flights.example.com';
    await h.createApi({ name: 'Flights', identifier: api, scopes: [{ value: 'read:flights' }, { value: 'book:flights' }], enforce_policies: true });
    const { who, userId } = await operator([]);
    await h.management('post', `/users/${encodeURIComponent(userId)}/permissions`, { permissions: [{ resource_server_identifier: api, permission_name: 'read:flights' }] });
    const res = await signInWithPkce(h, spa, who, 'openid read:flights book:flights', api);
    expect(res.body.scope).toBe('openid read:flights');
    expect(jwt.decode(res.body.access_token as string)).not.toHaveProperty('permissions');
  });

  it('refuses access_token_authz without enforce_policies', async () => {
    const res = await h.management('post', '/resource-servers', { name: 'X', identifier: 'urn:authz-without-rbac', token_dialect: 'access_token_authz' });
    expect(res.status).toBe(400);
    expect(res.body.details[0].path).toBe('token_dialect');
  });

  it('stops user logins for the management API when its enforce_policies is turned off (and only that, the dialect and the lifetime can change)', async () => {
    const system = (await h.management('get', `/resource-servers/${encodeURIComponent(MANAGEMENT_AUDIENCE)}`)).body;
    expect(system).toMatchObject({ is_system: true, enforce_policies: true, token_dialect: 'access_token_authz' });
    expect((await h.management('patch', `/resource-servers/${system.id}`, { name: 'Renamed' })).status).toBe(403);
    // Operators' tokens can be made short-lived: they last the management API's token_lifetime.
    const shorter = await h.management('patch', `/resource-servers/${system.id}`, { token_lifetime: 3600 });
    expect(shorter.body.token_lifetime).toBe(3600);
    const { who: shortLived } = await operator(['Viewer']);
    expect((await signInWithPkce(h, spa, shortLived, EVERY_MANAGEMENT_SCOPE)).body.expires_in).toBe(3600);
    await h.management('patch', `/resource-servers/${system.id}`, { token_lifetime: 86_400 });
    const off = await h.management('patch', `/resource-servers/${system.id}`, { enforce_policies: false });
    expect(off.body).toMatchObject({ enforce_policies: false, token_dialect: 'access_token' });
    const { who } = await operator(['Admin']);
    const res = await signInWithPkce(h, spa, who, EVERY_MANAGEMENT_SCOPE);
    expect(res.status).toBe(302);
    expect(new URL(res.body.location as string).searchParams.get('error')).toBe('access_denied');
    await h.management('patch', `/resource-servers/${system.id}`, { enforce_policies: true, token_dialect: 'access_token_authz' });
  });
});
