import {
  brandChanges,
  brandDraftOf,
  brandPreviewOf,
  brandUpdateOf,
  colorInputValue,
  enabledLocalesOf,
  keysOf,
  languageName,
  localeChanges,
  previewRequestOf,
  textChanges,
  textsBodyOf,
  textsKey,
  withoutInlineStyles,
  type PromptTexts,
} from '../src/screens/branding/branding-data';

const saved = {
  logo_url: 'https://cdn.example.com/logo.svg',
  colors: { primary: '#0059d6', page_background: '#f4f4f8' },
  font: { url: 'https://cdn.example.com/brand.woff2' },
};

describe('the brand draft', () => {
  it('changes nothing until a field is edited', () => {
    expect(brandChanges(saved, brandDraftOf(saved))).toEqual([]);
    expect(brandUpdateOf(saved, brandDraftOf(saved))).toEqual({});
    expect(brandChanges({}, brandDraftOf({}))).toEqual([]);
  });

  it('sends only the changed fields, an emptied one as null, and names each change as the API does', () => {
    const draft = { ...brandDraftOf(saved), primary: '#AA0000', logo_url: '', favicon_url: ' https://cdn.example.com/f.png ' };
    expect(brandChanges(saved, draft)).toEqual([
      { field: 'logo_url', from: 'https://cdn.example.com/logo.svg', to: '' },
      { field: 'favicon_url', from: '', to: 'https://cdn.example.com/f.png' },
      { field: 'colors.primary', from: '#0059d6', to: '#AA0000' },
    ]);
    expect(brandUpdateOf(saved, draft)).toEqual({ logo_url: null, favicon_url: 'https://cdn.example.com/f.png', colors: { primary: '#AA0000' } });
  });

  it('compares colours as the API stores them (lower case) and removes the font with null', () => {
    const draft = { ...brandDraftOf(saved), primary: '#0059D6', font_url: '' };
    expect(brandChanges(saved, draft)).toEqual([{ field: 'font.url', from: 'https://cdn.example.com/brand.woff2', to: '' }]);
    expect(brandUpdateOf(saved, draft)).toEqual({ font: null });
  });

  it('previews the whole draft, the built-in look for what is empty', () => {
    expect(brandPreviewOf({ ...brandDraftOf(saved), page_background: '' })).toEqual({
      logo_url: 'https://cdn.example.com/logo.svg',
      favicon_url: null,
      font: { url: 'https://cdn.example.com/brand.woff2' },
      colors: { primary: '#0059d6', page_background: null },
    });
  });

  it('gives the colour input a #rrggbb it accepts', () => {
    expect(colorInputValue('#0A5')).toBe('#00aa55');
    expect(colorInputValue('#AbCdEf')).toBe('#abcdef');
    expect(colorInputValue('red')).toBe('#000000');
    expect(colorInputValue('')).toBe('#000000');
  });
});

describe('the languages', () => {
  it('puts the default first, keeps the saved order and appends new ones in the list order', () => {
    expect(enabledLocalesOf(['en', 'fr', 'de'], new Set(['en', 'fr', 'de', 'ar', 'cs']), 'fr')).toEqual(['fr', 'en', 'de', 'ar', 'cs']);
    expect(enabledLocalesOf(['en', 'fr', 'de'], new Set(['en', 'de']), 'en')).toEqual(['en', 'de']);
  });

  it('says what changes: the default, the languages added and removed, by name', () => {
    expect(localeChanges(['en', 'fr'], ['en', 'fr'])).toEqual([]);
    expect(localeChanges(['en', 'fr'], ['fr', 'en', 'ar'])).toEqual([
      { field: 'default language', from: 'English', to: 'French (français)' },
      { field: 'languages added', from: '', to: 'Arabic (العربية)' },
    ]);
    expect(localeChanges(['en', 'fr'], ['en'])).toEqual([{ field: 'languages removed', from: 'French (français)', to: '' }]);
  });

  it('names a language in English and in itself', () => {
    expect(languageName('de')).toBe('German (Deutsch)');
    expect(languageName('en')).toBe('English');
  });
});

describe('the texts', () => {
  const savedTexts: PromptTexts = { 'login-passwordless-sms-otp': { title: 'Your code', buttonText: 'Go' } };

  it('PUTs every non-empty text of the prompt\'s screens; emptied ones are left out (removed)', () => {
    const draft: PromptTexts = { 'login-passwordless-sms-otp': { title: 'Votre code', buttonText: '', placeholder: '  ' } };
    expect(textsBodyOf('login-passwordless', draft)).toEqual({ 'login-passwordless-sms-otp': { title: 'Votre code' } });
    expect(textsBodyOf('login-passwordless', { 'login-passwordless-sms-otp': { title: '' } })).toEqual({});
  });

  it('lists each changed text as screen.key', () => {
    const draft: PromptTexts = { 'login-passwordless-sms-otp': { title: 'Your one-time code', buttonText: '', resendText: 'Again?' } };
    expect(textChanges('login-passwordless', savedTexts, draft)).toEqual([
      { field: 'login-passwordless-sms-otp.title', from: 'Your code', to: 'Your one-time code' },
      { field: 'login-passwordless-sms-otp.buttonText', from: 'Go', to: '' },
      { field: 'login-passwordless-sms-otp.resendText', from: '', to: 'Again?' },
    ]);
    expect(textChanges('login-passwordless', savedTexts, savedTexts)).toEqual([]);
  });

  it('offers the pages\' keys first, then saved keys the pages do not use', () => {
    expect(keysOf({ title: 'Enter your code', buttonText: 'Sign in' }, { buttonText: 'Go', legacy: 'x' })).toEqual(['title', 'buttonText', 'legacy']);
    expect(keysOf(undefined, undefined)).toEqual([]);
  });
});

describe('the preview request', () => {
  it('carries the brand draft and the drafts of the preview\'s language only, each as a whole prompt', () => {
    const drafts = new Map<string, PromptTexts>([
      [textsKey('fr', 'login-passwordless'), { 'login-passwordless-sms-otp': { title: 'Votre code', buttonText: '' } }],
      [textsKey('ar', 'common'), { common: { languageLabel: 'اللغة' } }],
    ]);
    const request = previewRequestOf('code', 'fr', brandDraftOf(saved), drafts);
    expect(request).toEqual({
      screen: 'code',
      language: 'fr',
      branding: brandPreviewOf(brandDraftOf(saved)),
      custom_text: { 'login-passwordless': { 'login-passwordless-sms-otp': { title: 'Votre code' } } },
    });
    expect(previewRequestOf('phone', 'en', brandDraftOf({}), drafts)).not.toHaveProperty('custom_text');
  });
});

describe('the preview page in the console\'s frame', () => {
  it('takes the inline brand stylesheet out of the page, to be adopted by the frame\'s document', () => {
    const page = '<!doctype html><html><head><meta charset="utf-8"><link rel="stylesheet" href="/authorize/login.css"><style>button { background: #aa0000; }</style></head><body><p>x</p></body></html>';
    expect(withoutInlineStyles(page)).toEqual({
      html: '<!doctype html><html><head><meta charset="utf-8"><link rel="stylesheet" href="/authorize/login.css"></head><body><p>x</p></body></html>',
      css: ['button { background: #aa0000; }'],
    });
    expect(withoutInlineStyles('<p>no style</p>')).toEqual({ html: '<p>no style</p>', css: [] });
  });
});
