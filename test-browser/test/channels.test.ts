import { join } from 'node:path';
import { CallbackServer } from '../src/callback-server';
import { describeWithChromium } from '../src/chromium';
import { createAppOnConnection, useBrowserSuite } from '../src/stack';
import { verifyWithJwks } from '../src/tokens';

const SCREENSHOTS = join(__dirname, '..', 'test-results', 'channels');
const PHONE_VIEWPORT = { width: 390, height: 844 };

/**
 * "Didn't get it?" in a real browser: a connection that allows SMS, voice and WhatsApp; the
 * person waits out the resend countdown, presses "Call me instead", the gateway (its outbox
 * provider) receives a voice message, and the code spoken in it signs the person in.
 */
describeWithChromium('choosing another channel on the hosted login', () => {
  const suite = useBrowserSuite('smsauth-channels-', SCREENSHOTS);
  let callback: CallbackServer;
  let clientId: string;

  beforeAll(async () => {
    callback = await CallbackServer.start();
    clientId = await createAppOnConnection(suite, 'Browser Test App', callback.url(), { channels: { default: ['sms', 'voice', 'whatsapp'] } });
  });

  afterAll(async () => {
    await callback?.close();
  });

  it('places a voice call on "Call me instead" after the countdown, and the spoken code signs in', async () => {
    const context = await suite.browser.newContext({ viewport: PHONE_VIEWPORT, hasTouch: true });
    const page = await context.newPage();
    const phone = `+1415${2_000_000 + Math.floor(Math.random() * 8e6)}`;
    const query = new URLSearchParams({
      client_id: clientId,
      redirect_uri: callback.url(),
      response_type: 'token id_token',
      scope: 'openid phone',
      audience: suite.stack.apiAudience,
      state: 'channels-state',
      nonce: 'channels-nonce',
    });
    await page.goto(`${suite.stack.urls.authUrl}/authorize?${query.toString()}`);
    await page.getByLabel('Mobile phone number').fill(phone);
    await page.getByRole('button', { name: 'Send code' }).click();
    await page.getByLabel('Code', { exact: true }).waitFor();
    expect(await page.locator('#sent-to').textContent()).toBe(`We sent a 6-digit code by text message (SMS) to your number ending in ${phone.slice(-4)}.`);

    // During the countdown the choices are there but disabled; when it ends (the server's own
    // 30-second rule, shown by the page's CSS) they can be pressed.
    const callMe = page.getByRole('button', { name: 'Call me instead' });
    expect(await callMe.count()).toBe(1);
    expect(await callMe.isDisabled()).toBe(true);
    expect(await page.getByRole('button', { name: 'Send via WhatsApp' }).isDisabled()).toBe(true);
    await page.locator('button.resend-ready[value="voice"]').waitFor({ state: 'visible', timeout: 45_000 });
    await page.screenshot({ path: join(SCREENSHOTS, '01-choices-ready.png'), fullPage: true });
    expect(await callMe.isEnabled()).toBe(true);
    await callMe.click();
    await page.getByText(`We are calling your number ending in ${phone.slice(-4)} to read you a 6-digit code.`).waitFor();
    await page.screenshot({ path: join(SCREENSHOTS, '02-calling.png'), fullPage: true });

    // The gateway's outbox shows the voice message, in its language, as a call would say it.
    const outbox = await context.newPage();
    await outbox.goto(`${suite.stack.urls.gatewayUrl}/outbox`);
    const row = outbox.locator('tbody tr', { hasText: phone }).first();
    expect(await row.locator('td[data-label="Channel"]').textContent()).toBe('Voice call (en-US)');
    const spoken = (await row.locator('td.body').textContent())!;
    await outbox.screenshot({ path: join(SCREENSHOTS, '03-outbox-voice.png'), fullPage: true });
    await outbox.close();
    const digits = /code is: ((?:\d, )+\d)\. Again, your code is: \1\./.exec(spoken);
    expect(digits).not.toBeNull();
    const code = digits![1]!.replace(/\D/g, '');
    expect(code).toMatch(/^\d{6}$/);

    await page.getByLabel('Code', { exact: true }).fill(code);
    await Promise.all([page.waitForURL((url) => url.href.startsWith(callback.url())), page.getByRole('button', { name: 'Sign in' }).click()]);
    const fragment = new URLSearchParams(new URL(page.url()).hash.slice(1));
    expect(fragment.get('state')).toBe('channels-state');
    const id = await verifyWithJwks(suite.stack.urls.authUrl, fragment.get('id_token')!, clientId);
    expect(id.phone_number).toBe(phone);
    await context.close();
  });
});
