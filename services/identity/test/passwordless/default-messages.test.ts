import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_MESSAGE_TEMPLATE, LOGIN_LANGUAGES, type LoginLanguage } from '@smsauth/contracts';
import {
  DEFAULT_MESSAGES_DIRECTORY,
  defaultMessages,
  defaultSms,
  fillPlaceholders,
  usesDefaultMessages,
} from '../../src/domain/passwordless/default-messages';
import { countSmsSegments } from '../../src/domain/passwordless/sms-segments';
import { voiceMessage } from '../../src/domain/passwordless/voice-message';

/*
 * The default messages per language, measured by the project's own segment counter: every
 * default SMS is one segment with a realistic app name (20 characters) and with the
 * domain-bound line of a 30-character domain; GSM-7 where the language's wording allows it.
 * docs/sms-templates.md carries the table this test computes (UPDATE_DOCS=1 rewrites it).
 */

/** The languages whose default SMS is written in the GSM 03.38 alphabet; every other one needs UCS-2. */
const GSM_7_LANGUAGES: readonly LoginLanguage[] = ['en', 'da', 'de', 'es', 'fi', 'fr', 'id', 'it', 'nb', 'nl', 'pl', 'pt-BR', 'pt-PT', 'ro', 'sv', 'tr'];

const APP_NAME = 'Acme Travel Rewards!';
const DOMAIN = 'https://signin.acme-travel-rewards.com';
const CODE = '482913';
const webotp = { origin: DOMAIN, app_hashes: [] };

const placeholdersOf = (text: string) => [...text.matchAll(/\{([^}]*)\}/g)].map((m) => m[1]).sort();

describe('default message files', () => {
  it('exist for exactly the login languages', () => {
    const files = readdirSync(DEFAULT_MESSAGES_DIRECTORY).filter((f) => f.endsWith('.json')).map((f) => f.slice(0, -'.json'.length));
    expect(files.sort()).toEqual([...LOGIN_LANGUAGES].sort());
  });

  it.each(LOGIN_LANGUAGES)('%s has every key of English, each with the same placeholders', (language) => {
    const english = JSON.parse(readFileSync(join(DEFAULT_MESSAGES_DIRECTORY, 'en.json'), 'utf8')) as Record<string, string>;
    const file = JSON.parse(readFileSync(join(DEFAULT_MESSAGES_DIRECTORY, `${language}.json`), 'utf8')) as Record<string, string>;
    expect(Object.keys(file).sort()).toEqual(Object.keys(english).sort());
    for (const key of Object.keys(english)) expect([key, placeholdersOf(file[key]!)]).toEqual([key, placeholdersOf(english[key]!)]);
    // The code comes first in every text message (a lock screen's preview shows it).
    for (const key of ['sms', 'sms_short', 'whatsapp']) expect(file[key]!.startsWith('{code}')).toBe(true);
  });
});

describe('default SMS per language', () => {
  it.each(LOGIN_LANGUAGES)('%s is one segment in its intended encoding, with the app name and with the domain-bound line', (language) => {
    const encoding = GSM_7_LANGUAGES.includes(language) ? 'GSM-7' : 'UCS-2';
    const plain = defaultSms(language, { code: CODE, applicationName: APP_NAME }, undefined);
    expect(plain).toBe(fillPlaceholders(defaultMessages(language).sms, { code: CODE, applicationName: APP_NAME }));
    expect(plain.startsWith(CODE)).toBe(true);
    expect(countSmsSegments(plain)).toMatchObject({ encoding, segments: 1 });

    const bound = defaultSms(language, { code: CODE, applicationName: APP_NAME }, webotp);
    expect(countSmsSegments(bound)).toMatchObject({ encoding, segments: 1 });
    expect(bound.startsWith(CODE)).toBe(true);
    // The domain-bound line is the last line, exactly as with a tenant's template.
    expect(bound.endsWith('\n\n@signin.acme-travel-rewards.com #482913')).toBe(true);
  });

  it('drops the app name when it would make the SMS two segments, and keeps it when it fits', () => {
    // Japanese with the domain-bound line has no room for a 20-character name (70 UCS-2 units).
    const japanese = defaultSms('ja', { code: CODE, applicationName: APP_NAME }, webotp);
    expect(japanese).toBe(`${CODE} は認証コードです\n\n@signin.acme-travel-rewards.com #${CODE}`);
    // English has room (160 septets).
    expect(defaultSms('en', { code: CODE, applicationName: APP_NAME }, webotp)).toBe(`${CODE} is your ${APP_NAME} code\n\n@signin.acme-travel-rewards.com #${CODE}`);
    // An app name outside GSM-7 would turn English into UCS-2 and two segments: the short text stays GSM-7.
    const emoji = defaultSms('en', { code: CODE, applicationName: 'Acme Travel Rewards ✈️' }, webotp);
    expect(emoji).toBe(`${CODE} is your verification code\n\n@signin.acme-travel-rewards.com #${CODE}`);
    expect(countSmsSegments(emoji)).toMatchObject({ encoding: 'GSM-7', segments: 1 });
  });

  it('inserts the app name literally: a name with a placeholder in it is not expanded', () => {
    expect(defaultSms('en', { code: CODE, applicationName: '{code}' }, undefined)).toBe(`${CODE} is your {code} code`);
  });
});

describe('when the defaults apply', () => {
  it('applies to md_with_macros with the shipped template or none, and never to a tenant’s own template', () => {
    expect(usesDefaultMessages({ syntax: 'md_with_macros', template: DEFAULT_MESSAGE_TEMPLATE })).toBe(true);
    expect(usesDefaultMessages({ syntax: 'md_with_macros', template: undefined as unknown as string })).toBe(true);
    expect(usesDefaultMessages({ syntax: 'md_with_macros', template: `${DEFAULT_MESSAGE_TEMPLATE} ` })).toBe(false);
    expect(usesDefaultMessages({ syntax: 'md_with_macros', template: 'Your code is @@password@@' })).toBe(false);
    expect(usesDefaultMessages({ syntax: 'liquid', template: DEFAULT_MESSAGE_TEMPLATE })).toBe(false);
  });
});

describe('the voice per language', () => {
  it.each(LOGIN_LANGUAGES)('%s speaks the digits twice in its own words, with its text-to-speech language', (language) => {
    const texts = defaultMessages(language);
    const call = voiceMessage('4829', 'Acme', language, null);
    expect(call.language).toBe(texts.voice_language);
    expect(call.language.split('-')[0]).toBe(language.split('-')[0]);
    expect(call.text).toBe(`${fillPlaceholders(texts.voice_intro, { code: '4829', applicationName: 'Acme' })}: 4, 8, 2, 9. ${texts.voice_again}: 4, 8, 2, 9.`);
  });

  it('keeps the caller’s regional tag of the same language (fr-CA), and not of another one', () => {
    expect(voiceMessage('12', 'Acme', 'fr', 'fr-CA').language).toBe('fr-CA');
    expect(voiceMessage('12', 'Acme', 'fr', 'de-AT').language).toBe('fr-FR');
    expect(voiceMessage('12', 'Acme', 'zh-TW', 'zh-CN').language).toBe('zh-TW');
  });
});

/** The documentation's table: one row per language, computed here. */
function languageTable(): string {
  const names = new Intl.DisplayNames(['en'], { type: 'language' });
  const rows = LOGIN_LANGUAGES.map((language) => {
    const texts = defaultMessages(language);
    const plain = countSmsSegments(defaultSms(language, { code: CODE, applicationName: APP_NAME }, undefined));
    const bound = countSmsSegments(defaultSms(language, { code: CODE, applicationName: APP_NAME }, webotp));
    const cell = (count: typeof plain) => `${count.segments} (${count.characters})`;
    return `| ${names.of(language)} | \`${language}\` | ${plain.encoding} | ${cell(plain)} | ${cell(bound)} | ${texts.sms.replace(/\|/g, '\\|')} | \`${texts.voice_language}\` |`;
  });
  return [
    '| Language | Tag | SMS encoding | Segments (characters) | With the domain-bound line | SMS text | Voice |',
    '|---|---|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}

const DOC = join(__dirname, '..', '..', '..', '..', 'docs', 'sms-templates.md');
const BEGIN = '<!-- languages table: generated by services/identity/test/passwordless/default-messages.test.ts -->';
const END = '<!-- end of languages table -->';

describe('docs/sms-templates.md', () => {
  it('shows each language’s encoding and segment count as computed here', () => {
    const doc = readFileSync(DOC, 'utf8');
    const start = doc.indexOf(BEGIN);
    const end = doc.indexOf(END);
    expect(start).toBeGreaterThanOrEqual(0);
    expect(end).toBeGreaterThan(start);
    const table = `${BEGIN}\n${languageTable()}\n${END}`;
    if (process.env.UPDATE_DOCS === '1') writeFileSync(DOC, doc.slice(0, start) + table + doc.slice(end + END.length));
    expect(readFileSync(DOC, 'utf8').slice(start, start + table.length)).toBe(table);
  });
});
