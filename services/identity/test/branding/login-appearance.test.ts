import { DEFAULT_LOGIN_APPEARANCE } from '../../src/domain/branding/login-appearance';
import { StoreLoginAppearance } from '../../src/domain/branding/store-appearance';
import { describeOnEachDatabase, FlowHarness } from '../passwordless/flow-harness';

describeOnEachDatabase('the hosted pages\' appearance read from the store', (database) => {
  let h: FlowHarness;
  beforeAll(async () => {
    h = await FlowHarness.start({}, { database });
  });
  afterAll(() => h?.close());

  const put = (path: string, body: unknown) => h.http().put(`/api/v2${path}`).set('authorization', `Bearer ${h.admin}`).send(body as object);
  const fresh = () => new StoreLoginAppearance(h.identity.store, h.clock, 5_000);

  it('is the built-in look, every language and no text while the tenant set nothing', async () => {
    const source = fresh();
    expect(await source.appearance()).toEqual(await DEFAULT_LOGIN_APPEARANCE.appearance());
    expect(await source.customText('en')).toEqual({});
  });

  it('shows the brand and languages set through the management API', async () => {
    await h.management('patch', '/branding', { colors: { primary: '#0A5' }, logo_url: 'https://cdn.example.com/logo.png', font: { url: 'https://cdn.example.com/f.woff2' } }).expect(200);
    await h.management('patch', '/tenants/settings', { enabled_locales: ['de', 'en'] }).expect(200);
    expect(await fresh().appearance()).toEqual({
      branding: { logoUrl: 'https://cdn.example.com/logo.png', fontUrl: 'https://cdn.example.com/f.woff2', colors: { primary: '#00aa55' } },
      enabledLocales: ['de', 'en'],
    });
  });

  it('merges every prompt\'s texts of a language, keyed prompt.screen.key, and no other language\'s', async () => {
    await put('/prompts/login-passwordless/custom-text/de', { 'login-passwordless-sms-otp': { title: 'Ihr Code', buttonText: 'Weiter' } }).expect(200);
    await put('/prompts/logout/custom-text/de', { 'logout-complete': { title: 'Abgemeldet' } }).expect(200);
    await put('/prompts/smsauth/custom-text/de', { phone: { title: 'Ihre Nummer' } }).expect(200);
    await put('/prompts/logout/custom-text/fr', { 'logout-complete': { title: 'Déconnecté' } }).expect(200);
    expect(await fresh().customText('de')).toEqual({
      'login-passwordless.login-passwordless-sms-otp.title': 'Ihr Code',
      'login-passwordless.login-passwordless-sms-otp.buttonText': 'Weiter',
      'logout.logout-complete.title': 'Abgemeldet',
      'smsauth.phone.title': 'Ihre Nummer',
    });
    expect(await fresh().customText('fr')).toEqual({ 'logout.logout-complete.title': 'Déconnecté' });
  });

  it('keeps what it read for its TTL, reads again after it or once told of a write', async () => {
    const source = fresh();
    const before = await source.appearance();
    // Another replica's write: this one keeps its copy until the TTL ends.
    await h.identity.store.branding.update({ primary_color: '#123456' }, h.clock.now());
    expect(await source.appearance()).toEqual(before);
    h.clock.advance(5);
    expect((await source.appearance()).branding.colors).toEqual({ primary: '#123456' });
    // This replica's write tells it at once.
    await h.identity.store.branding.update({ primary_color: '#654321' }, h.clock.now());
    source.invalidate();
    expect((await source.appearance()).branding.colors).toEqual({ primary: '#654321' });
  });
});
