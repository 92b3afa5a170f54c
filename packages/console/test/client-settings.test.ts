import type { Client, ResourceServer } from '../src/screens/applications-data';
import { apiChanges, apiFormOf, clientChanges, clientFormOf, roleChanges } from '../src/screens/client-settings';

const client: Client = {
  client_id: 'abc123',
  name: 'Dispatch',
  app_type: 'regular_web',
  callbacks: ['https://dispatch.example.com/callback'],
  allowed_origins: [],
  grant_types: ['authorization_code', 'refresh_token'],
  token_endpoint_auth_method: 'client_secret_post',
  allowed_logout_urls: [],
  web_origins: ['https://dispatch.example.com'],
  oidc_conformant: true,
  refresh_token: {
    rotation_type: 'rotating',
    expiration_type: 'expiring',
    leeway: 0,
    token_lifetime: 2592000,
    infinite_token_lifetime: true,
    idle_token_lifetime: 2592000,
    infinite_idle_token_lifetime: false,
  },
  cross_origin_authentication: false,
  client_metadata: { team: 'ops' },
};

describe("a client's settings form, as the PATCH of what changed", () => {
  it('sends nothing when nothing changed (a record read back is its own form)', () => {
    expect(clientChanges(client, clientFormOf(client))).toEqual({ patch: {}, changes: [] });
  });

  it('sends only the changed fields and names each with its old and new value', () => {
    const form = { ...clientFormOf(client), allowed_logout_urls: 'https://dispatch.example.com/bye\nhttps://dispatch.example.com/', token_endpoint_auth_method: 'client_secret_basic' };
    const { patch, changes } = clientChanges(client, form);
    expect(patch).toEqual({ allowed_logout_urls: ['https://dispatch.example.com/bye', 'https://dispatch.example.com/'], token_endpoint_auth_method: 'client_secret_basic' });
    expect(changes).toEqual([
      { field: 'allowed_logout_urls', label: 'Allowed logout URLs', from: '(none)', to: 'https://dispatch.example.com/bye, https://dispatch.example.com/' },
      { field: 'token_endpoint_auth_method', label: 'Token endpoint authentication', from: 'client_secret_post', to: 'client_secret_basic' },
    ]);
  });

  it('sends the refresh-token settings whole (the API replaces them), listing only the changed ones', () => {
    const { patch, changes } = clientChanges(client, { ...clientFormOf(client), rotation_type: 'non-rotating', idle_token_lifetime: '86400' });
    expect(patch).toEqual({ refresh_token: { ...client.refresh_token, rotation_type: 'non-rotating', idle_token_lifetime: 86400 } });
    expect(changes.map((c) => [c.field, c.from, c.to])).toEqual([
      ['refresh_token.rotation_type', 'rotating', 'non-rotating'],
      ['refresh_token.idle_token_lifetime', '2592000', '86400'],
    ]);
  });

  it('treats grant types as a set: the same ones in another order are no change', () => {
    expect(clientChanges(client, { ...clientFormOf(client), grant_types: ['refresh_token', 'authorization_code'] }).changes).toEqual([]);
  });

  it('clears optional URLs with null, and an emptied logout configuration removes it', () => {
    const withLogout: Client = { ...client, initiate_login_uri: 'https://dispatch.example.com/login', oidc_logout: { backchannel_logout_urls: ['https://dispatch.example.com/bc'], backchannel_logout_initiators: { mode: 'custom', selected_initiators: [] } } };
    const { patch } = clientChanges(withLogout, { ...clientFormOf(withLogout), initiate_login_uri: '', backchannel_logout_url: '' });
    expect(patch).toEqual({ initiate_login_uri: null, oidc_logout: null });
  });

  it('builds the back-channel logout settings from the URL and the chosen events', () => {
    const { patch } = clientChanges(client, { ...clientFormOf(client), backchannel_logout_url: 'https://dispatch.example.com/bc', backchannel_initiators: ['account-deleted'] });
    expect(patch).toEqual({ oidc_logout: { backchannel_logout_urls: ['https://dispatch.example.com/bc'], backchannel_logout_initiators: { mode: 'custom', selected_initiators: ['account-deleted'] } } });
  });

  it("sends a changed Auth0 setting of the JSON, and refuses JSON that does not parse before asking anything", () => {
    const form = clientFormOf(client);
    expect(JSON.parse(form.other_settings)).toEqual({ client_metadata: { team: 'ops' } });
    expect(clientChanges(client, { ...form, other_settings: '{"client_metadata":{"team":"dispatch"},"is_first_party":true}' }).patch).toEqual({ client_metadata: { team: 'dispatch' }, is_first_party: true });
    expect(() => clientChanges(client, { ...form, other_settings: '{client_metadata' })).toThrow('Other Auth0 settings: not valid JSON');
  });

  it('leaves a private_key_jwt client\'s method alone (its keys are registered through the API)', () => {
    const jwt: Client = { ...client, token_endpoint_auth_method: null };
    const form = clientFormOf(jwt);
    expect(form.token_endpoint_auth_method).toBe('');
    expect(clientChanges(jwt, form).patch).toEqual({});
  });
});

const flights: ResourceServer = {
  id: 'rs1',
  name: 'Flights',
  identifier: 'https://flights.example.com/',
  signing_alg: 'RS256',
  token_lifetime: 86400,
  scopes: [
    { value: 'read:flights', description: 'Read flights' },
    { value: 'book:flights', description: '' },
  ],
  is_system: false,
  enforce_policies: false,
  token_dialect: 'access_token',
};

describe("an API's settings form", () => {
  it('names each scope added, removed or described again, and sends the whole list', () => {
    const form = { ...apiFormOf(flights), scopes: 'read:flights Read every flight\ncancel:flights Cancel a flight' };
    const { patch, changes } = apiChanges(flights, form);
    expect(patch).toEqual({ scopes: [{ value: 'read:flights', description: 'Read every flight' }, { value: 'cancel:flights', description: 'Cancel a flight' }] });
    expect(changes.map((c) => `${c.label}: ${c.from} → ${c.to}`)).toEqual([
      'Description of read:flights: Read flights → Read every flight',
      'Scope cancel:flights: (none) → added: Cancel a flight',
      'Scope book:flights: defined → removed',
    ]);
  });

  it('sends the RBAC settings as booleans and names', () => {
    const { patch } = apiChanges(flights, { ...apiFormOf(flights), enforce_policies: true, token_dialect: 'access_token_authz', token_lifetime: '3600' });
    expect(patch).toEqual({ token_lifetime: 3600, enforce_policies: true, token_dialect: 'access_token_authz' });
  });

  it('never sends the management API\'s name or scopes (the API refuses changing them)', () => {
    const management = { ...flights, is_system: true };
    expect(apiChanges(management, { ...apiFormOf(management), name: 'Mine', scopes: '', enforce_policies: true }).patch).toEqual({ enforce_policies: true });
  });
});

describe("a role's name and description", () => {
  it('sends what changed, trimmed', () => {
    expect(roleChanges({ name: 'Auditor', description: '' }, { name: ' Auditors ', description: '' })).toEqual({
      patch: { name: 'Auditors' },
      changes: [{ field: 'name', label: 'Name', from: 'Auditor', to: 'Auditors' }],
    });
  });
});
