import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * @simplewebauthn/browser's own browser build (a UMD file defining `SimpleWebAuthnBrowser`),
 * served as /authorize/webauthn.js from identity's origin: the pages load no third-party script.
 */
export function webAuthnBrowserBundle(): string {
  const entry = require.resolve('@simplewebauthn/browser');
  // entry: <package>/script/index.js; the bundle: <package>/dist/bundle/index.umd.min.js
  return readFileSync(join(dirname(entry), '..', 'dist', 'bundle', 'index.umd.min.js'), 'utf8');
}

/**
 * /authorize/passkeys.js: the passkey parts of the login pages, progressive enhancement only
 * (each page works without it, by SMS).
 *
 * - Code page: tells the server (hidden field `passkey_capable`) whether this browser has a
 *   user-verifying platform authenticator, so the offer is shown only where it can succeed.
 * - Phone page: shows "Sign in with a passkey" where WebAuthn exists, and starts the browser's
 *   passkey autofill on the number field (conditional UI); either ceremony's result is posted
 *   in the form's `credential` field.
 * - Offer page: "Sign in faster next time with a passkey" runs the registration and posts it.
 * Options come from identity (POST, with the transaction and CSRF token of the page's form).
 */
export const PASSKEY_SCRIPT = `(function () {
  'use strict';
  var lib = window.SimpleWebAuthnBrowser;

  function fetchOptions(path, form) {
    var body = new URLSearchParams();
    body.set('transaction', form.elements.transaction.value);
    body.set('csrf_token', form.elements.csrf_token.value);
    return fetch(path, { method: 'POST', body: body, credentials: 'same-origin' }).then(function (res) {
      if (!res.ok) throw new Error('options: ' + res.status);
      return res.json();
    });
  }

  function post(form, credential) {
    form.elements.credential.value = JSON.stringify(credential);
    form.submit();
  }

  function say(id, message) {
    var box = document.getElementById(id);
    if (!box) return;
    box.textContent = message;
    box.hidden = false;
  }

  function cancelled(err) {
    return err && (err.name === 'AbortError' || err.code === 'ERROR_CEREMONY_ABORTED');
  }

  var capable = document.getElementById('passkey-capable');
  if (capable && window.PublicKeyCredential && PublicKeyCredential.isUserVerifyingPlatformAuthenticatorAvailable) {
    PublicKeyCredential.isUserVerifyingPlatformAuthenticatorAvailable().then(function (available) {
      capable.value = available ? '1' : '';
    }).catch(function () {});
  }

  var login = document.getElementById('passkey-login');
  if (login && lib && lib.browserSupportsWebAuthn()) {
    document.getElementById('passkey-login-section').hidden = false;
    var signIn = function (autofill) {
      return fetchOptions('/authorize/passkey/options', login).then(function (options) {
        return lib.startAuthentication({ optionsJSON: options, useBrowserAutofill: autofill });
      }).then(function (credential) { post(login, credential); });
    };
    login.addEventListener('submit', function (event) {
      event.preventDefault();
      signIn(false).catch(function (err) {
        if (!cancelled(err)) say('passkey-error', 'No passkey was used. Try again, or get a code by text message.');
      });
    });
    // Not again right after a refused passkey: the person chooses (button or SMS) this time.
    var refused = !document.getElementById('passkey-error').hidden;
    lib.browserSupportsWebAuthnAutofill().then(function (supported) {
      if (supported && !refused) signIn(true).catch(function () {});
    });
  }

  var offer = document.getElementById('passkey-offer');
  if (offer && lib && lib.browserSupportsWebAuthn()) {
    offer.addEventListener('submit', function (event) {
      event.preventDefault();
      fetchOptions('/authorize/passkey/registration-options', offer).then(function (options) {
        return lib.startRegistration({ optionsJSON: options });
      }).then(function (credential) { post(offer, credential); }).catch(function () {
        say('offer-error', 'The passkey was not created. Try again, or continue without one.');
      });
    });
  }
})();
`;
