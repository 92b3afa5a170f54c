import { DEFAULT_MESSAGE_TEMPLATE } from '@smsauth/contracts';
import { describeOnEachDatabase, FlowHarness, type LoginSetup } from '../passwordless/flow-harness';
import { authorizeQuery, CALLBACK, LoginSession } from './login-session';

// The hosted login's language (ui_locales, kept by the login transaction) is also the language of
// the default SMS: a French page sends a French code, whatever the browser otherwise prefers.
describeOnEachDatabase('the code of a hosted login speaks the page language', (database) => {
  let h: FlowHarness;
  let setup: LoginSetup;

  beforeAll(async () => {
    h = await FlowHarness.start({ TRUST_PROXY: 'true' }, { database });
    setup = await h.loginSetup({ template: DEFAULT_MESSAGE_TEMPLATE }, { name: 'Flow App', callbacks: [CALLBACK] });
  });
  afterAll(() => h.close());

  function bodySentTo(phone: string): string {
    const sent = [...h.gateway.requests].reverse().map((r) => JSON.parse(r.body) as { recipient: string; body: string }).find((b) => b.recipient === phone);
    if (!sent) throw new Error(`no message was sent to ${phone}`);
    return sent.body;
  }

  it('sends the French default message when the page was opened with ui_locales=fr, though the browser prefers German', async () => {
    const who = h.caller();
    const session = new LoginSession(h, who.ip);
    expect((await session.get('/authorize', authorizeQuery(setup, { ui_locales: 'fr-FR fr' }), { 'accept-language': 'de' })).status).toBe(200);
    expect((await session.submitPhone(who.phone)).status).toBe(200);
    const code = h.codeSentTo(who.phone);
    expect(bodySentTo(who.phone)).toBe(`${code} est votre code Flow App`);
  });

  it('sends the English default message to a US number when nothing asks for another language', async () => {
    const who = h.caller();
    const session = new LoginSession(h, who.ip);
    expect((await session.open(authorizeQuery(setup))).status).toBe(200);
    expect((await session.submitPhone(who.phone)).status).toBe(200);
    expect(bodySentTo(who.phone)).toMatch(/^\d{6} is your Flow App code$/);
  });
});
