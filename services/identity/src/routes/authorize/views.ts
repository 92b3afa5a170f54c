/**
 * The hosted login pages: plain server-rendered HTML. Every interpolated value goes through
 * `escapeHtml`. The one script is WEBOTP_SCRIPT, on the code page of a connection whose codes
 * are bound to the page's origin; the page works the same without it.
 */

import { createHash } from 'node:crypto';
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

export function phonePage(form: FormContext, view: PhoneView): string {
  const describedBy = view.error ? 'phone-hint phone-error' : 'phone-hint';
  return layout(
    `Sign in to ${form.appName}`,
    `<h1>Sign in to ${escapeHtml(form.appName)}</h1>
<p>We will send a one-time code to your phone by text message.</p>
${errorBox('phone-error', view.error)}<form method="post" action="/authorize/phone">
${hiddenFields(form)}
${countrySelect(view)}
<label for="phone_number">Mobile phone number</label>
<p class="hint" id="phone-hint">As you would dial it in the country chosen above, or with + and the country code, for example +1 415 555 0100 or +44 7400 123456.</p>
<input id="phone_number" name="phone_number" type="tel" autocomplete="tel" inputmode="tel" required autofocus
  aria-describedby="${describedBy}"${view.error ? ' aria-invalid="true"' : ''} value="${escapeHtml(view.phoneNumber ?? '')}">
<button type="submit">Send code</button>
</form>
${cancelForm(form)}`,
  );
}

export interface CodeView {
  phoneNumber: string;
  digits: number;
  /** Seconds until "send a new code" is allowed again. */
  cooldownSeconds: number;
  notice?: string;
  error?: string;
  /** Served from the connection's webotp origin: offer the SMS's code through the WebOTP API. */
  webOtp?: boolean;
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
function resendButton(seconds: number): string {
  const button = '<button type="submit" class="secondary" aria-describedby="resend-hint">Send a new code</button>';
  if (seconds <= 0) return button;
  return `<div class="resend wait-${seconds}">
<button type="button" class="secondary resend-waiting" disabled aria-describedby="resend-hint">Send a new code</button>
${button.replace('class="secondary"', 'class="secondary resend-ready"')}
</div>`;
}

export function codePage(form: FormContext, view: CodeView): string {
  const describedBy = view.error ? 'sent-to code-error' : 'sent-to';
  const notice = view.notice ? `<p class="notice" role="status">${escapeHtml(view.notice)}</p>\n` : '';
  return layout(
    `Enter your code - ${form.appName}`,
    `<h1>Enter your code</h1>
<p id="sent-to">We sent a ${view.digits}-digit code to <strong>${escapeHtml(view.phoneNumber)}</strong>.</p>
${notice}${errorBox('code-error', view.error)}<form method="post" action="/authorize/code">
${hiddenFields(form)}
<label for="code">Code</label>
<input id="code" class="code-input" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" required autofocus
  aria-describedby="${describedBy}"${view.error ? ' aria-invalid="true"' : ''}>
<button type="submit">Sign in</button>
</form>
<form method="post" action="/authorize/resend">
${hiddenFields(form)}
${cooldownHint(view.cooldownSeconds)}
${resendButton(view.cooldownSeconds)}
</form>
<p><a href="/authorize/phone?transaction=${encodeURIComponent(form.transactionId)}">Use a different number</a></p>
${cancelForm(form)}${view.webOtp ? `\n<script>${WEBOTP_SCRIPT}</script>` : ''}`,
  );
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
