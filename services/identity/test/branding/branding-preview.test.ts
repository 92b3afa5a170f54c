import { LOGIN_PREVIEW_SCREENS, type LoginPreviewScreen } from '@smsauth/contracts';
import { Translator } from '../../src/routes/authorize/i18n/messages';
import { adminToken } from '../helpers';
import { logMark } from '../logs/log-harness';
import { describeOnEachDatabase, FlowHarness } from '../passwordless/flow-harness';

/** The heading each state shows (its key in the translation files) and a mark only that state's markup has. */
const SCREENS: Record<LoginPreviewScreen, { title: string; mark: RegExp }> = {
  phone: { title: 'login-id.login-id.title', mark: /<input id="phone_number"(?![^>]*aria-invalid)/ },
  'phone-error': { title: 'login-id.login-id.title', mark: /<p class="error" id="phone-error" role="alert">/ },
  code: { title: 'login-passwordless.login-passwordless-sms-otp.title', mark: /<p class="cooldown" id="resend-hint">[\s\S]*value="voice"[\s\S]*value="whatsapp"/ },
  'code-error': { title: 'login-passwordless.login-passwordless-sms-otp.title', mark: /<p class="error" id="code-error" role="alert">/ },
  'code-resend-wait': { title: 'login-passwordless.login-passwordless-sms-otp.title', mark: /<p class="notice" role="status">[\s\S]*class="cooldown wait-30"/ },
  'passkey-offer': { title: 'passkeys.passkey-enrollment-local.title', mark: /id="passkey-offer"/ },
  'passkey-error': { title: 'login-id.login-id.title', mark: /<section id="passkey-login-section" class="passkey" aria-labelledby[\s\S]*<p class="error" id="passkey-error" role="alert">[^<]/ },
  'signed-in': { title: 'smsauth.signed-in.title', mark: /<a class="button" href="#">/ },
  'signed-out': { title: 'logout.logout-complete.title', mark: /<p>/ },
  error: { title: 'smsauth.error-page.expiredTitle', mark: /<p role="alert">/ },
  'front-channel-logout': { title: 'logout.logout-complete.title', mark: /<p id="status" role="status"/ },
  'co-verify': { title: 'smsauth.co-verify.title', mark: /<form id="co-verify" method="post" action="#"/ },
};

describeOnEachDatabase('POST /api/v2/branding/preview', (database) => {
  let h: FlowHarness;
  beforeAll(async () => {
    h = await FlowHarness.start({}, { database });
  });
  afterAll(() => h?.close());

  const preview = (body: Record<string, unknown>, token = h.admin) => h.http().post('/api/v2/branding/preview').set('authorization', `Bearer ${token}`).send(body);

  describe.each(['en', 'ar'] as const)('in %s', (language) => {
    const t = new Translator(language);
    it.each([...LOGIN_PREVIEW_SCREENS])('draws the %s page whole, in the language and its direction, as a picture', async (screen) => {
      const res = await preview({ screen, language }).expect(200);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      const html = res.text;
      expect(html).toMatch(new RegExp(`^<!doctype html>\\n<html lang="${language}" dir="${language === 'ar' ? 'rtl' : 'ltr'}">`));
      expect(html).toContain(`<h1>${t.html(SCREENS[screen].title as never, { appName: 'Example App' })}</h1>`);
      expect(html).toMatch(SCREENS[screen].mark);
      expect(html).toContain('<link rel="stylesheet" href="/authorize/login.css">');
      // A picture: no script, nothing that posts or leaves, nothing that takes the focus.
      expect(html).not.toMatch(/<script|<noscript|<iframe|autofocus/);
      for (const [, action] of html.matchAll(/<form[^>]* action="([^"]*)"/g)) expect(action).toBe('#');
      for (const [, href] of html.matchAll(/<a[^>]* href="([^"]*)"/g)) expect(href).toBe('#');
      const csp = res.headers['content-security-policy'];
      expect(csp).toMatch(/^default-src 'none'; .*script-src 'none'; form-action 'none'/);
      expect(html).toContain('<meta http-equiv="Content-Security-Policy" content="default-src \'none\';');
    });
  });

  it('inlines the draft brand (its light primary colour adapted for contrast) and saves nothing', async () => {
    const saved = { colors: { primary: '#112233' }, logo_url: 'https://cdn.example.com/saved-logo.png' };
    await h.management('patch', '/branding', saved).expect(200);
    const mark = await logMark(h);
    const res = await preview({
      screen: 'phone',
      language: 'en',
      branding: { colors: { primary: '#FFD700', page_background: '#102030' }, font: { url: 'https://fonts.example.com/brand.woff2' } },
    }).expect(200);
    const style = /<style>([\s\S]*?)<\/style>/.exec(res.text)?.[1] ?? '';
    // Gold is too light for white text and for links on the white card: black text, a darkened accent.
    expect(style).toContain('button, a.button { background: #ffd700; color: #000000; }');
    expect(style).toMatch(/button\.link \{ background: none; color: #(?!ffd700)[0-9a-f]{6}; \}/);
    expect(style).toContain('html { background: #102030;');
    expect(style).toContain('src: url("https://fonts.example.com/brand.woff2")');
    expect(res.text).not.toContain('/authorize/brand.css');
    // The saved logo stays (the draft did not remove it), with the application's sample name as its text.
    expect(res.text).toContain('<img class="logo" src="https://cdn.example.com/saved-logo.png" alt=');
    const csp = res.headers['content-security-policy'];
    expect(csp).toMatch(/style-src 'self' 'sha256-[A-Za-z0-9+/=]+';/);
    expect(csp).toContain("img-src 'self' https://cdn.example.com/saved-logo.png;");
    expect(csp).toContain("font-src 'self' https://fonts.example.com/brand.woff2;");
    expect((await h.management('get', '/branding').expect(200)).body).toEqual(saved);
    expect(await mark.types()).toEqual([]);
    // null in the draft removes a saved field from the picture, as PATCH would.
    const removed = await preview({ screen: 'phone', language: 'en', branding: { logo_url: null } }).expect(200);
    expect(removed.text).not.toContain('<img');
    await h.management('patch', '/branding', { colors: null, logo_url: null }).expect(200);
  });

  it('shows the draft texts of a prompt over its saved ones, keeps the other prompts\' saved texts, and saves nothing', async () => {
    const put = (path: string, body: unknown) => h.http().put(`/api/v2${path}`).set('authorization', `Bearer ${h.admin}`).send(body as object);
    await put('/prompts/login-passwordless/custom-text/de', { 'login-passwordless-sms-otp': { title: 'Gespeicherter Titel', buttonText: 'Gespeicherter Knopf' } }).expect(200);
    await put('/prompts/common/custom-text/de', { common: { languageButtonText: 'Gespeicherte Sprache' } }).expect(200);
    const res = await preview({ screen: 'code', language: 'de', custom_text: { 'login-passwordless': { 'login-passwordless-sms-otp': { title: 'Entwurfstitel <script> autofocus' } } } }).expect(200);
    // Escaped as on the real page, and left as written (only the markup is made inert).
    expect(res.text).toContain('<h1>Entwurfstitel &lt;script&gt; autofocus</h1>');
    // The draft replaces the prompt's saved texts as PUT would: the saved button text is gone.
    expect(res.text).not.toContain('Gespeicherter Knopf');
    expect(res.text).toContain('Gespeicherte Sprache');
    const saved = await h.management('get', '/prompts/login-passwordless/custom-text/de').expect(200);
    expect(saved.body).toEqual({ 'login-passwordless-sms-otp': { title: 'Gespeicherter Titel', buttonText: 'Gespeicherter Knopf' } });
    // Without a draft the saved texts show; another language has none of them.
    expect((await preview({ screen: 'code', language: 'de' }).expect(200)).text).toContain('<h1>Gespeicherter Titel</h1>');
    expect((await preview({ screen: 'code', language: 'fr' }).expect(200)).text).not.toContain('Gespeichert');
    await put('/prompts/login-passwordless/custom-text/de', {}).expect(200);
    await put('/prompts/common/custom-text/de', {}).expect(200);
  });

  it('names the application of client_id, and refuses an unknown one with 404', async () => {
    const client = await h.createClient({ name: 'Vorschau Anwendung' });
    expect((await preview({ screen: 'phone', language: 'en', client_id: client.client_id }).expect(200)).text).toContain('Sign in to Vorschau Anwendung');
    const res = await preview({ screen: 'phone', language: 'en', client_id: 'no-such-client' }).expect(404);
    expect(res.body.error).toBe('not_found');
  });

  it.each([
    ['an unknown screen', { screen: 'mfa', language: 'en' }, 'screen', /page states: phone, phone-error/],
    ['an unknown language', { screen: 'phone', language: 'xx' }, 'language', /speak these languages only/],
    ['no screen', { language: 'en' }, 'screen', /page states/],
    ['an http: logo', { screen: 'phone', language: 'en', branding: { logo_url: 'http://cdn.example.com/logo.png' } }, 'branding.logo_url', /must be an https: URL/],
    ['a named colour', { screen: 'phone', language: 'en', branding: { colors: { primary: 'red' } } }, 'branding.colors.primary', /must be a #rrggbb or #rgb colour/],
    ['an unknown prompt', { screen: 'phone', language: 'en', custom_text: { login: { login: { title: 'x' } } } }, 'custom_text.login', /login/],
    ['a screen of another prompt', { screen: 'phone', language: 'en', custom_text: { common: { logout: { title: 'x' } } } }, 'custom_text.common.logout', /unknown field/],
    ['a text too long', { screen: 'phone', language: 'en', custom_text: { common: { common: { languageLabel: 'x'.repeat(2001) } } } }, 'custom_text.common.common.languageLabel', /at most 2000/],
  ])('refuses %s with 400 saying why', async (_case, body, path, message) => {
    const res = await preview(body).expect(400);
    expect(res.body.error).toBe('invalid_request');
    expect(res.body.error_description).toMatch(message);
    expect(res.body.details.map((d: { path: string }) => d.path)).toContain(path);
  });

  it('needs read:branding', async () => {
    const refused = await preview({ screen: 'phone', language: 'en' }, await adminToken(h.identity.app, 'read:prompts')).expect(403);
    expect(refused.body.error).toBe('insufficient_scope');
    await preview({ screen: 'phone', language: 'en' }, await adminToken(h.identity.app, 'read:branding')).expect(200);
  });
});
