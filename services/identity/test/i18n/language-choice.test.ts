import { chooseLanguage, enabledLanguages, matchLanguage, rememberedLanguage } from '../../src/routes/authorize/i18n/language';
import { Translator } from '../../src/routes/authorize/i18n/messages';
import { LOGIN_LANGUAGES } from '@smsauth/contracts';

describe('the language of the hosted pages', () => {
  const all: string[] = [];

  it('is the first ui_locales tag the tenant has enabled', () => {
    expect(chooseLanguage({ uiLocales: 'xx de fr', acceptLanguages: ['ja'], enabledLocales: all })).toBe('de');
    expect(chooseLanguage({ uiLocales: 'fr de', acceptLanguages: [], enabledLocales: ['en', 'de'] })).toBe('de');
  });

  it('matches a tag to the bundled language of its language, region or script', () => {
    expect(matchLanguage('pt', LOGIN_LANGUAGES)).toBe('pt-BR');
    expect(matchLanguage('pt-AO', LOGIN_LANGUAGES)).toBe('pt-PT');
    expect(matchLanguage('pt-br', LOGIN_LANGUAGES)).toBe('pt-BR');
    expect(matchLanguage('zh-Hant-HK', LOGIN_LANGUAGES)).toBe('zh-TW');
    expect(matchLanguage('zh', LOGIN_LANGUAGES)).toBe('zh-CN');
    expect(matchLanguage('no', LOGIN_LANGUAGES)).toBe('nb');
    expect(matchLanguage('de-AT', LOGIN_LANGUAGES)).toBe('de');
    expect(matchLanguage('tlh', LOGIN_LANGUAGES)).toBeUndefined();
    expect(matchLanguage('pt', ['en', 'pt-PT'])).toBe('pt-PT');
  });

  it('follows the browser when ui_locales names no enabled language, then the tenant default', () => {
    expect(chooseLanguage({ uiLocales: 'xx', acceptLanguages: ['sv-SE', 'en'], enabledLocales: all })).toBe('sv');
    expect(chooseLanguage({ acceptLanguages: ['ja'], enabledLocales: ['fr', 'de'] })).toBe('fr');
    expect(chooseLanguage({ acceptLanguages: [], enabledLocales: all })).toBe('en');
  });

  it('enables every bundled language, English first, when the tenant enabled none', () => {
    expect(enabledLanguages([])).toHaveLength(LOGIN_LANGUAGES.length);
    expect(enabledLanguages([])[0]).toBe('en');
    expect(enabledLanguages(['ar', 'klingon', 'de'])).toEqual(['ar', 'de']);
  });

  it('keeps a transaction\'s language only while the tenant has it enabled', () => {
    expect(rememberedLanguage('ja', all)).toBe('ja');
    expect(rememberedLanguage('ja', ['en', 'de'])).toBeUndefined();
    expect(rememberedLanguage(null, all)).toBeUndefined();
  });
});

describe('a translator', () => {
  it('renders ICU plurals in its language', () => {
    const de = new Translator('de');
    expect(de.text('smsauth.code.resendWaitSpoken', { seconds: 1 })).toBe('Sie können in 1 Sekunde einen neuen Code anfordern.');
    expect(de.text('smsauth.code.resendWaitSpoken', { seconds: 30 })).toBe('Sie können in 30 Sekunden einen neuen Code anfordern.');
    expect(new Translator('ar').dir).toBe('rtl');
    expect(de.dir).toBe('ltr');
  });

  it('puts a tenant\'s custom text over the bundled one, escaped like any value', () => {
    const t = new Translator('en', { 'login-id.login-id.title': 'Welcome to <b>{appName}</b>' });
    expect(t.html('login-id.login-id.title', { appName: 'A&B' })).toBe('Welcome to &lt;b&gt;A&amp;B&lt;/b&gt;');
  });

  it('falls back to the bundled text when a custom text does not parse', () => {
    const t = new Translator('en', { 'login-id.login-id.title': 'Broken {appName' });
    expect(t.text('login-id.login-id.title', { appName: 'Demo' })).toBe('Sign in to Demo');
  });

  it('puts markup arguments in unescaped and escapes the text around them', () => {
    const t = new Translator('en', { 'smsauth.code.newCodeSent': '<i>{x}</i> & {y}' });
    expect(t.html('smsauth.code.newCodeSent', { y: '<y>' }, { x: '<bdi dir="ltr">1</bdi>' })).toBe('&lt;i&gt;<bdi dir="ltr">1</bdi>&lt;/i&gt; &amp; &lt;y&gt;');
  });
});
