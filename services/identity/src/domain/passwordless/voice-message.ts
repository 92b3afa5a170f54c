/**
 * What a voice call says: the code digit by digit, twice, in the user's language (the start's
 * request_language when a phrase book exists for it, else English). Digits are separated by
 * ", " so a text-to-speech engine reads "4, 7, 1" and never "four hundred seventy-one".
 */

interface PhraseBook {
  /** The language a call speaks when the request named only the base language (`pt` -> `pt-BR`). */
  locale: string;
  intro: (applicationName: string) => string;
  again: string;
}

const PHRASES: Readonly<Record<string, PhraseBook>> = {
  en: { locale: 'en-US', intro: (app) => `Your ${app} code is`, again: 'Again, your code is' },
  es: { locale: 'es-ES', intro: (app) => `Tu código de ${app} es`, again: 'Repito, tu código es' },
  pt: { locale: 'pt-BR', intro: (app) => `Seu código do ${app} é`, again: 'Repetindo, seu código é' },
  fr: { locale: 'fr-FR', intro: (app) => `Votre code ${app} est`, again: 'Je répète, votre code est' },
  de: { locale: 'de-DE', intro: (app) => `Ihr ${app} Code lautet`, again: 'Noch einmal, Ihr Code lautet' },
  it: { locale: 'it-IT', intro: (app) => `Il tuo codice ${app} è`, again: 'Ripeto, il tuo codice è' },
};

/** The languages a voice call can speak (base language subtags). */
export const VOICE_LANGUAGES = Object.keys(PHRASES);

export interface VoiceMessage {
  /** What the call says. */
  text: string;
  /** BCP 47 tag it is spoken in (the request's own tag when its base language has a phrase book). */
  language: string;
}

/** The voice call's words for `code`, in `requestLanguage` when possible. */
export function voiceMessage(code: string, applicationName: string, requestLanguage: string | null): VoiceMessage {
  const tag = (requestLanguage ?? '').trim();
  const base = tag.split('-')[0]!.toLowerCase();
  const book = PHRASES[base];
  const phrases = book ?? PHRASES.en!;
  // A full tag of a known language is kept (en-GB stays en-GB); a bare or unknown one becomes the book's locale.
  const language = book && /^[A-Za-z]{2,3}-[A-Za-z0-9]{2,8}$/.test(tag) ? tag : phrases.locale;
  const digits = code.split('').join(', ');
  return { text: `${phrases.intro(applicationName)}: ${digits}. ${phrases.again}: ${digits}.`, language };
}
