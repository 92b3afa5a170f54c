import { createHash } from 'node:crypto';
import type { LoginLanguage, LoginPreviewScreen } from '@smsauth/contracts';
import { PAGE_ERRORS } from '../../domain/authorize/page-message';
import { MESSAGES } from '../../domain/authorize/steps';
import { RESEND_COOLDOWN_SECONDS } from '../../domain/authorize/transaction';
import type { PreviewAppearance } from '../../domain/branding/preview';
import { PASSKEY_MESSAGES } from '../../domain/passkeys/sign-in';
import { loginPageCountry, phoneCountries } from '../../domain/phone/countries';
import { brandAssets, brandStylesheet } from './brand';
import { coVerifyPage } from './co-verify';
import { enabledLanguages } from './i18n/language';
import { Translator } from './i18n/messages';
import {
  codePage,
  errorPage,
  frontChannelLogoutPage,
  passkeyOfferPage,
  phonePage,
  signedOutPage,
  signInCompletedPage,
  type CodeView,
  type FormContext,
  type PageChrome,
  type PhoneView,
} from './views';

/** The sample data of a preview: nobody's number, no real transaction, an example application; the code page offers every channel (the most text). */
const SAMPLE_NUMBER = '+14155550100';
const SAMPLE_RETURN_URL = 'https://app.example.com/';
const SAMPLE_LOGOUT_URL = 'https://app.example.com/logout';

function sha256Source(text: string): string {
  return `'sha256-${createHash('sha256').update(text).digest('base64')}'`;
}

/** One page state, drawn by the real view functions from sample data. */
function drawScreen(screen: LoginPreviewScreen, chrome: PageChrome, form: FormContext): string {
  const { t } = chrome;
  const phone = (view: Omit<PhoneView, 'countries'>) =>
    phonePage(chrome, form, { country: loginPageCountry(undefined, t.language), ...view, countries: phoneCountries(t.language) });
  const code = (view: Partial<CodeView>) =>
    codePage(chrome, form, { phoneNumber: SAMPLE_NUMBER, digits: 6, cooldownSeconds: 0, channel: 'sms', channels: ['sms', 'voice', 'whatsapp'], ...view });
  switch (screen) {
    case 'phone':
      return phone({});
    case 'phone-error':
      return phone({ phoneNumber: '415 555', error: MESSAGES.phoneNotValid('US'), country: 'US' });
    case 'code':
      return code({});
    case 'code-error':
      return code({ error: MESSAGES.wrongCode });
    case 'code-resend-wait':
      return code({ cooldownSeconds: RESEND_COOLDOWN_SECONDS, notice: { key: 'smsauth.code.newCodeSent' } });
    case 'passkey-offer':
      return passkeyOfferPage(chrome, form, {});
    case 'passkey-error':
      return phone({ passkeys: true, passkeyError: PASSKEY_MESSAGES.refused });
    case 'signed-in':
      return signInCompletedPage(chrome, form.appName, SAMPLE_RETURN_URL);
    case 'signed-out':
      return signedOutPage(chrome);
    case 'error':
      return errorPage(chrome, PAGE_ERRORS.expired());
    case 'front-channel-logout':
      return frontChannelLogoutPage(chrome, [{ clientName: form.appName, url: SAMPLE_LOGOUT_URL }], undefined);
    case 'co-verify':
      // The real page carries no brand: it is drawn as the route draws it (its frame is hidden).
      return coVerifyPage({ t }, { frameUrl: `${SAMPLE_RETURN_URL}callback#origin=preview`, frameOrigin: SAMPLE_RETURN_URL.slice(0, -1), coId: 'preview', fields: {} });
  }
}

/**
 * A page as a picture: no script (the passkey and logout scripts, and the frames a noscript block
 * would load), no frame (the cross-origin verification's hidden one), no form that posts, no link that leaves, no autofocus taking the focus from the
 * page that shows the preview. The markup is the views' own, so these patterns are exact.
 */
function inert(html: string): string {
  return html
    .replace(/<script\b[^>]*>[\s\S]*?<\/script>\n?/g, '')
    .replace(/<noscript>[\s\S]*?<\/noscript>\n?/g, '')
    .replace(/<iframe\b[^>]*>[\s\S]*?<\/iframe>\n?/g, '')
    .replace(/(<form\b[^>]*?) action="[^"]*"/g, '$1 action="#"')
    .replace(/(<a\b[^>]*?) href="[^"]*"/g, '$1 href="#"')
    .replace(/(<input\b[^>]*?) autofocus(?=[\s>])/g, '$1');
}

export interface LoginPreview {
  html: string;
  /** The preview's Content-Security-Policy header. */
  contentSecurityPolicy: string;
}

/**
 * A page of the hosted login in one state, as the real route renders it for a tenant whose
 * brand and texts are the preview's (saved with the drafts over them): the same views, the same
 * brand stylesheet (contrast adaptation included), with sample data. The draft brand stylesheet
 * is inlined: /authorize/brand.css serves the saved brand.
 *
 * Its other links stay relative (`/authorize/login.css`): the console shows the preview in an
 * iframe's `srcdoc` on a page of identity's own origin (/console/), and a srcdoc document's base
 * URL is its parent's, so they load from identity as on the real page.
 *
 * The CSP forbids every script, form submission and load but identity's own files, the inlined
 * style (by its hash) and the draft's https images and font; it is also in a `<meta>` of the page,
 * because a srcdoc document gets no response header of its own.
 */
export function loginPreview(screen: LoginPreviewScreen, language: LoginLanguage, appearance: PreviewAppearance): LoginPreview {
  const t = new Translator(language, appearance.customText);
  const { assets, sources } = brandAssets(appearance.branding, appearance.appName);
  const stylesheet = assets.stylesheetUrl ? brandStylesheet(appearance.branding) : undefined;
  const { stylesheetUrl: _linked, ...unlinked } = assets;
  const form: FormContext = { transactionId: 'preview', csrfToken: 'preview', appName: appearance.appName };
  const languages = enabledLanguages(appearance.enabledLocales);
  const returnTo = screen.startsWith('phone') || screen === 'passkey-error' ? 'phone' : screen.startsWith('code') ? 'code' : screen === 'passkey-offer' ? 'offer' : undefined;
  const chrome: PageChrome = {
    t,
    brand: { ...unlinked, ...(stylesheet ? { inlineStylesheet: stylesheet } : {}) },
    ...(returnTo && languages.length > 1 ? { switcher: { languages, form, returnTo } } : {}),
  };
  const styles = ["'self'", ...(stylesheet ? [sha256Source(stylesheet)] : []), ...sources.style].join(' ');
  const policy = `default-src 'none'; style-src ${styles}; img-src ${["'self'", ...sources.img].join(' ')}; font-src ${["'self'", ...sources.font].join(' ')}; script-src 'none'; form-action 'none'; base-uri 'none'`;
  const meta = `<meta http-equiv="Content-Security-Policy" content="${policy.replace(/"/g, '&quot;')}">`;
  const html = inert(drawScreen(screen, chrome, form)).replace('<meta charset="utf-8">', `<meta charset="utf-8">\n${meta}`);
  return { html, contentSecurityPolicy: `${policy}; frame-ancestors 'self'; sandbox allow-same-origin` };
}
