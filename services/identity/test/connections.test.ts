import { CONNECTION_WARNING_NO_GATEWAY_AUTHENTICATION, NEW_CONNECTION_PASSKEYS, NEW_CONNECTION_SMS_POLICY } from '@smsauth/contracts';
import request from 'supertest';
import { adminToken, connectionBody, startTestIdentity, type TestIdentity } from './helpers';

describe('/api/v2/connections', () => {
  let identity: TestIdentity;
  let auth: { authorization: string };
  let clientId: string;

  beforeAll(async () => {
    identity = await startTestIdentity();
    auth = { authorization: `Bearer ${await adminToken(identity.app)}` };
    clientId = (await request(identity.app).post('/api/v2/clients').set(auth).send({ name: 'App', app_type: 'native' })).body.client_id;
  });
  afterAll(() => identity.close());

  const create = (body: unknown) => request(identity.app).post('/api/v2/connections').set(auth).send(body as object);
  const withOptions = (options: Record<string, unknown>) => connectionBody(options);
  const withoutOption = (field: string) => {
    const body = connectionBody();
    delete (body.options as Record<string, unknown>)[field];
    return body;
  };
  const expect400At = async (body: unknown, path: string) => {
    const res = await create(body);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_request');
    expect(res.body.details.map((d: { path: string }) => d.path)).toContain(path);
    return res;
  };

  it('creates a connection and returns the reference record, secret left out', async () => {
    const gateway_authentication = { method: 'bearer', subject: 'urn:identity', audience: 'urn:gateway', secret: 'gw-secret-123', secret_base64_encoded: false };
    const body = connectionBody({ name: 'sms-main', gateway_authentication, forward_req_info: 'true' }, [clientId]);
    const res = await create(body);
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^con_[A-Za-z0-9]+$/),
      name: 'sms-main',
      strategy: 'sms',
      options: {
        ...(body.options as object),
        // A new connection gets the SMS policy defaults (docs/sms-fraud.md).
        ...NEW_CONNECTION_SMS_POLICY,
        // And passkeys on (docs/passkeys.md).
        passkeys: NEW_CONNECTION_PASSKEYS,
        gateway_authentication: { method: 'bearer', subject: 'urn:identity', audience: 'urn:gateway', secret_base64_encoded: false },
      },
      enabled_clients: [clientId],
      realms: ['sms-main'],
      is_domain_connection: false,
      metadata: {},
    });
    expect(JSON.stringify(res.body)).not.toContain('gw-secret-123');
    const read = await request(identity.app).get(`/api/v2/connections/${res.body.id}`).set(auth);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(res.body);
    const stored = await identity.store.connections.findById(res.body.id);
    expect(stored!.options.gateway_authentication!.secret).toBe('gw-secret-123');
  });

  describe('a connection whose deliveries would be refused', () => {
    const gatewayAuthentication = { method: 'bearer', subject: 'urn:identity', audience: 'urn:gateway', secret: 'gw-secret-123' };

    it('is created, with a warning that deliveries carry no token, and without provider (sms_gateway, the only one)', async () => {
      const body = withoutOption('provider');
      const options = body.options as Record<string, unknown>;
      expect(options.gateway_authentication).toBeUndefined();
      expect(options.provider).toBeUndefined();
      const res = await create(body);
      expect(res.status).toBe(201);
      expect(res.body.options.provider).toBe('sms_gateway');
      expect(res.body.warnings).toEqual([CONNECTION_WARNING_NO_GATEWAY_AUTHENTICATION]);
      expect(res.body.warnings[0]).toMatch(/gateway_authentication is not set.*Authentication failed while calling the SMS gateway: 401/);
      // A warning belongs to the write, not to the record.
      const read = await request(identity.app).get(`/api/v2/connections/${res.body.id}`).set(auth);
      expect(read.body.warnings).toBeUndefined();
    });

    it('answers a write that sets gateway_authentication, or leaves delivery alone, without warnings, and one that removes it with the warning', async () => {
      const created = await create(withOptions({ name: 'sms-authenticated', gateway_authentication: gatewayAuthentication }));
      expect(created.status).toBe(201);
      expect(created.body).not.toHaveProperty('warnings');
      const patch = (options: Record<string, unknown>) =>
        request(identity.app).patch(`/api/v2/connections/${created.body.id}`).set(auth).send({ options });
      const removed = await patch({ gateway_authentication: null });
      expect(removed.status).toBe(200);
      expect(removed.body.warnings).toEqual([CONNECTION_WARNING_NO_GATEWAY_AUTHENTICATION]);
      // A PATCH that leaves delivery alone answers the record as GET does.
      const renamed = await request(identity.app).patch(`/api/v2/connections/${created.body.id}`).set(auth).send({ display_name: 'Unauthenticated' });
      expect(renamed.status).toBe(200);
      expect(renamed.body).not.toHaveProperty('warnings');
      const restored = await patch({ gateway_authentication: gatewayAuthentication });
      expect(restored.status).toBe(200);
      expect(restored.body).not.toHaveProperty('warnings');
    });
  });

  it('fills in the defaults: time_step 300, length 6, brute-force protection on, signup allowed', async () => {
    const body = connectionBody();
    const options = body.options as Record<string, unknown>;
    for (const field of ['totp', 'brute_force_protection', 'disable_signup', 'syntax']) delete options[field];
    const res = await create(body);
    expect(res.status).toBe(201);
    expect(res.body.options).toMatchObject({
      totp: { time_step: 300, length: 6 },
      brute_force_protection: true,
      disable_signup: false,
      syntax: 'md_with_macros',
      forward_req_info: false,
    });
    expect(res.body.enabled_clients).toEqual([]);
  });

  describe('options.name', () => {
    it('refuses characters other than letters, digits and -', () => expect400At(withOptions({ name: 'sms_main' }), 'options.name'));
    it('refuses a name starting with -', () => expect400At(withOptions({ name: '-sms' }), 'options.name'));
    it('refuses a name ending with -', () => expect400At(withOptions({ name: 'sms-' }), 'options.name'));
    it('refuses a name longer than 128 characters', () => expect400At(withOptions({ name: 'a'.repeat(129) }), 'options.name'));
    it('accepts a name of exactly 128 characters', async () => {
      expect((await create(withOptions({ name: 'b'.repeat(128) }))).status).toBe(201);
    });
    it('is required', () => expect400At(withoutOption('name'), 'options.name'));
    it('must be unique: 409', async () => {
      expect((await create(withOptions({ name: 'taken' }))).status).toBe(201);
      const res = await create(withOptions({ name: 'taken' }));
      expect(res.status).toBe(409);
      expect(res.body).toEqual({ error: 'conflict', error_description: 'A connection with the name taken already exists' });
    });
  });

  it('refuses a strategy other than sms', () => expect400At(withOptions({ strategy: 'email' }), 'options.strategy'));
  it("refuses Auth0's twilio provider, saying that Twilio is set up on the gateway", async () => {
    const res = await expect400At(withOptions({ provider: 'twilio' }), 'options.provider');
    expect(res.body.details.find((d: { path: string }) => d.path === 'options.provider').message).toMatch(/Twilio and the other providers are configured on the gateway/);
  });
  it('refuses a gateway_url that is not a URL', () => expect400At(withOptions({ gateway_url: 'not a url' }), 'options.gateway_url'));
  it('refuses a gateway_url that is not http(s)', () => expect400At(withOptions({ gateway_url: 'ftp://gateway.test/x' }), 'options.gateway_url'));
  it('requires gateway_url', () => expect400At(withoutOption('gateway_url'), 'options.gateway_url'));
  it('refuses a from number that is not E.164', () => expect400At(withOptions({ from: '0044 20 7946 0000' }), 'options.from'));
  it('refuses a syntax other than md_with_macros and liquid', () => expect400At(withOptions({ syntax: 'handlebars' }), 'options.syntax'));
  it('refuses an empty template', () => expect400At(withOptions({ template: '' }), 'options.template'));
  it('refuses a template without @@password@@', () => expect400At(withOptions({ template: 'Hello there' }), 'options.template'));
  it('refuses totp.time_step below 30 seconds', () => expect400At(withOptions({ totp: { time_step: 29, length: 6 } }), 'options.totp.time_step'));
  it('refuses totp.time_step above 3600 seconds', () => expect400At(withOptions({ totp: { time_step: 3601, length: 6 } }), 'options.totp.time_step'));
  it('refuses a fractional totp.time_step', () => expect400At(withOptions({ totp: { time_step: 30.5, length: 6 } }), 'options.totp.time_step'));
  it('refuses totp.length below 4', () => expect400At(withOptions({ totp: { time_step: 300, length: 3 } }), 'options.totp.length'));
  it('refuses totp.length above 10', () => expect400At(withOptions({ totp: { time_step: 300, length: 11 } }), 'options.totp.length'));
  it('refuses a non-boolean brute_force_protection', () => expect400At(withOptions({ brute_force_protection: 'yes' }), 'options.brute_force_protection'));
  it('refuses a non-boolean disable_signup', () => expect400At(withOptions({ disable_signup: 1 }), 'options.disable_signup'));
  it('refuses forward_req_info other than a boolean or "true"', () => expect400At(withOptions({ forward_req_info: 'yes' }), 'options.forward_req_info'));
  it('accepts forward_req_info as boolean true', async () => {
    expect((await create(withOptions({ forward_req_info: true }))).body.options.forward_req_info).toBe(true);
  });
  it('refuses a gateway_authentication method other than bearer', () =>
    expect400At(withOptions({ gateway_authentication: { method: 'basic', subject: 's', audience: 'a', secret: 'x' } }), 'options.gateway_authentication.method'));
  it('refuses a gateway_authentication without a secret', () =>
    expect400At(withOptions({ gateway_authentication: { method: 'bearer', subject: 's', audience: 'a' } }), 'options.gateway_authentication.secret'));
  it('refuses a gateway_authentication without a subject', () =>
    expect400At(withOptions({ gateway_authentication: { method: 'bearer', audience: 'a', secret: 'x' } }), 'options.gateway_authentication.subject'));
  it('refuses a gateway_authentication without an audience', () =>
    expect400At(withOptions({ gateway_authentication: { method: 'bearer', subject: 's', secret: 'x' } }), 'options.gateway_authentication.audience'));
  it('refuses a secret that is not base64 when secret_base64_encoded', () =>
    expect400At(withOptions({ gateway_authentication: { method: 'bearer', subject: 's', audience: 'a', secret: 'not base64!', secret_base64_encoded: true } }), 'options.gateway_authentication.secret'));
  it('refuses an unknown option, naming it', () => expect400At(withOptions({ tempalte: 'x' }), 'options.tempalte'));
  it('requires options', () => expect400At({ enabled_clients: [] }, 'options'));
  it('refuses enabled_clients naming a client that does not exist', async () => {
    const res = await expect400At(connectionBody({}, [clientId, 'no-such-client']), 'enabled_clients.1');
    expect(res.body.error_description).toContain('no-such-client');
  });

  describe("the reference product's body shape", () => {
    /** A create body with name and strategy at the top level only, as Auth0's SDKs send it. */
    const topLevelBody = (name: string, extra: Record<string, unknown> = {}) => {
      const body = connectionBody({ name });
      const options = body.options as Record<string, unknown>;
      delete options.name;
      delete options.strategy;
      return { name, strategy: 'sms', ...body, ...extra };
    };

    it('creates a connection from top-level name and strategy, keeping them in the record and its options', async () => {
      const res = await create(topLevelBody('top-level', { enabled_clients: [clientId] }));
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ name: 'top-level', strategy: 'sms', realms: ['top-level'], enabled_clients: [clientId] });
      expect(res.body.options).toMatchObject({ name: 'top-level', strategy: 'sms' });
      expect((await identity.store.connections.findByName('top-level'))!.id).toBe(res.body.id);
    });

    it('accepts both shapes at once when they agree', async () => {
      const body = { ...connectionBody({ name: 'both-agree' }), name: 'both-agree', strategy: 'sms' };
      expect((await create(body)).status).toBe(201);
    });

    it('refuses a top-level name that disagrees with options.name, naming name', async () => {
      const res = await expect400At({ ...connectionBody({ name: 'inner-name' }), name: 'outer-name' }, 'name');
      expect(res.body.error_description).toContain('must equal options.name');
      expect(await identity.store.connections.findByName('inner-name')).toBeUndefined();
    });

    it('refuses a top-level strategy other than sms, naming strategy', () => expect400At(topLevelBody('strat-x', { strategy: 'email' }), 'strategy'));

    it('refuses a top-level name that breaks the naming rules', () => expect400At(topLevelBody('sms_bad'), 'name'));

    it('stores and returns display_name, metadata and is_domain_connection', async () => {
      const res = await create(topLevelBody('with-extras', { display_name: 'Text me', metadata: { team: 'growth', drop: null }, is_domain_connection: true }));
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ display_name: 'Text me', metadata: { team: 'growth' }, is_domain_connection: true });
      const read = await request(identity.app).get(`/api/v2/connections/${res.body.id}`).set(auth);
      expect(read.body).toMatchObject({ display_name: 'Text me', metadata: { team: 'growth' }, is_domain_connection: true });
    });

    it('refuses metadata with more than 10 properties or a value longer than 255 characters', async () => {
      const many = Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`k${i}`, 'v']));
      await expect400At(topLevelBody('meta-many', { metadata: many }), 'metadata');
      await expect400At(topLevelBody('meta-long', { metadata: { k: 'x'.repeat(256) } }), 'metadata.k');
    });
  });

  describe('PATCH', () => {
    let id: string;
    beforeAll(async () => {
      const gateway_authentication = { method: 'bearer', subject: 's', audience: 'a', secret: 'kept-secret', secret_base64_encoded: false };
      id = (await create(connectionBody({ name: 'patchable', gateway_authentication }))).body.id;
    });
    const patch = (body: unknown) => request(identity.app).patch(`/api/v2/connections/${id}`).set(auth).send(body as object);

    it('merges options, keeping the stored gateway secret when it is not sent', async () => {
      const res = await patch({ options: { template: 'New @@password@@', totp: { length: 8 }, gateway_authentication: { subject: 's2' } } });
      expect(res.status).toBe(200);
      expect(res.body.options).toMatchObject({ template: 'New @@password@@', totp: { time_step: 300, length: 8 } });
      expect(res.body.options.gateway_authentication).toEqual({ method: 'bearer', subject: 's2', audience: 'a', secret_base64_encoded: false });
      const stored = await identity.store.connections.findById(id);
      expect(stored!.options.gateway_authentication!.secret).toBe('kept-secret');
    });

    it('replaces enabled_clients', async () => {
      expect((await patch({ enabled_clients: [clientId] })).body.enabled_clients).toEqual([clientId]);
      expect((await patch({ enabled_clients: [] })).body.enabled_clients).toEqual([]);
    });

    it('refuses a rename', async () => {
      const res = await patch({ options: { name: 'renamed' } });
      expect(res.status).toBe(400);
      expect(res.body.details[0].path).toBe('options.name');
    });

    it('applies the same rules as create', async () => {
      const res = await patch({ options: { totp: { time_step: 5 } } });
      expect(res.status).toBe(400);
      expect(res.body.details[0].path).toBe('options.totp.time_step');
      expect((await patch({ enabled_clients: ['ghost'] })).body.details[0].path).toBe('enabled_clients.0');
    });

    it('answers 404 for an unknown id', async () => {
      expect((await request(identity.app).patch('/api/v2/connections/con_nope').set(auth).send({})).status).toBe(404);
    });

    it('changes display_name, metadata and is_domain_connection, and clears display_name with null', async () => {
      const res = await patch({ display_name: 'Shown', metadata: { a: '1' }, is_domain_connection: true });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ display_name: 'Shown', metadata: { a: '1' }, is_domain_connection: true, name: 'patchable' });
      const cleared = await patch({ display_name: null, metadata: {} });
      expect(cleared.body.display_name).toBeUndefined();
      expect(cleared.body).toMatchObject({ metadata: {}, is_domain_connection: true });
    });

    it('refuses top-level name and strategy, as the reference product does (a connection cannot be renamed)', async () => {
      expect((await patch({ name: 'patchable' })).body.details[0].path).toBe('name');
      expect((await patch({ strategy: 'sms' })).body.details[0].path).toBe('strategy');
    });
  });

  it('lists connections, filtered by name', async () => {
    const res = await request(identity.app).get('/api/v2/connections?name=sms-main').set(auth);
    expect(res.status).toBe(200);
    expect(res.body.map((c: { name: string }) => c.name)).toEqual(['sms-main']);
    const all = await request(identity.app).get('/api/v2/connections').set(auth);
    expect(all.body.length).toBeGreaterThan(3);
    expect(JSON.stringify(all.body)).not.toContain('secret"');
  });

  it('deletes a connection: 204, then 404', async () => {
    const { id } = (await create(connectionBody())).body;
    expect((await request(identity.app).delete(`/api/v2/connections/${id}`).set(auth)).status).toBe(204);
    expect((await request(identity.app).get(`/api/v2/connections/${id}`).set(auth)).status).toBe(404);
    expect((await request(identity.app).delete(`/api/v2/connections/${id}`).set(auth)).status).toBe(404);
  });
});

describe('/api/v2/connections with GATEWAY_URL_POLICY=public', () => {
  let identity: TestIdentity;
  let auth: { authorization: string };
  beforeAll(async () => {
    identity = await startTestIdentity({ GATEWAY_URL_POLICY: 'public' }, {
      resolveHost: async (host) => [{ address: host === 'internal.test' ? '10.0.0.7' : '93.184.216.34', family: 4 }],
    });
    auth = { authorization: `Bearer ${await adminToken(identity.app)}` };
  });
  afterAll(() => identity.close());

  it('refuses a loopback gateway_url at create', async () => {
    const res = await request(identity.app).post('/api/v2/connections').set(auth).send(connectionBody({ gateway_url: 'http://127.0.0.1:4100/x' }));
    expect(res.status).toBe(400);
    expect(res.body.details[0].path).toBe('options.gateway_url');
  });

  it('refuses, at update, a host name that resolves to a private address', async () => {
    const created = await request(identity.app).post('/api/v2/connections').set(auth).send(connectionBody({ gateway_url: 'https://public.test/x' }));
    expect(created.status).toBe(201);
    const res = await request(identity.app)
      .patch(`/api/v2/connections/${created.body.id}`)
      .set(auth)
      .send({ options: { gateway_url: 'https://internal.test/x' } });
    expect(res.status).toBe(400);
    expect(res.body.details[0].path).toBe('options.gateway_url');
    expect(res.body.error_description).toContain('10.0.0.7');
  });
});
