/**
 * The hosted login pages: plain server-rendered HTML in the language of a Translator. Every
 * interpolated value, translated text included, goes through `escapeHtml`. The one script is WEBOTP_SCRIPT, on the code page of a connection whose codes
 * are bound to the page's origin; the page works the same without it.
 */

import { createHash } from 'node:crypto';
import type { DeliveryChannel, LoginLanguage } from '@smsauth/contracts';
import { escapeHtml, htmlPage } from '@smsauth/service-kit';
import { languageName, type MessageKey, type Translator } from './i18n/messages';
import type { PageErrorText, PageMessage } from '../../domain/authorize/page-message';

/**
 * What every hosted page shares besides its body: the language it speaks (and its direction),
 * the tenant's brand (logo, favicon, font and colours through its stylesheet) and, where the
 * tenant has enabled more than one language, the language switcher of the transaction.
 */
export interface PageChrome {
  t: Translator;
  brand?: BrandAssets;
  switcher?: LanguageSwitcher;
}

/** The tenant's brand as the page links it; every URL was checked to be https. */
export interface BrandAssets {
  logoUrl?: string;
  faviconUrl?: string;
  /** A font stylesheet (a font file is declared in the brand stylesheet instead). */
  fontStylesheetUrl?: string;
  /** `/authorize/brand.css?v=…`: colours and font of the tenant. */
  stylesheetUrl?: string;
  /**
   * The brand stylesheet itself, in a `<style>` instead of the link: a preview of a draft brand
   * (brand.css serves the saved one). Made by brandStylesheet: hex colours and checked URLs only.
   */
  inlineStylesheet?: string;
  /** The logo's alternative text: the application's name. */
  appName?: string;
}

/** The switcher's choices and the page it returns to. */
export interface LanguageSwitcher {
  languages: readonly LoginLanguage[];
  form: FormContext;
  /** The page of the transaction to show again in the chosen language. */
  returnTo: 'phone' | 'code' | 'offer';
}

/** Keeps phone numbers, codes and calling codes left to right inside right-to-left text. */
export function ltr(text: string): string {
  return `<bdi dir="ltr">${escapeHtml(text)}</bdi>`;
}

function languageSwitcher(chrome: PageChrome): string {
  const switcher = chrome.switcher;
  if (!switcher || switcher.languages.length < 2) return '';
  const { t } = chrome;
  const options = switcher.languages
    .map((language) => `<option value="${escapeHtml(language)}" lang="${escapeHtml(language)}"${language === t.language ? ' selected' : ''}>${escapeHtml(languageName(language))}</option>`)
    .join('\n');
  return `<form method="post" action="/authorize/language" class="language-switcher">
${hiddenFields(switcher.form)}
<input type="hidden" name="return_to" value="${switcher.returnTo}">
<label for="language">${t.html('common.common.languageLabel')}</label>
<div class="language-row">
<select id="language" name="language">
${options}
</select>
<button type="submit" class="secondary">${t.html('common.common.languageButtonText')}</button>
</div>
</form>`;
}

function layout(chrome: PageChrome, title: string, body: string): string {
  const { brand, t } = chrome;
  const head = [
    brand?.faviconUrl ? `<link rel="icon" href="${escapeHtml(brand.faviconUrl)}">` : '',
    brand?.fontStylesheetUrl ? `<link rel="stylesheet" href="${escapeHtml(brand.fontStylesheetUrl)}">` : '',
    '<link rel="stylesheet" href="/authorize/login.css">',
    brand?.inlineStylesheet ? `<style>${brand.inlineStylesheet}</style>` : brand?.stylesheetUrl ? `<link rel="stylesheet" href="${escapeHtml(brand.stylesheetUrl)}">` : '',
  ].filter(Boolean).join('\n');
  const logo = brand?.logoUrl ? `<img class="logo" src="${escapeHtml(brand.logoUrl)}" alt="${escapeHtml(t.text('smsauth.common.logoAlt', { appName: brand.appName ?? '' }))}">\n` : '';
  const switcher = languageSwitcher(chrome);
  return htmlPage({ title, head, body: `${logo}${body}${switcher ? `\n${switcher}` : ''}`, lang: t.language, dir: t.dir });
}

/** The fields every form of a transaction carries. */
export interface FormContext {
  transactionId: string;
  csrfToken: string;
  appName: string;
}

function hiddenFields(form: FormContext): string {
  return `<input type="hidden" name="transaction" value="${escapeHtml(form.transactionId)}">
<input type="hidden" name="csrf_token" value="${escapeHtml(form.csrfToken)}">`;
}


/** A message as HTML; a `country` argument (an ISO code) is named in the page's language. */
export function messageHtml(t: Translator, message: PageMessage): string {
  const country = message.args?.country;
  const args = typeof country === 'string' ? { ...message.args, country: t.regionName(country) } : message.args;
  return t.html(message.key, args);
}

function errorBox(t: Translator, id: string, message: PageMessage | undefined): string {
  return message ? `<p class="error" id="${id}" role="alert">${messageHtml(t, message)}</p>\n` : '';
}

function cancelForm(t: Translator, form: FormContext): string {
  return `<form method="post" action="/authorize/cancel">
${hiddenFields(form)}
<button type="submit" class="link">${t.html('smsauth.common.cancelText', { appName: form.appName })}</button>
</form>`;
}

/** A country the number may be typed for: the `<select>` shows name and calling code. */
export interface CountryChoice {
  code: string;
  name: string;
  callingCode: string;
}

export interface PhoneView {
  phoneNumber?: string;
  error?: PageMessage;
  countries: readonly CountryChoice[];
  /** ISO code selected; none: the number must start with + and its country code. */
  country?: string;
  /** The connection has passkeys on: "Sign in with a passkey" and the browser's passkey autofill. */
  passkeys?: boolean;
  /** A passkey sign-in was refused: said above the passkey button. */
  passkeyError?: PageMessage;
}

/** A plain `<select>` (no script): national numbers are read for the chosen country. */
function countrySelect(t: Translator, view: PhoneView): string {
  // An <option> holds text only: in a right-to-left page the calling code is isolated left to right by Unicode marks (LRI … PDI).
  const callingCode = (code: string) => (t.dir === 'rtl' ? `\u2066+${escapeHtml(code)}\u2069` : `+${escapeHtml(code)}`);
  const options = view.countries
    .map((c) => `<option value="${escapeHtml(c.code)}"${c.code === view.country ? ' selected' : ''}>${escapeHtml(c.name)} (${callingCode(c.callingCode)})</option>`)
    .join('\n');
  return `<label for="country">${t.html('smsauth.phone.countryLabel')}</label>
<select id="country" name="country" autocomplete="country">
<option value=""${view.country ? '' : ' selected'}>${t.html('smsauth.phone.countryOther')}</option>
${options}
</select>`;
}

/** The scripts of a page with passkeys: the WebAuthn library and ours, both files of our own origin (`script-src 'self'`). */
const PASSKEY_SCRIPTS = '<script src="/authorize/webauthn.js"></script>\n<script src="/authorize/passkeys.js"></script>';

/**
 * "Sign in with a passkey": hidden until the script finds WebAuthn in the browser (without
 * script the page is the SMS page it always was). The script fills `credential` and submits.
 */
function passkeyLoginForm(t: Translator, form: FormContext, view: PhoneView): string {
  const error = view.passkeyError
    ? `<p class="error" id="passkey-error" role="alert">${messageHtml(t, view.passkeyError)}</p>`
    : '<p class="error" id="passkey-error" role="alert" hidden></p>';
  return `<section id="passkey-login-section" class="passkey"${view.passkeyError ? '' : ' hidden'} aria-labelledby="passkey-heading">
<h2 id="passkey-heading">${t.html('smsauth.phone.passkeyHeading')}</h2>
${error}
<form method="post" action="/authorize/passkey/login" id="passkey-login">
${hiddenFields(form)}
<input type="hidden" name="credential" value="">
<button type="submit" class="secondary">${t.html('login-id.login-id.passkeyButtonText')}</button>
</form>
</section>`;
}

/** The examples of the phone hint and errors: numbers, so always left to right. */
export const PHONE_EXAMPLES = ['+1 415 555 0100', '+44 7400 123456'] as const;

export function phonePage(chrome: PageChrome, form: FormContext, view: PhoneView): string {
  const { t } = chrome;
  const describedBy = view.error ? 'phone-hint phone-error' : 'phone-hint';
  // Conditional UI: the browser's autofill on the number field offers the passkeys it holds.
  const autocomplete = view.passkeys ? 'username webauthn' : 'tel';
  const app = { appName: form.appName };
  return layout(
    chrome,
    t.text('login-id.login-id.pageTitle', app),
    `<h1>${t.html('login-id.login-id.title', app)}</h1>
<p>${t.html('login-id.login-id.description')}</p>
${errorBox(t, 'phone-error', view.error)}<form method="post" action="/authorize/phone">
${hiddenFields(form)}
${countrySelect(t, view)}
<label for="phone_number">${t.html('login-id.login-id.phonePlaceholder')}</label>
<p class="hint" id="phone-hint">${t.html('smsauth.phone.hint', {}, { example1: ltr(PHONE_EXAMPLES[0]), example2: ltr(PHONE_EXAMPLES[1]) })}</p>
<input id="phone_number" name="phone_number" type="tel" autocomplete="${autocomplete}" inputmode="tel" dir="ltr" required autofocus
  aria-describedby="${describedBy}"${view.error ? ' aria-invalid="true"' : ''} value="${escapeHtml(view.phoneNumber ?? '')}">
<button type="submit">${t.html('login-id.login-id.buttonText')}</button>
</form>
${view.passkeys ? `${passkeyLoginForm(t, form, view)}\n` : ''}${cancelForm(t, form)}${view.passkeys ? `\n${PASSKEY_SCRIPTS}` : ''}`,
  );
}

export interface CodeView {
  phoneNumber: string;
  digits: number;
  /** Seconds until "send again" (or another channel) is allowed. */
  cooldownSeconds: number;
  /** The channel that carried the last code (`sms` for a transaction from before channels). */
  channel: DeliveryChannel;
  /** The channels the connection allows for this number, in its order: one button each after the cooldown. */
  channels: readonly DeliveryChannel[];
  notice?: PageMessage;
  error?: PageMessage;
  /** Served from the connection's webotp origin: offer the SMS's code through the WebOTP API. */
  webOtp?: boolean;
  /** The connection has passkeys on: the script tells the server whether this browser could create one. */
  passkeys?: boolean;
}

/**
 * Progressive enhancement: where the browser has the WebOTP API, ask it for the code of the
 * origin-bound SMS, fill it in and submit; typing it (or iOS autofill through
 * autocomplete="one-time-code") works as before. Allowed by its hash in the CSP.
 */
export const WEBOTP_SCRIPT = `(function () {
  if (!('OTPCredential' in window)) return;
  var input = document.getElementById('code');
  var form = input && input.form;
  if (!form) return;
  var abort = new AbortController();
  form.addEventListener('submit', function () { abort.abort(); });
  navigator.credentials.get({ otp: { transport: ['sms'] }, signal: abort.signal }).then(function (otp) {
    if (!otp || !otp.code) return;
    input.value = otp.code;
    form.submit();
  }).catch(function () {});
})();`;

/** The CSP source that allows WEBOTP_SCRIPT, computed from its text when the module loads. */
export const WEBOTP_SCRIPT_SOURCE = `'sha256-${createHash('sha256').update(WEBOTP_SCRIPT).digest('base64')}'`;

function cooldownHint(t: Translator, seconds: number): string {
  if (seconds <= 0) return `<p class="cooldown" id="resend-hint"><span>${t.html('login-passwordless.login-passwordless-sms-otp.resendText')}</span></p>`;
  // The number counts down by CSS (login.css, .countdown); assistive technology reads the static text.
  const visual = t.html('smsauth.code.resendWaitVisual', {}, { countdown: '<bdi dir="ltr" class="countdown"></bdi>' });
  return `<p class="cooldown wait-${seconds}" id="resend-hint" aria-live="polite">
<span class="cooldown-wait"><span class="visually-hidden">${t.html('smsauth.code.resendWaitSpoken', { seconds })}</span><span aria-hidden="true">${visual}</span></span>
<span class="cooldown-now">${t.html('smsauth.code.resendNowText')}</span>
</p>`;
}

/**
 * During the cooldown a disabled button stands where the resend button will be; both share one
 * grid cell and the hint's CSS animation swaps them when it ends (a hidden button can be neither
 * clicked nor focused). No script: the server still refuses an early resend, as before.
 */
function resendButton(seconds: number, label: string, channel: DeliveryChannel): string {
  const button = `<button type="submit" name="channel" value="${channel}" class="secondary" aria-describedby="resend-hint">${label}</button>`;
  if (seconds <= 0) return `<div class="resend">${button}</div>`;
  return `<div class="resend wait-${seconds}">
<button type="button" class="secondary resend-waiting" disabled aria-describedby="resend-hint">${label}</button>
${button.replace('class="secondary"', 'class="secondary resend-ready"')}
</div>`;
}

/** "Send again" by the channel used, then each other allowed channel by what it does for the person. */
function resendButtons(t: Translator, seconds: number, used: DeliveryChannel, channels: readonly DeliveryChannel[]): string {
  const others: Record<DeliveryChannel, MessageKey> = {
    voice: 'smsauth.code.callInsteadText',
    whatsapp: 'smsauth.code.whatsappInsteadText',
    sms: 'smsauth.code.smsInsteadText',
  };
  const ordered = channels.includes(used) ? [used, ...channels.filter((c) => c !== used)] : [...channels];
  return ordered
    .map((channel) => resendButton(seconds, t.html(channel === used ? 'login-passwordless.login-passwordless-sms-otp.resendActionText' : others[channel]), channel))
    .join('\n');
}

/** What the code page says about the last code: its channel and the number's last digits (the rest masked). */
function sentTo(t: Translator, view: CodeView): string {
  const lastDigits = `<strong>${ltr(view.phoneNumber.replace(/\D/g, '').slice(-4))}</strong>`;
  const key =
    view.channel === 'voice'
      ? 'smsauth.code.descriptionVoice'
      : view.channel === 'whatsapp'
        ? 'smsauth.code.descriptionWhatsapp'
        : 'login-passwordless.login-passwordless-sms-otp.description';
  return t.html(key, { digits: view.digits }, { lastDigits });
}

export function codePage(chrome: PageChrome, form: FormContext, view: CodeView): string {
  const { t } = chrome;
  const describedBy = view.error ? 'sent-to code-error' : 'sent-to';
  const notice = view.notice ? `<p class="notice" role="status">${messageHtml(t, view.notice)}</p>\n` : '';
  return layout(
    chrome,
    t.text('login-passwordless.login-passwordless-sms-otp.pageTitle', { appName: form.appName }),
    `<h1>${t.html('login-passwordless.login-passwordless-sms-otp.title')}</h1>
<p id="sent-to">${sentTo(t, view)}</p>
${notice}${errorBox(t, 'code-error', view.error)}<form method="post" action="/authorize/code">
${hiddenFields(form)}${view.passkeys ? '\n<input type="hidden" name="passkey_capable" id="passkey-capable" value="">' : ''}
<label for="code">${t.html('login-passwordless.login-passwordless-sms-otp.placeholder')}</label>
<input id="code" class="code-input" name="code" type="text" dir="ltr" inputmode="numeric" autocomplete="one-time-code" required autofocus
  aria-describedby="${describedBy}"${view.error ? ' aria-invalid="true"' : ''}>
<button type="submit">${t.html('login-passwordless.login-passwordless-sms-otp.buttonText')}</button>
</form>
<form method="post" action="/authorize/resend">
${hiddenFields(form)}
${cooldownHint(t, view.cooldownSeconds)}
${resendButtons(t, view.cooldownSeconds, view.channel, view.channels)}
</form>
<p><a href="/authorize/phone?transaction=${encodeURIComponent(form.transactionId)}">${t.html('login-passwordless.login-passwordless-sms-otp.editText')}</a></p>
${cancelForm(t, form)}${view.webOtp ? `\n<script>${WEBOTP_SCRIPT}</script>` : ''}${view.passkeys ? '\n<script src="/authorize/passkeys.js"></script>' : ''}`,
  );
}

export interface PasskeyOfferView {
  error?: PageMessage;
}

/**
 * After an SMS login, where the browser can create a passkey: the offer. "Sign in faster next
 * time with a passkey" runs the registration (script); "Not now" and "Don't ask on this device"
 * are plain forms, and each of the three continues to the application.
 */
export function passkeyOfferPage(chrome: PageChrome, form: FormContext, view: PasskeyOfferView): string {
  const { t } = chrome;
  const screen = 'passkeys.passkey-enrollment-local';
  return layout(
    chrome,
    t.text(`${screen}.pageTitle`, { appName: form.appName }),
    `<h1>${t.html(`${screen}.title`)}</h1>
<p id="offer-why">${t.html(`${screen}.description`)}</p>
${errorBox(t, 'offer-error', view.error) || '<p class="error" id="offer-error" role="alert" hidden></p>\n'}<form method="post" action="/authorize/passkey/register" id="passkey-offer">
${hiddenFields(form)}
<input type="hidden" name="credential" value="">
<button type="submit" aria-describedby="offer-why">${t.html(`${screen}.createButtonText`)}</button>
</form>
<form method="post" action="/authorize/passkey/skip">
${hiddenFields(form)}
<input type="hidden" name="choice" value="later">
<button type="submit" class="secondary">${t.html(`${screen}.continueButtonText`)}</button>
</form>
<form method="post" action="/authorize/passkey/skip">
${hiddenFields(form)}
<input type="hidden" name="choice" value="never">
<button type="submit" class="link">${t.html('smsauth.passkey-offer.neverText')}</button>
</form>
${PASSKEY_SCRIPTS}`,
  );
}

/** Back after the sign-in completed: nothing to do here, and the way back to the application. */
export function signInCompletedPage(chrome: PageChrome, appName: string, returnTo: string | undefined): string {
  const { t } = chrome;
  const app = { appName };
  const back = returnTo
    ? `<p><a class="button" href="${escapeHtml(returnTo)}">${t.html('smsauth.signed-in.returnButtonText', app)}</a></p>`
    : `<p>${t.html('smsauth.signed-in.returnText', app)}</p>`;
  return layout(
    chrome,
    t.text('smsauth.signed-in.title'),
    `<h1>${t.html('smsauth.signed-in.title')}</h1>\n<p>${t.html('smsauth.signed-in.description', app)}</p>\n${back}`,
  );
}

export function errorPage(chrome: PageChrome, error: PageErrorText): string {
  const { t } = chrome;
  return layout(
    chrome,
    t.text(error.title.key, error.title.args),
    `<h1>${messageHtml(t, error.title)}</h1>\n<p role="alert">${messageHtml(t, error.description)}</p>`,
  );
}

/** The plain "signed out" page of the logout endpoints. */
export function signedOutPage(chrome: PageChrome): string {
  const { t } = chrome;
  return layout(chrome, t.text('logout.logout-complete.title'), `<h1>${t.html('logout.logout-complete.title')}</h1>\n<p>${t.html('logout.logout-complete.description')}</p>`);
}

/** Submits the form_post page's one form as soon as it loads. */
export const FORM_POST_SCRIPT = 'document.forms[0].submit();';
export const FORM_POST_SCRIPT_SOURCE = `'sha256-${createHash('sha256').update(FORM_POST_SCRIPT).digest('base64')}'`;

/**
 * OAuth 2.0 Form Post Response Mode: the parameters as hidden fields posted to the
 * redirect_uri, submitted by FORM_POST_SCRIPT (with a button for browsers without script).
 */
export function formPostPage(redirectUri: string, params: Record<string, string>): string {
  const fields = Object.entries(params)
    .map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`)
    .join('\n');
  return htmlPage({
    title: 'Submit this form',
    body: `<form method="post" action="${escapeHtml(redirectUri)}">
${fields}
<noscript><p>Script is disabled: press the button to go back to the application.</p><button type="submit">Continue</button></noscript>
</form>
<script>${FORM_POST_SCRIPT}</script>`,
  });
}

/** JSON that is safe inside a <script> element (no `</script>`, no line separators). */
function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

/**
 * Auth0's web_message response mode, as auth0-spa-js (getTokenSilently, loginWithPopup) and
 * auth0-js (checkSession) read it: `{type: "authorization_response", response: {...}}` posted
 * to the opener (a popup) or else the parent (the hidden iframe), at `targetOrigin` only.
 * Returns the page and the CSP source (hash) of its one script.
 */
export function webMessagePage(targetOrigin: string, params: Record<string, string>): { html: string; scriptSource: string } {
  const message = { type: 'authorization_response', response: params };
  const script = `(function () {
  var target = window.opener || window.parent;
  target.postMessage(${scriptJson(message)}, ${scriptJson(targetOrigin)});
})();`;
  return {
    html: htmlPage({ title: 'Authorization response', body: `<script>${script}</script>` }),
    scriptSource: `'sha256-${createHash('sha256').update(script).digest('base64')}'`,
  };
}

/**
 * The logout page's one script: frames each front-channel logout URL (listening for its load
 * before it starts loading), and once every frame has loaded (or after 5 s, so a client that
 * never answers cannot hold the browser) says so (the status's `data-done` text, in the page's
 * language) and goes on to the `continue` link, if any.
 */
export const FRONT_CHANNEL_LOGOUT_SCRIPT =
  "(function(){var items=document.querySelectorAll('[data-logout-url]');var left=items.length;var done=false;" +
  "function finish(){if(done)return;done=true;var status=document.getElementById('status');if(status)status.textContent=status.getAttribute('data-done');" +
  "var next=document.getElementById('continue');if(next)window.location.replace(next.href);}" +
  "items.forEach(function(item){var frame=document.createElement('iframe');frame.hidden=true;frame.title=item.getAttribute('data-title');" +
  "frame.addEventListener('load',function(){left-=1;if(left<=0)finish();});frame.src=item.getAttribute('data-logout-url');item.appendChild(frame);});" +
  'if(left===0)finish();window.setTimeout(finish,5000);})();';
export const FRONT_CHANNEL_LOGOUT_SCRIPT_SOURCE = `'sha256-${createHash('sha256').update(FRONT_CHANNEL_LOGOUT_SCRIPT).digest('base64')}'`;

/**
 * OpenID Connect Front-Channel Logout: the "signed out" page frames each client's front-channel
 * logout URL (hidden frames, each with a title), then goes on to `continueTo` (the return URL)
 * once they have loaded. Without script the frames are in a noscript block and the link is
 * there to follow.
 */
export function frontChannelLogoutPage(chrome: PageChrome, frames: ReadonlyArray<{ clientName: string; url: string }>, continueTo: string | undefined): string {
  const { t } = chrome;
  const title = (frame: { clientName: string }) => t.html('smsauth.logout.frameTitle', { appName: frame.clientName });
  const slots = frames.map((frame) => `<span data-logout-url="${escapeHtml(frame.url)}" data-title="${title(frame)}"></span>`).join('\n');
  const iframes = frames.map((frame) => `<iframe hidden title="${title(frame)}" src="${escapeHtml(frame.url)}"></iframe>`).join('\n');
  const next = continueTo ? `<p><a id="continue" class="button" href="${escapeHtml(continueTo)}">${t.html('smsauth.logout.continueText')}</a></p>\n` : '';
  return layout(
    chrome,
    t.text('logout.logout-complete.title'),
    `<h1>${t.html('logout.logout-complete.title')}</h1>
<p id="status" role="status" data-done="${t.html('logout.logout-complete.description')}">${t.html('smsauth.logout.signingOutText', { count: frames.length })}</p>
${next}<div hidden>
${slots}
</div>
<noscript>
${iframes}
</noscript>
<script>${FRONT_CHANNEL_LOGOUT_SCRIPT}</script>`,
  );
}
