import { chooseMessageLanguage, languageOfCountry, matchLoginLanguage } from '../../src/domain/passwordless/message-language';

describe('matchLoginLanguage', () => {
  it.each([
    ['fr', 'fr'],
    ['fr-CA', 'fr'],
    ['DE-at', 'de'],
    ['pt', 'pt-BR'],
    ['pt-br', 'pt-BR'],
    ['pt-PT', 'pt-PT'],
    ['pt-AO', 'pt-PT'],
    ['zh', 'zh-CN'],
    ['zh-SG', 'zh-CN'],
    ['zh-Hans', 'zh-CN'],
    ['zh-TW', 'zh-TW'],
    ['zh-HK', 'zh-TW'],
    ['zh-Hant', 'zh-TW'],
    ['no', 'nb'],
    ['nn-NO', 'nb'],
    ['iw', 'he'],
    ['ja-JP', 'ja'],
  ])('reads %s as %s', (tag, language) => {
    expect(matchLoginLanguage(tag)).toBe(language);
  });

  it.each(['sw', 'sw-KE', 'x', 'not a tag', '', '   '])('names no bundled language for %j', (tag) => {
    expect(matchLoginLanguage(tag)).toBeUndefined();
  });
});

describe('languageOfCountry', () => {
  it.each([
    ['BR', 'pt-BR'],
    ['PT', 'pt-PT'],
    ['TW', 'zh-TW'],
    ['HK', 'zh-TW'],
    ['CN', 'zh-CN'],
    ['JP', 'ja'],
    ['IN', 'hi'],
    ['PK', 'ur'],
    ['IR', 'fa'],
    ['IL', 'he'],
    ['CH', 'de'],
    ['BE', 'nl'],
    ['NO', 'nb'],
    ['US', 'en'],
  ])('speaks to a number of %s in %s', (country, language) => {
    expect(languageOfCountry(country)).toBe(language);
  });

  it('names none for a country whose language is not bundled, or no country', () => {
    expect(languageOfCountry('KE')).toBeUndefined();
    expect(languageOfCountry(undefined)).toBeUndefined();
  });
});

describe('chooseMessageLanguage', () => {
  it('prefers the page, then the request, then the country, then English', () => {
    expect(chooseMessageLanguage({ pageLanguage: 'de', requestLanguage: 'fr', country: 'JP' })).toEqual({ language: 'de', from: 'page' });
    expect(chooseMessageLanguage({ pageLanguage: undefined, requestLanguage: 'fr', country: 'JP' })).toEqual({ language: 'fr', from: 'request' });
    expect(chooseMessageLanguage({ requestLanguage: 'sw', country: 'JP' })).toEqual({ language: 'ja', from: 'country' });
    expect(chooseMessageLanguage({ requestLanguage: null, country: 'KE' })).toEqual({ language: 'en', from: 'default' });
    expect(chooseMessageLanguage({ requestLanguage: null, country: undefined })).toEqual({ language: 'en', from: 'default' });
  });
});
