import { createHash } from 'node:crypto';
import { describeOnEachDatabase, FlowHarness, type LoginSetup } from '../passwordless/flow-harness';
import { authorizeQuery, CALLBACK, LoginSession } from './login-session';

/** The inline script of a page and the CSP `script-src` that must allow exactly it. */
function inlineScript(html: string): string | undefined {
  return /<script>([\s\S]*?)<\/script>/.exec(html)?.[1];
}

describeOnEachDatabase('hosted login code page with domain-bound codes (WebOTP)', (database) => {
  let h: FlowHarness;
  let setup: LoginSetup;

  beforeAll(async () => {
    h = await FlowHarness.start({ TRUST_PROXY: 'true' }, { database });
    // Passkeys off: the WebOTP script is then the page's only one.
    setup = await h.loginSetup({ webotp: { origin: 'https://login.example.com', app_hashes: [] }, passkeys: { enabled: false } }, { callbacks: [CALLBACK] });
  });
  afterAll(() => h.close());

  /** A login at its code step; answers the session and the code page's URL query. */
  async function atCodeStep() {
    const who = h.caller();
    const session = new LoginSession(h, who.ip);
    await session.open(authorizeQuery(setup));
    const sent = await session.post('/authorize/phone', { phone_number: who.phone });
    expect(sent.status).toBe(303);
    const query = Object.fromEntries(new URLSearchParams(sent.headers.location!.split('?')[1]));
    return { session, query, phone: who.phone };
  }

  it('offers the code through the WebOTP API when served from the webotp origin, allowing only that script by its hash', async () => {
    const { session, query, phone } = await atCodeStep();
    const page = await session.get('/authorize/code', query, { host: 'login.example.com' });
    expect(page.status).toBe(200);
    expect(page.text).toContain('autocomplete="one-time-code"');
    const script = inlineScript(page.text);
    expect(script).toContain("navigator.credentials.get({ otp: { transport: ['sms'] }");
    const hash = createHash('sha256').update(script!).digest('base64');
    expect(page.headers['content-security-policy']).toMatch(new RegExp(`; script-src 'sha256-${hash.replace(/[+/]/g, '\\$&')}'$`));

    // The SMS carries the matching origin-bound line, and typing the code still signs in.
    const code = h.codeSentTo(phone);
    expect(h.gateway.requests.at(-1)!.body).toContain(`\\n\\n@login.example.com #${code}"`);
    const done = await session.submitCode(code);
    expect(done.status).toBe(302);
    expect(done.headers.location!.startsWith(`${CALLBACK}#`)).toBe(true);
  });

  it('also recognises the origin from X-Forwarded-Host behind a trusted proxy', async () => {
    const { session, query } = await atCodeStep();
    const page = await session.get('/authorize/code', query, { 'x-forwarded-host': 'login.example.com', 'x-forwarded-proto': 'https' });
    expect(inlineScript(page.text)).toBeDefined();
  });

  it('serves the plain page, with no script and no script-src, on any other host', async () => {
    const { session, query } = await atCodeStep();
    const page = await session.get('/authorize/code', query, { host: 'other.example.com' });
    expect(page.status).toBe(200);
    expect(page.text).toContain('autocomplete="one-time-code"');
    expect(page.text).not.toContain('<script');
    expect(page.headers['content-security-policy']).not.toContain('script-src');
  });
});
