/**
 * The built-in messages, one data file per language (locales/messages/<tag>.json), sent when a
 * connection keeps the shipped template (usesDefaultMessages). Placeholders are `{code}` and
 * `{app}` (the application's name), inserted literally in one pass. The SMS names the app when
 * the whole message, domain-bound lines included, still fits one segment; otherwise it is the
 * shorter text without it, so a default SMS is always one segment (docs/sms-templates.md).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_MESSAGE_TEMPLATE, LOGIN_LANGUAGES, type ConnectionOptions, type LoginLanguage, type WebOtpOptions } from '@smsauth/contracts';
import { z } from 'zod';
import { LOCALES_DIRECTORY } from '../../locales';
import { withDomainBoundCode } from './domain-bound-code';
import { countSmsSegments } from './sms-segments';

const DefaultMessagesSchema = z.strictObject({
  /** The SMS: `{code}` first, then the app's name. */
  sms: z.string().min(1),
  /** The SMS when the one above would not fit one segment: `{code}` only. */
  sms_short: z.string().min(1),
  /** WhatsApp's text (no segment limit: it may say more). */
  whatsapp: z.string().min(1),
  /** What a call says before the digits: "Your {app} code is". */
  voice_intro: z.string().min(1),
  /** What it says before repeating them. */
  voice_again: z.string().min(1),
  /** The BCP 47 tag a text-to-speech voice is chosen by (`pt-BR`, `ja-JP`). */
  voice_language: z.string().regex(/^[a-z]{2,3}-[A-Z]{2}$/),
});
export type DefaultMessages = z.infer<typeof DefaultMessagesSchema>;

export const DEFAULT_MESSAGES_DIRECTORY = join(LOCALES_DIRECTORY, 'messages');

let loaded: ReadonlyMap<LoginLanguage, DefaultMessages> | undefined;

/** Every language's file, read and checked once (a missing or malformed file fails the first start loudly, in tests first). */
export function defaultMessageCatalogue(): ReadonlyMap<LoginLanguage, DefaultMessages> {
  loaded ??= new Map(
    LOGIN_LANGUAGES.map((language) => {
      const file = join(DEFAULT_MESSAGES_DIRECTORY, `${language}.json`);
      const parsed = DefaultMessagesSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
      if (!parsed.success) throw new Error(`${file}: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
      return [language, parsed.data] as const;
    }),
  );
  return loaded;
}

export function defaultMessages(language: LoginLanguage): DefaultMessages {
  return defaultMessageCatalogue().get(language)!;
}

/** The syntax is md_with_macros and the template is absent or the shipped one, word for word: a tenant's own template always wins. */
export function usesDefaultMessages(options: Pick<ConnectionOptions, 'syntax' | 'template'>): boolean {
  return (options.syntax ?? 'md_with_macros') === 'md_with_macros' && (options.template === undefined || options.template === DEFAULT_MESSAGE_TEMPLATE);
}

const PLACEHOLDER = /\{(code|app)\}/g;

/** `{code}` and `{app}` filled in one pass, so an app named "{code}" stays as named. */
export function fillPlaceholders(text: string, values: { code: string; applicationName: string }): string {
  return text.replace(PLACEHOLDER, (_match: string, name: string) => (name === 'code' ? values.code : values.applicationName));
}

export interface DefaultMessageValues {
  code: string;
  applicationName: string;
}

/** The default SMS, with the domain-bound lines when the connection has `webotp`: the app's name only when all of it fits one segment. */
export function defaultSms(language: LoginLanguage, values: DefaultMessageValues, webotp: WebOtpOptions | undefined): string {
  const texts = defaultMessages(language);
  const compose = (text: string) => {
    const filled = fillPlaceholders(text, values);
    return webotp ? withDomainBoundCode(filled, webotp, values.code) : filled;
  };
  const full = compose(texts.sms);
  return countSmsSegments(full).fits_one_segment ? full : compose(texts.sms_short);
}

export function defaultWhatsAppMessage(language: LoginLanguage, values: DefaultMessageValues): string {
  return fillPlaceholders(defaultMessages(language).whatsapp, values);
}
