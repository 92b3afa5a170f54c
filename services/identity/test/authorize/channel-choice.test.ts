import { describeOnEachDatabase, FlowHarness, type LoginSetup } from '../passwordless/flow-harness';
import { authorizeQuery, CALLBACK, LoginSession } from './login-session';

/*
 * "Didn't get it?" on the hosted code page: after the resend wait, one button per channel the
 * connection allows for the number ("Send again" by the one used, "Call me instead", "Send via
 * WhatsApp"); the page says which channel carried the code and to which number (its last
 * digits); a channel the connection does not allow is refused with words, not a 500.
 */

interface Delivered {
  recipient: string;
  body: string;
  channel?: string;
  code?: string;
}

describeOnEachDatabase('choosing the channel on the hosted login', (database) => {
  let h: FlowHarness;
  let withVoice: LoginSetup;
  let smsOnly: LoginSetup;

  beforeAll(async () => {
    h = await FlowHarness.start({ TRUST_PROXY: 'true' }, { database });
    withVoice = await h.loginSetup({ channels: { default: ['sms', 'voice', 'whatsapp'] } }, { name: 'Flow App', callbacks: [CALLBACK] });
    smsOnly = await h.loginSetup({}, { name: 'Flow App', callbacks: [CALLBACK] });
  });
  afterAll(() => h.close());

  const lastTo = (phone: string) =>
    [...h.gateway.requests].reverse().map((r) => JSON.parse(r.body) as Delivered).find((d) => d.recipient === phone)!;

  async function atCodeStep(setup: LoginSetup) {
    const who = h.caller();
    const session = new LoginSession(h, who.ip);
    await session.open(authorizeQuery(setup));
    expect((await session.submitPhone(who.phone)).status).toBe(200);
    return { session, phone: who.phone };
  }

  it('offers each allowed channel after the wait, calls on "Call me instead", says so, and the spoken code signs in', async () => {
    const { session, phone } = await atCodeStep(withVoice);
    const page = session.last!.text;
    expect(page).toContain(`We sent a 6-digit code by text message (SMS) to your number ending in <strong><bdi dir="ltr">${phone.slice(-4)}</bdi></strong>.`);
    // During the wait each button has a disabled twin; the real ones are submit buttons naming their channel.
    expect([...page.matchAll(/<button type="submit" name="channel" value="(\w+)"[^>]*>([^<]+)</g)].map((m) => [m[1], m[2]])).toEqual([
      ['sms', 'Send again'],
      ['voice', 'Call me instead'],
      ['whatsapp', 'Send via WhatsApp'],
    ]);
    expect(page).toMatch(/<button type="button" class="secondary resend-waiting" disabled[^>]*>Call me instead</);

    h.clock.advance(31);
    const resent = await session.post('/authorize/resend', { channel: 'voice' });
    expect(resent.status).toBe(303);
    const codePage = await session.get(resent.headers.location!.split('?')[0]!, Object.fromEntries(new URLSearchParams(resent.headers.location!.split('?')[1])));
    expect(codePage.text).toContain(`We are calling your number ending in <strong><bdi dir="ltr">${phone.slice(-4)}</bdi></strong> to read you a 6-digit code.`);
    // The voice channel's button is now "Send again", and the others offer themselves.
    expect([...codePage.text.matchAll(/name="channel" value="(\w+)"[^>]*>([^<]+)</g)].map((m) => m[2])).toEqual([
      'Send again',
      'Send a text message instead',
      'Send via WhatsApp',
    ]);
    const call = lastTo(phone);
    expect(call.channel).toBe('voice');
    const heard = /: ([\d, ]+)\./.exec(call.body)![1]!.replace(/\D/g, '');
    const signedIn = await session.submitCode(heard);
    expect(signedIn.status).toBe(302);
    expect(signedIn.headers.location!.startsWith(`${CALLBACK}#`)).toBe(true);
  });

  it('offers only "Send again" where the connection allows SMS alone, and refuses a posted "call me" clearly', async () => {
    const { session, phone } = await atCodeStep(smsOnly);
    expect([...session.last!.text.matchAll(/name="channel" value="(\w+)"/g)].map((m) => m[1])).toEqual(['sms']);
    h.clock.advance(31);
    const sentBefore = h.gateway.requests.length;
    const refused = await session.post('/authorize/resend', { channel: 'voice' });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('That way of sending the code is not available for this number. Choose another one.');
    expect(h.gateway.requests.length).toBe(sentBefore);
    // A made-up channel is ignored: the connection's own order (SMS) sends the code.
    const again = await session.post('/authorize/resend', { channel: 'pigeon' });
    expect(again.status).toBe(303);
    expect(lastTo(phone).channel).toBeUndefined();
  });
});
