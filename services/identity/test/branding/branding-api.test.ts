import { LOGIN_LANGUAGES } from '@smsauth/contracts';
import { adminToken } from '../helpers';
import { logMark } from '../logs/log-harness';
import { describeOnEachDatabase, FlowHarness } from '../passwordless/flow-harness';

describeOnEachDatabase('/api/v2/branding, /api/v2/prompts and /api/v2/tenants/settings', (database) => {
  let h: FlowHarness;
  beforeAll(async () => {
    h = await FlowHarness.start({}, { database });
  });
  afterAll(() => h?.close());

  const put = (path: string, body: unknown, token = h.admin) => h.http().put(`/api/v2${path}`).set('authorization', `Bearer ${token}`).send(body as object);
  const withToken = (method: 'get' | 'patch', path: string, token: string) => h.http()[method](`/api/v2${path}`).set('authorization', `Bearer ${token}`);

  describe('branding', () => {
    it('answers {} for a tenant that set nothing, as Auth0 does', async () => {
      const res = await h.management('get', '/branding').expect(200);
      expect(res.body).toEqual({});
    });

    it('stores logo, favicon, font and colours, normalising #rgb to lower-case #rrggbb, and records the write', async () => {
      const mark = await logMark(h);
      const body = {
        colors: { primary: '#0A5', page_background: '#F0F0F0' },
        logo_url: 'https://cdn.example.com/logo.png',
        favicon_url: 'https://cdn.example.com/favicon.ico',
        font: { url: 'https://cdn.example.com/brand.woff2' },
      };
      const expected = { ...body, colors: { primary: '#00aa55', page_background: '#f0f0f0' } };
      const res = await h.management('patch', '/branding', body).expect(200);
      expect(res.body).toEqual(expected);
      expect((await h.management('get', '/branding').expect(200)).body).toEqual(expected);
      expect((await mark.records()).map((r) => [r.type, r.description, r.details])).toEqual([
        ['sapi', 'Update branding', { request: { method: 'PATCH', path: '/api/v2/branding' } }],
      ]);
    });

    it('keeps the fields a PATCH leaves out and removes those it sets to null', async () => {
      await h.management('patch', '/branding', { colors: { primary: '#112233' }, logo_url: null }).expect(200);
      const res = await h.management('get', '/branding').expect(200);
      expect(res.body).toEqual({
        colors: { primary: '#112233', page_background: '#f0f0f0' },
        favicon_url: 'https://cdn.example.com/favicon.ico',
        font: { url: 'https://cdn.example.com/brand.woff2' },
      });
      await h.management('patch', '/branding', { colors: null, font: null, favicon_url: null }).expect(200);
      expect((await h.management('get', '/branding').expect(200)).body).toEqual({});
    });

    it.each([
      ['an http: logo', { logo_url: 'http://cdn.example.com/logo.png' }, 'logo_url', /https/],
      ['a data: favicon', { favicon_url: 'data:image/png;base64,AAAA' }, 'favicon_url', /https/],
      ['a javascript: font', { font: { url: 'javascript:alert(1)' } }, 'font.url', /https/],
      ['a named colour', { colors: { primary: 'red' } }, 'colors.primary', /#rrggbb/],
      ['a four-digit colour', { colors: { primary: '#abcd' } }, 'colors.primary', /#rrggbb/],
      ['Auth0\'s gradient background', { colors: { page_background: { type: 'linear-gradient', start: '#ffffff', end: '#000000', angle_deg: 35 } } }, 'colors.page_background', /#rrggbb/],
      ['an unknown field', { theme: 'dark' }, '', /theme/],
    ])('refuses %s with 400 saying why, and changes nothing', async (_case, body, path, message) => {
      const mark = await logMark(h);
      const before = (await h.management('get', '/branding')).body;
      const res = await h.management('patch', '/branding', body).expect(400);
      expect(res.body.error).toBe('invalid_request');
      expect(res.body.error_description).toMatch(message);
      if (path) expect(res.body.details.map((d: { path: string }) => d.path)).toContain(path);
      expect((await h.management('get', '/branding')).body).toEqual(before);
      expect(await mark.types()).toEqual([]);
    });
  });

  describe('prompts', () => {
    it('shows Auth0\'s settings of a new tenant, then what was set', async () => {
      expect((await h.management('get', '/prompts').expect(200)).body).toEqual({ universal_login_experience: 'new', identifier_first: false, webauthn_platform_first_factor: false });
      const res = await h.management('patch', '/prompts', { identifier_first: true, webauthn_platform_first_factor: null }).expect(200);
      expect(res.body).toEqual({ universal_login_experience: 'new', identifier_first: true, webauthn_platform_first_factor: false });
      expect((await h.management('get', '/prompts').expect(200)).body).toEqual(res.body);
    });

    it('replaces a prompt\'s texts in a language, shows them, records the write, and {} clears them', async () => {
      const texts = { 'login-passwordless-sms-otp': { title: 'Ihr Code', buttonText: 'Weiter' } };
      const mark = await logMark(h);
      expect((await put('/prompts/login-passwordless/custom-text/de', texts).expect(200)).body).toEqual(texts);
      expect((await h.management('get', '/prompts/login-passwordless/custom-text/de').expect(200)).body).toEqual(texts);
      // Another language and another prompt are their own.
      expect((await h.management('get', '/prompts/login-passwordless/custom-text/fr').expect(200)).body).toEqual({});
      expect((await h.management('get', '/prompts/logout/custom-text/de').expect(200)).body).toEqual({});
      // PUT replaces the whole language: a key left out is gone.
      await put('/prompts/login-passwordless/custom-text/de', { 'login-passwordless-sms-otp': { title: 'Code' } }).expect(200);
      expect((await h.management('get', '/prompts/login-passwordless/custom-text/de').expect(200)).body).toEqual({ 'login-passwordless-sms-otp': { title: 'Code' } });
      await put('/prompts/login-passwordless/custom-text/de', {}).expect(200);
      expect((await h.management('get', '/prompts/login-passwordless/custom-text/de').expect(200)).body).toEqual({});
      expect((await mark.records()).map((r) => [r.type, r.description, r.details])).toEqual(
        Array(3).fill(['sapi', 'Set custom text', { request: { method: 'PUT', path: '/api/v2/prompts/login-passwordless/custom-text/de' }, target: 'login-passwordless/de' }]),
      );
    });

    it('answers {} for Auth0\'s prompts the pages do not have (auth0-deploy-cli reads them all), and {} partials', async () => {
      expect((await h.management('get', '/prompts/signup/custom-text/en').expect(200)).body).toEqual({});
      expect((await h.management('get', '/prompts/login-passwordless/partials').expect(200)).body).toEqual({});
    });

    it.each([
      ['a prompt the pages do not have', '/prompts/signup/custom-text/en', { signup: { title: 'x' } }, /prompt: .*login-id, login-passwordless, passkeys, logout, common, smsauth/],
      ['a language the pages do not speak', '/prompts/logout/custom-text/xx', { logout: { title: 'x' } }, /language: .*pt-BR/],
      ['a screen of another prompt', '/prompts/logout/custom-text/en', { 'login-passwordless-sms-otp': { title: 'x' } }, /is not a screen of the logout prompt/],
      ['an unknown screen', '/prompts/logout/custom-text/en', { 'logout-everywhere': { title: 'x' } }, /logout-everywhere/],
      ['an email screen (the pages sign in by phone)', '/prompts/login-passwordless/custom-text/en', { 'login-passwordless-email-code': { title: 'x' } }, /login-passwordless-email-code/],
      ['a text over 2000 characters', '/prompts/common/custom-text/en', { common: { title: 'x'.repeat(2001) } }, /at most 2000 characters/],
      ['a key with spaces', '/prompts/common/custom-text/en', { common: { 'page title': 'x' } }, /common\.page title: Invalid key/],
    ])('refuses %s with 400 saying why', async (_case, path, body, message) => {
      const mark = await logMark(h);
      const res = await put(path, body).expect(400);
      expect(res.body.error_description).toMatch(message);
      expect(await mark.types()).toEqual([]);
    });
  });

  describe('tenant settings', () => {
    it('shows every bundled language and the configured session lifetimes (in hours) while nothing is set', async () => {
      const res = await h.management('get', '/tenants/settings').expect(200);
      expect(res.body).toEqual({ default_audience: '', enabled_locales: [...LOGIN_LANGUAGES], session_lifetime: 168, idle_session_lifetime: 72 });
    });

    it('sets enabled_locales, stores and shows the inert Auth0 settings, and records the write', async () => {
      const mark = await logMark(h);
      const body = {
        friendly_name: 'Airport Transfers',
        support_email: 'help@example.com',
        support_url: 'https://example.com/help',
        picture_url: 'https://example.com/logo.png',
        flags: { enable_sso: true },
        enabled_locales: ['fr', 'en', 'ar'],
        session_lifetime_in_minutes: 10_080,
        idle_session_lifetime: 72,
        ephemeral_session_lifetime_in_minutes: 600,
        session_cookie: { mode: 'persistent' },
      };
      const res = await h.management('patch', '/tenants/settings', body).expect(200);
      const expected = {
        friendly_name: 'Airport Transfers',
        support_email: 'help@example.com',
        support_url: 'https://example.com/help',
        picture_url: 'https://example.com/logo.png',
        flags: { enable_sso: true },
        session_cookie: { mode: 'persistent' },
        ephemeral_session_lifetime: 10,
        default_audience: '',
        enabled_locales: ['fr', 'en', 'ar'],
        session_lifetime: 168,
        idle_session_lifetime: 72,
      };
      expect(res.body).toEqual(expected);
      expect((await h.management('get', '/tenants/settings').expect(200)).body).toEqual(expected);
      expect((await mark.records()).map((r) => [r.type, r.description])).toEqual([['sapi', 'Update tenant settings']]);
      // Flags merge flag by flag; enabled_locales left out stays.
      const again = await h.management('patch', '/tenants/settings', { flags: { allow_legacy_ro_grant_types: true } }).expect(200);
      expect(again.body.flags).toEqual({ enable_sso: true, allow_legacy_ro_grant_types: true });
      expect(again.body.enabled_locales).toEqual(['fr', 'en', 'ar']);
    });

    it('accepts a tenant.json as auth0-deploy-cli exports it from an Auth0 tenant (lifetimes as the tool sends them, in minutes) and shows every setting back', async () => {
      const fromAuth0 = {
        allowed_logout_urls: ['https://transfers.example.com'],
        default_directory: '',
        enabled_locales: ['en', 'es'],
        flags: { enable_client_connections: false, revoke_refresh_token_grant: false, disable_clickjack_protection_headers: false },
        friendly_name: 'Transfers',
        picture_url: '',
        sandbox_version: '18',
        sandbox_versions_available: ['18', '16'],
        support_email: '',
        support_url: '',
        universal_login: { colors: { primary: '#0059d6', page_background: '#000000' } },
        oidc_logout: { rp_logout_end_session_endpoint_discovery: true },
        sessions: { oidc_logout_prompt_enabled: false },
        session_cookie: { mode: 'persistent' },
        customize_mfa_in_postlogin_action: false,
        resource_parameter_profile: 'audience',
        session_lifetime_in_minutes: 10_080,
        idle_session_lifetime_in_minutes: 4_320,
        ephemeral_session_lifetime_in_minutes: 4_320,
        idle_ephemeral_session_lifetime_in_minutes: 1_440,
      };
      const res = await h.management('patch', '/tenants/settings', fromAuth0).expect(200);
      const { session_lifetime_in_minutes: _s, idle_session_lifetime_in_minutes: _i, ephemeral_session_lifetime_in_minutes: _e, idle_ephemeral_session_lifetime_in_minutes: _ie, flags, ...shown } = fromAuth0;
      expect(res.body).toMatchObject({ ...shown, session_lifetime: 168, idle_session_lifetime: 72, ephemeral_session_lifetime: 72, idle_ephemeral_session_lifetime: 24 });
      expect(res.body.flags).toMatchObject(flags);
    });

    it.each([
      ['a language the pages do not speak', { enabled_locales: ['en', 'tlh'] }, /enabled_locales\.1: the hosted pages speak these languages only/],
      ['a language listed twice', { enabled_locales: ['en', 'fr', 'en'] }, /lists a language twice/],
      ['no language', { enabled_locales: [] }, /enabled_locales/],
      ['a session lifetime other than the configured one', { session_lifetime: 24 }, /session_lifetime: must be 168 \(hours\): the service's SESSION_ABSOLUTE_LIFETIME_SECONDS sets it/],
      ['an idle lifetime in minutes other than the configured one', { idle_session_lifetime_in_minutes: 60 }, /idle_session_lifetime_in_minutes: must be 4320 \(minutes\)/],
      ['a lifetime in hours and in minutes', { session_lifetime: 168, session_lifetime_in_minutes: 10_080 }, /not with session_lifetime/],
      ['a tenant-wide default audience', { default_audience: 'https://api.example.com' }, /no tenant-wide default audience/],
      ['pushed authorization requests turned on', { flags: { require_pushed_authorization_requests: true } }, /pushed authorization requests/],
      ['non-persistent session cookies', { session_cookie: { mode: 'non-persistent' } }, /persistent/],
      ['an http: support URL', { support_url: 'http://example.com/help' }, /https/],
      ['a field Auth0 does not have', { favourite_colour: 'blue' }, /favourite_colour/],
    ])('refuses %s with 400 saying why, and changes nothing', async (_case, body, message) => {
      const before = (await h.management('get', '/tenants/settings')).body;
      const mark = await logMark(h);
      const res = await h.management('patch', '/tenants/settings', body).expect(400);
      expect(res.body.error_description).toMatch(message);
      expect((await h.management('get', '/tenants/settings')).body).toEqual(before);
      expect(await mark.types()).toEqual([]);
    });
  });

  describe('scopes', () => {
    it.each([
      ['get', '/branding', 'read:branding'],
      ['patch', '/branding', 'update:branding'],
      ['get', '/prompts', 'read:prompts'],
      ['patch', '/prompts', 'update:prompts'],
      ['get', '/prompts/common/custom-text/en', 'read:prompts'],
      ['get', '/tenants/settings', 'read:tenant_settings'],
      ['patch', '/tenants/settings', 'update:tenant_settings'],
    ] as const)('%s %s needs %s', async (method, path, scope) => {
      const other = await adminToken(h.identity.app, 'read:clients');
      const refused = await withToken(method, path, other).send({}).expect(403);
      expect(refused.body.error).toBe('insufficient_scope');
      await withToken(method, path, await adminToken(h.identity.app, scope)).send({}).expect(200);
    });

    it('PUT custom text needs update:prompts (read:prompts is not enough)', async () => {
      await put('/prompts/common/custom-text/en', {}, await adminToken(h.identity.app, 'read:prompts')).expect(403);
      await put('/prompts/common/custom-text/en', {}, await adminToken(h.identity.app, 'update:prompts')).expect(200);
    });
  });
});
