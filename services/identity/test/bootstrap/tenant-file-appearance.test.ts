import { connectionRulesOf } from '../../src/app';
import { bootstrapTenant } from '../../src/domain/bootstrap-tenant';
import { StoreLoginAppearance } from '../../src/domain/branding/store-appearance';
import request from 'supertest';
import { adminToken, AUTH_URL, captureLogger, startTestIdentity, TestClock, type TestIdentity } from '../helpers';
import { managementGet, tenantFile } from './tenant-harness';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON documents, changed in each case
type Json = any;

const VARIABLES = { BRAND_LOGO_URL: 'https://cdn.example.com/logo.png' };

/** A tenant file's languages, brand and texts, as a team moving in from Auth0 would keep them in code. */
function appearanceDocument(): Json {
  return {
    tenant_settings: { enabled_locales: ['fr', 'en'] },
    branding: { logo_url: '${BRAND_LOGO_URL}', colors: { primary: '#0A5', page_background: '#f4f4f4' }, font: { url: 'https://cdn.example.com/brand.woff2' } },
    custom_text: {
      'login-passwordless': { fr: { 'login-passwordless-sms-otp': { title: 'Saisissez le code', buttonText: 'Valider' } } },
      logout: { en: { 'logout-complete': { title: 'See you soon' } } },
    },
  };
}

describe('a TENANT_FILE with the hosted pages\' languages, brand and texts', () => {
  let identity: TestIdentity;
  beforeAll(async () => {
    identity = await startTestIdentity();
  });
  afterAll(() => identity.close());

  /** Applies `document` as a start does: the error message, or the log line that counts what it did. */
  async function apply(document: unknown): Promise<string> {
    const { logger, text } = captureLogger();
    const options = {
      authUrl: AUTH_URL,
      console: true,
      tenantFile: { path: tenantFile(document), variables: VARIABLES },
      connectionRules: connectionRulesOf(identity.config),
      clock: new TestClock(),
      logger,
    };
    return bootstrapTenant(identity.store, options).then(
      () => {
        const counts = JSON.parse(text().split('\n').find((line) => line.includes('tenant file applied'))!);
        return `created ${counts.created}, updated ${counts.updated}, unchanged ${counts.unchanged}`;
      },
      (err: Error) => err.message.replace(/^TENANT_FILE \S+: /, ''),
    );
  }

  it('sets them as the management API shows them and the pages use them, and writes nothing when applied again unchanged', async () => {
    expect(await apply(appearanceDocument())).toBe('created 0, updated 4, unchanged 0');
    expect(await managementGet(identity.app, '/branding')).toEqual({
      logo_url: VARIABLES.BRAND_LOGO_URL,
      colors: { primary: '#00aa55', page_background: '#f4f4f4' },
      font: { url: 'https://cdn.example.com/brand.woff2' },
    });
    expect(await managementGet(identity.app, '/tenants/settings')).toMatchObject({ enabled_locales: ['fr', 'en'] });
    expect(await managementGet(identity.app, '/prompts/login-passwordless/custom-text/fr')).toEqual({
      'login-passwordless-sms-otp': { title: 'Saisissez le code', buttonText: 'Valider' },
    });
    const pages = new StoreLoginAppearance(identity.store, new TestClock(), 0);
    expect((await pages.appearance()).enabledLocales).toEqual(['fr', 'en']);
    expect(await pages.customText('fr')).toMatchObject({ 'login-passwordless.login-passwordless-sms-otp.title': 'Saisissez le code' });

    expect(await apply(appearanceDocument())).toBe('created 0, updated 0, unchanged 4');
  });

  it('changes only what the file changes: a colour, one language\'s texts; other prompts and languages keep theirs', async () => {
    await apply(appearanceDocument());
    // A text set through the API, for a language the file does not name, stays.
    await request(identity.app)
      .put('/api/v2/prompts/login-passwordless/custom-text/de')
      .set('authorization', `Bearer ${await adminToken(identity.app)}`)
      .send({ 'login-passwordless-sms-otp': { title: 'Code eingeben' } })
      .expect(200);

    const changed = appearanceDocument();
    changed.branding = { colors: { primary: '#123456' } };
    changed.custom_text['login-passwordless'].fr['login-passwordless-sms-otp'] = { title: 'Votre code' };
    expect(await apply(changed)).toBe('created 0, updated 2, unchanged 2');
    expect(await managementGet(identity.app, '/branding')).toEqual({
      logo_url: VARIABLES.BRAND_LOGO_URL,
      colors: { primary: '#123456', page_background: '#f4f4f4' },
      font: { url: 'https://cdn.example.com/brand.woff2' },
    });
    expect(await managementGet(identity.app, '/prompts/login-passwordless/custom-text/fr')).toEqual({ 'login-passwordless-sms-otp': { title: 'Votre code' } });
    expect(await managementGet(identity.app, '/prompts/login-passwordless/custom-text/de')).toEqual({ 'login-passwordless-sms-otp': { title: 'Code eingeben' } });
  });

  it('refuses, naming the section and the field, what the management API would refuse, and changes nothing', async () => {
    await apply(appearanceDocument());
    const refused = async (change: (document: Json) => void) => {
      const document = appearanceDocument();
      change(document);
      return apply(document);
    };
    expect(await refused((d) => (d.branding.logo_url = 'http://cdn.example.com/logo.png'))).toMatch(/^branding: logo_url: /);
    expect(await refused((d) => (d.tenant_settings.enabled_locales = ['fr', 'xx']))).toMatch(/^tenant_settings: enabled_locales\.1: the hosted pages speak these languages only: /);
    expect(await refused((d) => (d.tenant_settings.friendly_name = 'Demo'))).toBe('tenant_settings: friendly_name: unknown field');
    expect(await refused((d) => (d.custom_text.logout.en['login-passwordless-sms-otp'] = { title: 'x' }))).toBe(
      'custom_text: logout.en.login-passwordless-sms-otp: is not a screen of the logout prompt (its screens: logout, logout-aborted, logout-complete)',
    );
    expect(await refused((d) => (d.custom_text.logout.tlh = {}))).toBe('custom_text: logout.tlh: unknown field');
    expect(await refused((d) => (d.custom_text.consent = {}))).toBe('custom_text: consent: unknown field');
    expect(await refused((d) => (d.branding = ['#fff']))).toBe('branding: must be an object');
    expect(await managementGet(identity.app, '/branding')).toMatchObject({ logo_url: VARIABLES.BRAND_LOGO_URL });
  });
});
