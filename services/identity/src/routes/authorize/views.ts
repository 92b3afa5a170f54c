/**
 * The hosted login pages: plain server-rendered HTML. Every interpolated value goes through
 * `escapeHtml`. The one script is WEBOTP_SCRIPT, on the code page of a connection whose codes
 * are bound to the page's origin; the page works the same without it.
 */

import { createHash } from 'node:crypto';
import type { DeliveryChannel } from '@smsauth/contracts';
import { escapeHtml, htmlPage } from '@smsauth/service-kit';

function layout(title: string, body: string): string {
  return htmlPage({ title, head: '<link rel="stylesheet" href="/authorize/login.css">', body });
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

function errorBox(id: string, message: string | undefined): string {
  return message ? `<p class="error" id="${id}" role="alert">${escapeHtml(message)}</p>\n` : '';
}

function cancelForm(form: FormContext): string {
  return `<form method="post" action="/authorize/cancel">
${hiddenFields(form)}
<button type="submit" class="link">Cancel and return to ${escapeHtml(form.appName)}</button>
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
  error?: string;
  countries: readonly CountryChoice[];
  /** ISO code selected; none: the number must start with + and its country code. */
  country?: string;
  /** The connection has passkeys on: "Sign in with a passkey" and the browser's passkey autofill. */
  passkeys?: boolean;
  /** A passkey sign-in was refused: said above the passkey button. */
  passkeyError?: string;
}

/** A plain `<select>` (no script): national numbers are read for the chosen country. */
function countrySelect(view: PhoneView): string {
  const options = view.countries
    .map((c) => `<option value="${escapeHtml(c.code)}"${c.code === view.country ? ' selected' : ''}>${escapeHtml(c.name)} (+${escapeHtml(c.callingCode)})</option>`)
    .join('\n');
  return `<label for="country">Country</label>
<select id="country" name="country" autocomplete="country">
<option value=""${view.country ? '' : ' selected'}>Other: the number starts with + and its country code</option>
${options}
</select>`;
}

/** The scripts of a page with passkeys: the WebAuthn library and ours, both files of our own origin (`script-src 'self'`). */
const PASSKEY_SCRIPTS = '<script src="/authorize/webauthn.js"></script>\n<script src="/authorize/passkeys.js"></script>';

/**
 * "Sign in with a passkey": hidden until the script finds WebAuthn in the browser (without
 * script the page is the SMS page it always was). The script fills `credential` and submits.
 */
function passkeyLoginForm(form: FormContext, view: PhoneView): string {
  const error = view.passkeyError
    ? `<p class="error" id="passkey-error" role="alert">${escapeHtml(view.passkeyError)}</p>`
    : '<p class="error" id="passkey-error" role="alert" hidden></p>';
  return `<section id="passkey-login-section" class="passkey"${view.passkeyError ? '' : ' hidden'} aria-labelledby="passkey-heading">
<h2 id="passkey-heading">Or use a passkey</h2>
${error}
<form method="post" action="/authorize/passkey/login" id="passkey-login">
${hiddenFields(form)}
<input type="hidden" name="credential" value="">
<button type="submit" class="secondary">Sign in with a passkey</button>
</form>
</section>`;
}

export function phonePage(form: FormContext, view: PhoneView): string {
  const describedBy = view.error ? 'phone-hint phone-error' : 'phone-hint';
  // Conditional UI: the browser's autofill on the number field offers the passkeys it holds.
  const autocomplete = view.passkeys ? 'username webauthn' : 'tel';
  return layout(
    `Sign in to ${form.appName}`,
    `<h1>Sign in to ${escapeHtml(form.appName)}</h1>
<p>We will send a one-time code to your phone by text message.</p>
${errorBox('phone-error', view.error)}<form method="post" action="/authorize/phone">
${hiddenFields(form)}
${countrySelect(view)}
<label for="phone_number">Mobile phone number</label>
<p class="hint" id="phone-hint">As you would dial it in the country chosen above, or with + and the country code, for example +1 415 555 0100 or +44 7400 123456.</p>
<input id="phone_number" name="phone_number" type="tel" autocomplete="${autocomplete}" inputmode="tel" required autofocus
  aria-describedby="${describedBy}"${view.error ? ' aria-invalid="true"' : ''} value="${escapeHtml(view.phoneNumber ?? '')}">
<button type="submit">Send code</button>
</form>
${view.passkeys ? `${passkeyLoginForm(form, view)}\n` : ''}${cancelForm(form)}${view.passkeys ? `\n${PASSKEY_SCRIPTS}` : ''}`,
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
  notice?: string;
  error?: string;
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

function cooldownHint(seconds: number): string {
  if (seconds <= 0) return `<p class="cooldown" id="resend-hint"><span>Did not get it? You can ask for a new code.</span></p>`;
  // The number counts down by CSS (login.css, .countdown); assistive technology reads the static text.
  return `<p class="cooldown wait-${seconds}" id="resend-hint" aria-live="polite">
<span class="cooldown-wait"><span class="visually-hidden">You can ask for a new code in ${seconds} seconds.</span><span aria-hidden="true">You can ask for a new code in <span class="countdown"></span> s.</span></span>
<span class="cooldown-now">Did not get it? You can ask for a new code now.</span>
</p>`;
}

/**
 * During the cooldown a disabled button stands where the resend button will be; both share one
 * grid cell and the hint's CSS animation swaps them when it ends (a hidden button can be neither
 * clicked nor focused). No script: the server still refuses an early resend, as before.
 */
function resendButton(seconds: number, label: string, channel: DeliveryChannel): string {
  const button = `<button type="submit" name="channel" value="${channel}" class="secondary" aria-describedby="resend-hint">${escapeHtml(label)}</button>`;
  if (seconds <= 0) return `<div class="resend">${button}</div>`;
  return `<div class="resend wait-${seconds}">
<button type="button" class="secondary resend-waiting" disabled aria-describedby="resend-hint">${escapeHtml(label)}</button>
${button.replace('class="secondary"', 'class="secondary resend-ready"')}
</div>`;
}

/** "Send again" by the channel used, then each other allowed channel by what it does for the person. */
function resendButtons(seconds: number, used: DeliveryChannel, channels: readonly DeliveryChannel[]): string {
  const others: Record<DeliveryChannel, string> = { voice: 'Call me instead', whatsapp: 'Send via WhatsApp', sms: 'Send a text message instead' };
  const ordered = channels.includes(used) ? [used, ...channels.filter((c) => c !== used)] : [...channels];
  return ordered.map((channel) => resendButton(seconds, channel === used ? 'Send again' : others[channel], channel)).join('\n');
}

/** What the code page says about the last code: its channel and the number's last digits (the rest masked). */
function sentTo(view: CodeView): string {
  const ending = `your number ending in <strong>${escapeHtml(view.phoneNumber.replace(/\D/g, '').slice(-4))}</strong>`;
  if (view.channel === 'voice') return `We are calling ${ending} to read you a ${view.digits}-digit code.`;
  return `We sent a ${view.digits}-digit code by ${view.channel === 'whatsapp' ? 'WhatsApp' : 'text message (SMS)'} to ${ending}.`;
}

export function codePage(form: FormContext, view: CodeView): string {
  const describedBy = view.error ? 'sent-to code-error' : 'sent-to';
  const notice = view.notice ? `<p class="notice" role="status">${escapeHtml(view.notice)}</p>\n` : '';
  return layout(
    `Enter your code - ${form.appName}`,
    `<h1>Enter your code</h1>
<p id="sent-to">${sentTo(view)}</p>
${notice}${errorBox('code-error', view.error)}<form method="post" action="/authorize/code">
${hiddenFields(form)}${view.passkeys ? '\n<input type="hidden" name="passkey_capable" id="passkey-capable" value="">' : ''}
<label for="code">Code</label>
<input id="code" class="code-input" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" required autofocus
  aria-describedby="${describedBy}"${view.error ? ' aria-invalid="true"' : ''}>
<button type="submit">Sign in</button>
</form>
<form method="post" action="/authorize/resend">
${hiddenFields(form)}
${cooldownHint(view.cooldownSeconds)}
${resendButtons(view.cooldownSeconds, view.channel, view.channels)}
</form>
<p><a href="/authorize/phone?transaction=${encodeURIComponent(form.transactionId)}">Use a different number</a></p>
${cancelForm(form)}${view.webOtp ? `\n<script>${WEBOTP_SCRIPT}</script>` : ''}${view.passkeys ? '\n<script src="/authorize/passkeys.js"></script>' : ''}`,
  );
}

export interface PasskeyOfferView {
  error?: string;
}

/**
 * After an SMS login, where the browser can create a passkey: the offer. "Sign in faster next
 * time with a passkey" runs the registration (script); "Not now" and "Don't ask on this device"
 * are plain forms, and each of the three continues to the application.
 */
export function passkeyOfferPage(form: FormContext, view: PasskeyOfferView): string {
  return layout(
    `Sign in faster next time - ${form.appName}`,
    `<h1>You are signed in</h1>
<p id="offer-why">Next time, sign in with a passkey instead of waiting for a text message: your phone's screen lock or your fingerprint is all it takes.</p>
${errorBox('offer-error', view.error) || '<p class="error" id="offer-error" role="alert" hidden></p>\n'}<form method="post" action="/authorize/passkey/register" id="passkey-offer">
${hiddenFields(form)}
<input type="hidden" name="credential" value="">
<button type="submit" aria-describedby="offer-why">Sign in faster next time with a passkey</button>
</form>
<form method="post" action="/authorize/passkey/skip">
${hiddenFields(form)}
<input type="hidden" name="choice" value="later">
<button type="submit" class="secondary">Not now</button>
</form>
<form method="post" action="/authorize/passkey/skip">
${hiddenFields(form)}
<input type="hidden" name="choice" value="never">
<button type="submit" class="link">Don't ask on this device</button>
</form>
${PASSKEY_SCRIPTS}`,
  );
}

/** Back after the sign-in completed: nothing to do here, and the way back to the application. */
export function signInCompletedPage(appName: string, returnTo: string | undefined): string {
  const back = returnTo
    ? `<p><a class="button" href="${escapeHtml(returnTo)}">Return to ${escapeHtml(appName)}</a></p>`
    : `<p>Return to ${escapeHtml(appName)} to continue.</p>`;
  return layout('You are signed in', `<h1>You are signed in</h1>\n<p>This sign-in to ${escapeHtml(appName)} is complete. There is nothing more to do on this page.</p>\n${back}`);
}

export function errorPage(title: string, description: string): string {
  return layout(title, `<h1>${escapeHtml(title)}</h1>\n<p role="alert">${escapeHtml(description)}</p>`);
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
 * never answers cannot hold the browser) says so and goes on to the `continue` link, if any.
 */
export const FRONT_CHANNEL_LOGOUT_SCRIPT =
  "(function(){var items=document.querySelectorAll('[data-logout-url]');var left=items.length;var done=false;" +
  "function finish(){if(done)return;done=true;var status=document.getElementById('status');if(status)status.textContent='You are signed out.';" +
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
export function frontChannelLogoutPage(frames: ReadonlyArray<{ clientName: string; url: string }>, continueTo: string | undefined): string {
  const title = (frame: { clientName: string }) => escapeHtml(`Signing out of ${frame.clientName}`);
  const slots = frames.map((frame) => `<span data-logout-url="${escapeHtml(frame.url)}" data-title="${title(frame)}"></span>`).join('\n');
  const iframes = frames.map((frame) => `<iframe hidden title="${title(frame)}" src="${escapeHtml(frame.url)}"></iframe>`).join('\n');
  const next = continueTo ? `<p><a id="continue" class="button" href="${escapeHtml(continueTo)}">Continue</a></p>\n` : '';
  const count = frames.length === 1 ? '1 application' : `${frames.length} applications`;
  return layout(
    'Signed out',
    `<h1>Signed out</h1>
<p id="status" role="status">Signing you out of ${count}…</p>
${next}<div hidden>
${slots}
</div>
<noscript>
${iframes}
</noscript>
<script>${FRONT_CHANNEL_LOGOUT_SCRIPT}</script>`,
  );
}
