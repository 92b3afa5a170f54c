/**
 * What a voice call says: the code digit by digit, twice, in the start's message language (the
 * same choice as the default SMS: chooseMessageLanguage), with the phrases of that language's
 * file (default-messages.ts). Digits are separated by ", " so a text-to-speech engine reads
 * "4, 7, 1" and never "four hundred seventy-one".
 */
import type { LoginLanguage } from '@smsauth/contracts';
import { defaultMessages, fillPlaceholders } from './default-messages';
import { matchLoginLanguage } from './message-language';

export interface VoiceMessage {
  /** What the call says. */
  text: string;
  /** BCP 47 tag it is spoken in: the language file's voice, or the caller's own `ll-RR` tag of that language (en-GB stays en-GB). */
  language: string;
}

const LANGUAGE_AND_REGION = /^[A-Za-z]{2,3}-[A-Za-z]{2}$/;

/** The voice call's words for `code` in `language`; `requestLanguage` keeps its regional accent when it asked for that language. */
export function voiceMessage(code: string, applicationName: string, language: LoginLanguage, requestLanguage: string | null): VoiceMessage {
  const texts = defaultMessages(language);
  const requested = requestLanguage?.trim() ?? '';
  const spokenIn = LANGUAGE_AND_REGION.test(requested) && matchLoginLanguage(requested) === language ? requested : texts.voice_language;
  const digits = code.split('').join(', ');
  const intro = fillPlaceholders(texts.voice_intro, { code, applicationName });
  return { text: `${intro}: ${digits}. ${texts.voice_again}: ${digits}.`, language: spokenIn };
}
