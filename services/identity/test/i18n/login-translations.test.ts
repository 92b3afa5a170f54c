import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, TYPE, type MessageFormatElement } from '@formatjs/icu-messageformat-parser';
import { CUSTOM_TEXT_SCREENS, LOGIN_LANGUAGES } from '@smsauth/contracts';
import { LOGIN_LOCALES_DIRECTORY } from '../../src/routes/authorize/i18n/messages';

/**
 * The translation files a contributor edits (locales/login/<tag>.json): every language has
 * exactly English's keys, and every message parses as ICU MessageFormat and uses exactly the
 * arguments English uses (a translation cannot drop the number or invent an argument).
 */

/** A language's messages; a missing file is none (its key test then fails, naming every key). */
function load(language: string): Record<string, unknown> {
  const file = join(LOGIN_LOCALES_DIRECTORY, `${language}.json`);
  if (!existsSync(file)) return {};
  return JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
}

/** The arguments a message uses, with their kind (`plural` and `argument` must not be confused). */
function argumentsOf(elements: MessageFormatElement[], found = new Set<string>()): Set<string> {
  for (const element of elements) {
    if (element.type === TYPE.argument || element.type === TYPE.number || element.type === TYPE.date || element.type === TYPE.time) {
      found.add(`${element.value}:${TYPE[element.type]}`);
    } else if (element.type === TYPE.plural || element.type === TYPE.select) {
      found.add(`${element.value}:${TYPE[element.type]}`);
      for (const option of Object.values(element.options)) argumentsOf(option.value, found);
    } else if (element.type === TYPE.tag) {
      found.add(`<${element.value}>`);
      argumentsOf(element.children, found);
    }
  }
  return found;
}

const english = load('en');
const englishArguments = new Map(Object.entries(english).map(([key, message]) => [key, [...argumentsOf(parse(String(message), { ignoreTag: true }))].sort()]));

describe('hosted login translations', () => {
  it('keys every text `prompt.screen.key` with a prompt and screen a tenant may set custom text for', () => {
    const settable = new Set(Object.entries(CUSTOM_TEXT_SCREENS).flatMap(([prompt, screens]) => screens.map((screen) => `${prompt}.${screen}`)));
    const unsettable = Object.keys(english).filter((key) => !settable.has(key.split('.').slice(0, 2).join('.')));
    expect(unsettable).toEqual([]);
  });

  it('has one file per language of LOGIN_LANGUAGES and no other', () => {
    const files = readdirSync(LOGIN_LOCALES_DIRECTORY).filter((name) => name.endsWith('.json')).map((name) => name.slice(0, -'.json'.length));
    expect(files.sort()).toEqual([...LOGIN_LANGUAGES].sort());
  });

  it('names its keys prompt.screen.key', () => {
    for (const key of Object.keys(english)) expect(key).toMatch(/^[a-z][a-z-]*\.[a-z][a-z-]*\.[a-zA-Z][a-zA-Z-]*$/);
  });

  describe.each(LOGIN_LANGUAGES.filter((language) => language !== 'en'))('%s', (language) => {
    const messages = load(language);

    it("has every key of en.json and no other", () => {
      expect(Object.keys(messages).sort()).toEqual(Object.keys(english).sort());
    });

    it('has messages that parse and use exactly the arguments English uses', () => {
      const mismatches: string[] = [];
      for (const [key, message] of Object.entries(messages)) {
        if (typeof message !== 'string' || message.trim() === '') {
          mismatches.push(`${key}: not a text`);
          continue;
        }
        let used: string[];
        try {
          used = [...argumentsOf(parse(message, { ignoreTag: true }))].sort();
        } catch (err) {
          mismatches.push(`${key}: does not parse (${(err as Error).message})`);
          continue;
        }
        const expected = englishArguments.get(key);
        if (expected && JSON.stringify(used) !== JSON.stringify(expected)) mismatches.push(`${key}: uses ${used.join(', ')}; English uses ${expected.join(', ')}`);
      }
      expect(mismatches).toEqual([]);
    });

    it('has a translation where English has words (not the English text copied)', () => {
      // Texts that are only arguments or technical names may equal English; a page copied whole may not.
      const same = Object.keys(english).filter((key) => messages[key] === english[key] && /[a-z]{3,}/.test(String(english[key]).replace(/\{[^}]*\}/g, '')));
      expect(same.length).toBeLessThan(Object.keys(english).length / 10);
    });
  });
});
