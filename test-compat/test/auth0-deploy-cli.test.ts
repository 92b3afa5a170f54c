import { ManagementClient, readCodeFromOutbox, requestJson } from '@smsauth/stack';
import { randomPhone } from '../src/fixtures';
import { editExport, editSingletons, launchDeployTenant, readExport, readModel, readSingletons, type DeployFormat, type DeployTenant, type TenantModel, type TenantSingletons } from '../src/deploy-cli';

// auth0-deploy-cli (pinned in package.json), run as its users run it, against a stack of its own:
// export, import of that export, export again; then an import of edited files; and a client file
// as an Auth0 tenant exports it.

// A stack of its own to launch, and each a0deploy run is a process that pages the whole tenant.
jest.setTimeout(240_000);

let tenant: DeployTenant;
let admin: ManagementClient;

beforeAll(async () => {
  tenant = await launchDeployTenant();
  admin = new ManagementClient(tenant.stack.urls.authUrl, tenant.stack.adminClientId, tenant.stack.adminClientSecret);
  // A role of the tenant's own, without permissions yet: the edited files give it one.
  await admin.call('POST', '/roles', { name: 'Dispatcher', description: 'Books airport transfers' });
  // The tenant's language, brand and a text. One language: the tool reads every prompt's text in each enabled language at
  // its fixed pace of 8 requests a second (about 5 s per language and export).
  await admin.call('PATCH', '/tenants/settings', TENANT_SETTINGS);
  await admin.call('PATCH', '/branding', BRANDING);
  await admin.call('PUT', '/prompts/login-passwordless/custom-text/en', CUSTOM_TEXT_EN);
});

const TENANT_SETTINGS = { enabled_locales: ['en'], friendly_name: 'Airport Transfers', support_email: 'help@transfers.example.com' };
const BRANDING = { colors: { primary: '#0059d6', page_background: '#f4f4f8' }, logo_url: 'https://transfers.example.com/logo.png' };
const CUSTOM_TEXT_EN = { 'login-passwordless-sms-otp': { title: 'Your transfer code', buttonText: 'Continue' } };
afterAll(() => tenant?.stop());

const byName = (records: Array<Record<string, unknown>>, name: string) => {
  const found = records.find((r) => r.name === name);
  if (!found) throw new Error(`no record named ${name} in the export`);
  return found;
};

/** A single-page app's file as auth0-deploy-cli exports it from an Auth0 tenant (clients/Dispatch Web.json). */
const FROM_AUTH0_TENANT = {
  name: 'Dispatch Web',
  allowed_clients: [],
  allowed_logout_urls: ['https://dispatch.example.com'],
  app_type: 'spa',
  callbacks: ['https://dispatch.example.com/callback'],
  client_aliases: [],
  client_metadata: { team: 'dispatch' },
  compliance_level: null,
  custom_login_page_on: true,
  grant_types: ['authorization_code', 'implicit', 'refresh_token'],
  is_first_party: true,
  is_token_endpoint_ip_header_trusted: false,
  jwt_configuration: { alg: 'RS256', lifetime_in_seconds: 7200, secret_encoded: false },
  logo_uri: 'https://dispatch.example.com/logo.png',
  native_social_login: { apple: { enabled: false }, facebook: { enabled: false }, google: { enabled: false } },
  oidc_conformant: true,
  organization_usage: 'deny',
  require_proof_of_possession: false,
  require_pushed_authorization_requests: false,
  sso_disabled: false,
  token_endpoint_auth_method: 'none',
  web_origins: ['https://dispatch.example.com'],
};

/**
 * What a user changes in the exported files: the SMS template, three new applications (one
 * signs in by SMS, one gets a grant, one is a file from an Auth0 tenant), a role's permissions.
 */
function changesFor(apiAudience: string) {
  const fieldApp = { name: 'Field App', app_type: 'native', description: 'Signs drivers in', grant_types: ['http://auth0.com/oauth/grant-type/passwordless/otp'] };
  const reportingApp = { name: 'Reporting', app_type: 'non_interactive', description: 'Nightly airport report' };
  const grant = { client_id: reportingApp.name, audience: apiAudience, scope: ['read:airports'] };
  const template = 'Your code for @@application.name@@ is @@password@@';
  const permission = { resource_server_identifier: apiAudience, permission_name: 'read:airports' };
  const apply = (model: TenantModel): void => {
    const sms = byName(model.connections, 'sms');
    sms.options = { ...(sms.options as object), template };
    sms.enabled_clients = [...(sms.enabled_clients as string[]), fieldApp.name];
    model.clients.push({ ...fieldApp }, { ...reportingApp }, structuredClone(FROM_AUTH0_TENANT));
    model.clientGrants.push({ ...grant });
    byName(model.roles, 'Dispatcher').permissions = [{ ...permission }];
  };
  // French instead of English, a new colour, the texts in French (the English ones stay stored: the tool never deletes).
  const tenantSettings = { enabled_locales: ['fr'], friendly_name: 'Transferts aéroport' };
  const branding = { ...BRANDING, colors: { ...BRANDING.colors, primary: '#aa3300' } };
  const logoutTextFr = { 'logout-complete': { title: 'Vous êtes déconnecté' } };
  const applySingletons = (singletons: TenantSingletons): void => {
    Object.assign(singletons.tenant, tenantSettings);
    singletons.branding = structuredClone(branding);
    singletons.customText = { fr: { 'login-passwordless': { 'login-passwordless-sms-otp': { title: 'Votre code' } }, logout: structuredClone(logoutTextFr) } };
  };
  return { fieldApp, reportingApp, grant, template, apply, tenantSettings, branding, logoutTextFr, applySingletons };
}

/**
 * Lists that are sets put in one order: records by name (grants by client and API), a
 * connection's enabled clients. The tool writes new records where it likes (tenant.yaml) and
 * the edited files appended them.
 */
function inOneOrder(model: TenantModel): TenantModel {
  const keyOf = (r: Record<string, unknown>) => String(r.name ?? `${String(r.client_id)} ${String(r.audience)}`);
  const sorted = (records: Array<Record<string, unknown>>) => [...records].sort((a, b) => keyOf(a).localeCompare(keyOf(b)));
  return {
    clients: sorted(model.clients),
    connections: sorted(model.connections).map((c) => ({ ...c, enabled_clients: [...(c.enabled_clients as string[])].sort() })),
    resourceServers: sorted(model.resourceServers),
    clientGrants: sorted(model.clientGrants),
    roles: sorted(model.roles),
  };
}

describe.each<DeployFormat>(['directory', 'yaml'])('auth0-deploy-cli, %s format', (format) => {
  it('imports its own export without a change: a second export equals the first, file for file', async () => {
    const first = await tenant.exportTenant(format);
    await tenant.importTenant(first);
    const second = await tenant.exportTenant(format);
    expect(readExport(second)).toEqual(readExport(first));
    // The gateway secret is write-only: never exported (so never sent back), and still in force (below).
    const options = byName(readModel(first).connections, 'sms').options as { gateway_authentication: Record<string, unknown> };
    expect(options.gateway_authentication).toMatchObject({ method: 'bearer', subject: expect.any(String) });
    expect(options.gateway_authentication).not.toHaveProperty('secret');
    // The tenant's settings, brand and texts are in the files (the session lifetimes in force, in hours).
    const { tenant: settings, branding, customText } = readSingletons(first);
    expect(settings).toMatchObject({ ...TENANT_SETTINGS, session_lifetime: 168, idle_session_lifetime: 72 });
    // The tool's YAML writes the branding templates it found (none: there is no custom domain) as an empty list.
    expect(branding).toEqual(format === 'yaml' ? { ...BRANDING, templates: [] } : BRANDING);
    expect(customText).toEqual({ en: { 'login-passwordless': CUSTOM_TEXT_EN } });
  });
});

// Edits in one format (the directory's, through the Node API): the YAML round trip above already
// proves that format reads and writes every record; each import costs the tool seconds of schema work.
describe('auth0-deploy-cli, edited files', () => {
  it('lands edited files (a template, applications, an Auth0 client file, a grant, role permissions, languages, brand, a text) and nothing else moves; the connection still delivers', async () => {
    const exported = await tenant.exportTenant('directory');
    const changes = changesFor(tenant.stack.apiAudience);
    editExport(exported, changes.apply);
    editSingletons(exported, changes.applySingletons);
    await tenant.importTenant(exported);

    const afterExport = await tenant.exportTenant('directory');
    const after = readModel(afterExport);
    const expected = readModel(exported);
    // The Auth0 client's settings come back as the file had them, but for those that can only be off
    // and the older name cross_origin_auth (shown as cross_origin_authentication), which are not shown.
    const auth0File = byName(expected.clients, FROM_AUTH0_TENANT.name);
    expect(byName(after.clients, FROM_AUTH0_TENANT.name)).toMatchObject({ cross_origin_authentication: false });
    for (const field of ['compliance_level', 'require_proof_of_possession', 'require_pushed_authorization_requests', 'cross_origin_auth']) {
      expect(byName(after.clients, FROM_AUTH0_TENANT.name)).not.toHaveProperty(field);
      delete auth0File[field];
    }
    // New clients come back with the settings identity gives a new client besides what the file said.
    for (const app of [changes.fieldApp, changes.reportingApp, { ...auth0File }]) {
      const name = String(app.name);
      expect(byName(after.clients, name)).toMatchObject(app);
      Object.assign(byName(expected.clients, name), byName(after.clients, name));
    }
    expect(inOneOrder(after)).toEqual(inOneOrder(expected));
    // The edited languages, brand and texts landed, and the next export shows them as the files had them.
    expect(readSingletons(afterExport)).toEqual(readSingletons(exported));
    expect(await admin.call('GET', '/tenants/settings')).toMatchObject(changes.tenantSettings);
    expect(await admin.call('GET', '/branding')).toEqual(changes.branding);
    expect(await admin.call('GET', '/prompts/logout/custom-text/fr')).toEqual(changes.logoutTextFr);

    // Through the management API too: the grant and the permission are in force.
    const reporting = (await admin.listClients()).find((c) => c.name === changes.reportingApp.name)!;
    expect((await admin.listClientGrants()).filter((g) => g.client_id === reporting.client_id)).toEqual([
      expect.objectContaining({ audience: changes.grant.audience, scope: changes.grant.scope }),
    ]);

    // The Field App signs in by SMS: the edited template, delivered through the gateway with the secret the import left in place.
    const fieldApp = (await admin.listClients()).find((c) => c.name === changes.fieldApp.name)!;
    const phone = randomPhone();
    const sentAfter = new Date(Date.now() - 1000);
    const start = await requestJson(`${tenant.stack.urls.authUrl}/passwordless/start`, {
      method: 'POST',
      json: { client_id: fieldApp.client_id, connection: 'sms', phone_number: phone, send: 'code' },
    });
    expect(start.status).toBe(200);
    const code = await readCodeFromOutbox(tenant.stack.urls.gatewayUrl, phone, { notBefore: sentAfter });
    const outbox = await requestJson(`${tenant.stack.urls.gatewayUrl}/outbox/messages?recipient=${encodeURIComponent(phone)}`);
    expect((outbox.body as Array<{ body: string }>).map((m) => m.body)).toContain(`Your code for ${changes.fieldApp.name} is ${code}`);
  });
});
