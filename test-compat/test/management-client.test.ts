import { generateKeyPairSync } from 'node:crypto';
import { ManagementError } from 'auth0';
import { AuthApiError } from 'auth0/legacy';
import { compat, randomPhone, uniqueName } from '../src/fixtures';
import { legacyAuthenticationClient, managementClient, smsConnectionOptions } from '../src/sdk';

// auth0@7's ManagementClient, as a user's tooling drives it. Every list() sends
// include_totals=true (connections and client grants also take=50) and reads Auth0's envelope.

const management = managementClient();

/** What a call that must fail with a 404 rejects with: the SDK's error, checked by status. */
async function expectNotFound(call: Promise<unknown>): Promise<void> {
  await expect(call).rejects.toBeInstanceOf(ManagementError);
  await call.catch((err: ManagementError) => expect(err.statusCode).toBe(404));
}

/** Every item of every page, as `for await` walks them; stops past `limit` (a server that ignored paging would loop). */
async function walk<T>(pages: AsyncIterable<T>, limit = 500): Promise<T[]> {
  const items: T[] = [];
  for await (const item of pages) {
    items.push(item);
    if (items.length > limit) break;
  }
  return items;
}

describe('auth0 ManagementClient', () => {
  it('creates, lists, reads, updates and deletes a client', async () => {
    const created = await management.clients.create({ name: uniqueName('compat-client'), app_type: 'regular_web' });
    expect(created.client_id!).toEqual(expect.any(String));
    expect(created.client_secret).toEqual(expect.any(String));

    const listed = await walk(await management.clients.list());
    expect(listed.map((c) => c.client_id)).toContain(created.client_id!);

    expect((await management.clients.get(created.client_id!)).name).toBe(created.name);
    const renamed = uniqueName('compat-client-renamed');
    expect((await management.clients.update(created.client_id!, { name: renamed })).name).toBe(renamed);

    await management.clients.delete(created.client_id!);
    await expectNotFound(management.clients.get(created.client_id!));
  });

  it("creates an SMS connection in Auth0's own shape, then lists, reads, updates and deletes it", async () => {
    const name = uniqueName('compat-sms');
    const created = await management.connections.create({
      name,
      strategy: 'sms',
      options: smsConnectionOptions(),
      enabled_clients: [compat.app.clientId],
    });
    expect(created).toMatchObject({ name, strategy: 'sms', enabled_clients: [compat.app.clientId] });

    const listed = await walk(await management.connections.list());
    expect(listed.map((c) => c.id)).toContain(created.id!);
    const byName = await management.connections.list({ name });
    expect(byName.data.map((c) => c.id)).toEqual([created.id]);

    expect(await management.connections.get(created.id!)).toMatchObject({ name, strategy: 'sms' });
    const updated = await management.connections.update(created.id!, { options: smsConnectionOptions('Code: @@password@@') });
    expect(updated.options).toMatchObject({ template: 'Code: @@password@@' });

    await management.connections.delete(created.id!);
    await expectNotFound(management.connections.get(created.id!));
  });

  it('creates, lists, reads, updates and deletes a resource server', async () => {
    const identifier = `https://${uniqueName('compat-api')}.example.com`;
    const created = await management.resourceServers.create({
      name: uniqueName('Compat API'),
      identifier,
      scopes: [{ value: 'read:things', description: 'Read things' }],
    });
    expect(created).toMatchObject({ identifier, signing_alg: 'RS256' });

    const listed = await walk(await management.resourceServers.list());
    expect(listed.map((r) => r.identifier)).toContain(identifier);

    expect((await management.resourceServers.get(created.id!)).identifier).toBe(identifier);
    const updated = await management.resourceServers.update(created.id!, { token_lifetime: 3600 });
    expect(updated.token_lifetime).toBe(3600);

    await management.resourceServers.delete(created.id!);
    await expectNotFound(management.resourceServers.get(created.id!));
  });

  it('creates, lists, reads, updates and deletes a client grant', async () => {
    const client = await management.clients.create({ name: uniqueName('compat-m2m'), app_type: 'non_interactive' });
    const created = await management.clientGrants.create({ client_id: client.client_id!, audience: compat.apiAudience, scope: ['read:airports'] });
    expect(created).toMatchObject({ client_id: client.client_id!, audience: compat.apiAudience, scope: ['read:airports'] });

    const listed = await walk(await management.clientGrants.list());
    expect(listed.map((g) => g.id)).toContain(created.id!);
    const ofClient = await management.clientGrants.list({ client_id: client.client_id });
    expect(ofClient.data.map((g) => g.id)).toEqual([created.id]);

    expect((await management.clientGrants.get(created.id!)).audience).toBe(compat.apiAudience);
    expect((await management.clientGrants.update(created.id!, { scope: [] })).scope).toEqual([]);

    await management.clientGrants.delete(created.id!);
    await expectNotFound(management.clientGrants.get(created.id!));
    await management.clients.delete(client.client_id!);
  });

  it('creates a user on connection sms, then reads, finds, updates and deletes it', async () => {
    const phone = randomPhone();
    const created = await management.users.create({ connection: 'sms', phone_number: phone, phone_verified: true, user_metadata: { plan: 'trial' } });
    expect(created).toMatchObject({ phone_number: phone, phone_verified: true, user_metadata: { plan: 'trial' } });

    expect((await management.users.get(created.user_id!)).phone_number).toBe(phone);
    const found = await management.users.list({ q: `phone_number:"${phone}"`, search_engine: 'v3' });
    expect(found.data.map((u) => u.user_id)).toEqual([created.user_id]);
    const listed = await walk(await management.users.list());
    expect(listed.map((u) => u.user_id)).toContain(created.user_id);

    const updated = await management.users.update(created.user_id!, { user_metadata: { plan: 'paid' }, app_metadata: { tier: 2 } });
    expect(updated).toMatchObject({ user_metadata: { plan: 'paid' }, app_metadata: { tier: 2 } });

    await management.users.delete(created.user_id!);
    await expectNotFound(management.users.get(created.user_id!));
  });

  it('blocks and unblocks a user with blocked: true and false', async () => {
    const created = await management.users.create({ connection: 'sms', phone_number: randomPhone() });
    expect((await management.users.update(created.user_id!, { blocked: true })).blocked).toBe(true);
    expect((await management.users.get(created.user_id!)).blocked).toBe(true);
    expect((await management.users.update(created.user_id!, { blocked: false })).blocked).toBe(false);
    await management.users.delete(created.user_id!);
  });

  it('pages through clients with page and per_page until an empty page', async () => {
    const created = await Promise.all([1, 2, 3].map(() => management.clients.create({ name: uniqueName('compat-paged'), app_type: 'native' })));
    const first = await management.clients.list({ per_page: 2 });
    expect(first.data).toHaveLength(2);
    expect(first.response.total).toBeGreaterThanOrEqual(created.length);
    // (Other test files create clients meanwhile, so neither the total nor offsets are fixed here.)
    const all = await walk(await management.clients.list({ per_page: 2 }));
    expect(all.map((c) => c.client_id)).toEqual(expect.arrayContaining(created.map((c) => c.client_id)));
    await Promise.all(created.map((c) => management.clients.delete(c.client_id!)));
  });

  it('pages through connections with the from and take checkpoint', async () => {
    const names = [uniqueName('compat-page'), uniqueName('compat-page')];
    const created = await Promise.all(names.map((name) => management.connections.create({ name, strategy: 'sms', options: smsConnectionOptions() })));
    const first = await management.connections.list({ take: 1 });
    expect(first.data).toHaveLength(1);
    expect(first.hasNextPage()).toBe(true);
    const all = await walk(await management.connections.list({ take: 1 }));
    expect(all.map((c) => c.id)).toEqual(expect.arrayContaining(created.map((c) => c.id)));
    // A checkpoint never repeats an item.
    expect(new Set(all.map((c) => c.id)).size).toBe(all.length);
    await Promise.all(created.map((c) => management.connections.delete(c.id!)));
  });

  it('returns only the fields asked for with fields and include_fields', async () => {
    const page = await management.clients.list({ fields: 'client_id,name', include_fields: true });
    expect(page.data.length).toBeGreaterThan(0);
    for (const client of page.data) expect(Object.keys(client).sort()).toEqual(['client_id', 'name']);
  });

  it('reads a single user, client and connection with fields and include_fields', async () => {
    const user = await management.users.create({ connection: 'sms', phone_number: randomPhone() });
    const projected = await management.users.get(user.user_id!, { fields: 'user_id,phone_number', include_fields: true });
    expect(projected).toEqual({ user_id: user.user_id, phone_number: user.phone_number });
    const withoutMetadata = await management.users.get(user.user_id!, { fields: 'user_metadata,app_metadata', include_fields: false });
    expect(withoutMetadata).toMatchObject({ user_id: user.user_id });
    expect(Object.keys(withoutMetadata)).not.toContain('user_metadata');
    expect(await management.clients.get(compat.app.clientId, { fields: 'client_id,app_type', include_fields: true })).toEqual({
      client_id: compat.app.clientId,
      app_type: 'regular_web',
    });
    expect(await management.connections.get(compat.smsConnectionId, { fields: 'id,strategy', include_fields: true })).toEqual({
      id: compat.smsConnectionId,
      strategy: 'sms',
    });
    await management.users.delete(user.user_id!);
  });

  it("shows a private_key_jwt client's client_authentication_methods and a null token_endpoint_auth_method, as Auth0 does", async () => {
    const pem = () => generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ type: 'spki', format: 'pem' }).toString();
    const created = await management.clients.create({
      name: uniqueName('compat-keyed'),
      app_type: 'non_interactive',
      client_authentication_methods: { private_key_jwt: { credentials: [{ credential_type: 'public_key', name: 'first', pem: pem(), alg: 'RS256' }] } },
    });
    await management.clients.credentials.create(created.client_id!, { credential_type: 'public_key', name: 'second', pem: pem(), alg: 'RS256' });
    const registered = await management.clients.credentials.list(created.client_id!);
    expect(registered).toHaveLength(2);

    const client = await management.clients.get(created.client_id!);
    expect(client.token_endpoint_auth_method).toBeNull();
    expect(client.client_authentication_methods).toEqual({ private_key_jwt: { credentials: registered.map((c) => ({ id: c.id })) } });
    // Sending back what was read keeps the client as it is.
    const updated = await management.clients.update(created.client_id!, {
      token_endpoint_auth_method: null,
      client_authentication_methods: { private_key_jwt: { credentials: [{ id: registered[0]!.id! }] } },
    });
    expect(updated.client_authentication_methods).toEqual(client.client_authentication_methods);
    await management.clients.delete(created.client_id!);
  });

  it("lists and lifts a user's brute-force blocks by user id with userBlocks.list and delete", async () => {
    const user = await management.users.create({ connection: 'sms', phone_number: randomPhone() });
    expect(await management.userBlocks.list(user.user_id!)).toEqual({ blocked_for: [] });
    // BRUTE_FORCE_THRESHOLD (10) refused exchanges from one IP block that IP for the number.
    const auth = legacyAuthenticationClient();
    for (let attempt = 0; attempt < 10; attempt += 1) {
      await expect(auth.passwordless.loginWithSMS({ phone_number: user.phone_number!, code: '000000' })).rejects.toBeInstanceOf(AuthApiError);
    }
    const blocks = await management.userBlocks.list(user.user_id!);
    expect(blocks.blocked_for).toEqual([{ identifier: user.phone_number, ip: expect.any(String), connection: 'sms' }]);

    await management.userBlocks.delete(user.user_id!);
    expect((await management.userBlocks.list(user.user_id!)).blocked_for).toEqual([]);
    await management.users.delete(user.user_id!);
    await expectNotFound(management.userBlocks.list(user.user_id!));
    await expectNotFound(management.userBlocks.delete(user.user_id!));
  });

  it('answers a per_page above 100 with a 400 that names per_page', async () => {
    const call = management.users.list({ per_page: 101 });
    await expect(call).rejects.toBeInstanceOf(ManagementError);
    await call.catch((err: ManagementError) => {
      expect(err.statusCode).toBe(400);
      expect(JSON.stringify(err.body)).toMatch(/per_page/);
    });
  });

  it('answers an empty user-blocks list for a phone number that never failed a code', async () => {
    const blocks = await management.userBlocks.listByIdentifier({ identifier: randomPhone() });
    expect(blocks.blocked_for).toEqual([]);
  });
});
