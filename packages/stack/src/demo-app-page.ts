import { escapeHtml, htmlPage } from '@smsauth/service-kit';

/**
 * The demo web app's page, script and stylesheet. Everything comes from the demo app's own
 * origin, @auth0/auth0-spa-js's browser build included (no CDN): no inline script or style, no
 * eval. The page talks to its own server (the airport API answers no CORS) and to identity, the
 * only other origin it may fetch from (the token endpoint) and frame (silent authentication).
 */
export function demoAppCsp(authUrl: string): string {
  const identity = new URL(authUrl).origin;
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    `connect-src 'self' ${identity}`,
    `frame-src ${identity}`,
    "img-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** What the page needs to know; none of it is a secret (the client is public). */
export interface DemoAppPageSettings {
  /** identity's public URL: the hosted login is `${authUrl}/authorize`, the issuer `${authUrl}/`. */
  authUrl: string;
  clientId: string;
  /** The airport API's audience, asked for at /authorize. */
  audience: string;
  connection: string;
  /** The demo app's origin (no trailing slash). */
  appUrl: string;
  callbackUrl: string;
}

export function demoAppPage(settings: DemoAppPageSettings): string {
  const data = (name: string, value: string) => `data-${name}="${escapeHtml(value)}"`;
  return htmlPage({
    title: 'smsauth demo app',
    head: '<link rel="stylesheet" href="/demo-app.css">',
    body: `<div id="demo-app" ${data('auth-url', settings.authUrl)} ${data('client-id', settings.clientId)} ${data('audience', settings.audience)}
  ${data('connection', settings.connection)} ${data('app-url', settings.appUrl)} ${data('callback-url', settings.callbackUrl)}>
<h1>smsauth demo app</h1>
<p>A single-page app signing in with <code>@auth0/auth0-spa-js</code> (authorization code + PKCE) through the hosted login of
<a href="${escapeHtml(settings.authUrl)}/docs">${escapeHtml(settings.authUrl)}</a>, then calling the airport API with the access token it got.
Opened while you are signed in to another app of the tenant, it signs you in without an SMS.</p>
<noscript><p class="error">This demo app needs JavaScript (the sign-in page itself does not).</p></noscript>

<p id="checking" aria-live="polite">Checking for a login session…</p>

<section id="signed-out" hidden>
<button type="button" id="sign-in">Sign in with your phone</button>
</section>

<section id="signed-in" hidden>
<h2>ID token claims</h2>
<p>Received from identity's token endpoint; issuer, audience, expiry and nonce checked by auth0-spa-js.</p>
<table id="claims"><thead><tr><th scope="col">Claim</th><th scope="col">Value</th></tr></thead><tbody></tbody></table>
<h2>Airport API</h2>
<p><code>GET /airportName?iataCode=SFO</code> with the access token:</p>
<p id="airport-name" aria-live="polite">Asking…</p>
<button type="button" id="sign-out">Sign out</button>
</section>

<p id="notice" class="notice" role="status" hidden></p>
<p id="error" class="error" role="alert" hidden></p>
</div>
<script src="/auth0-spa-js.production.js"></script>
<script src="/demo-app.js"></script>`,
  });
}

export const DEMO_APP_STYLES = `body { font-family: system-ui, sans-serif; max-width: 46rem; margin: 2rem auto; padding: 0 1rem; line-height: 1.5; color: #1b1b1b; }
button { font: inherit; padding: 0.6rem 1.2rem; border-radius: 0.4rem; border: 1px solid #0b57d0; background: #0b57d0; color: #fff; cursor: pointer; }
button:focus-visible { outline: 3px solid #f9ab00; outline-offset: 2px; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 0.3rem 0.5rem; border-bottom: 1px solid #ddd; vertical-align: top; }
td { font-family: ui-monospace, monospace; overflow-wrap: anywhere; }
/* On a phone a two-column table leaves a few characters per line for a URL or an id: each claim
   becomes its name above its value, full width. */
@media (max-width: 36rem) {
  #claims thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); }
  #claims tr, #claims th, #claims td { display: block; }
  #claims th { border-bottom: 0; padding-bottom: 0; }
  #claims td { padding-top: 0; }
}
#airport-name { font-size: 1.3rem; font-weight: 600; }
.error { color: #b3261e; }
.notice { color: #1b1b1b; background: #eef3fc; border-left: 4px solid #0b57d0; padding: 0.5rem 0.75rem; }
[hidden] { display: none !important; }
`;

/**
 * The page's script, on @auth0/auth0-spa-js (window.auth0, loaded before it). On load it asks
 * identity for a token silently (a hidden iframe, /authorize?prompt=none&response_mode=web_message):
 * with a login session from any app of the tenant it is signed in at once, without an SMS.
 * "Sign in" is loginWithRedirect (code + PKCE); back on /callback handleRedirectCallback exchanges
 * the code and the code leaves the address bar. The access token goes, in an Authorization
 * header, to the airport API through the demo app's own server (the API answers no CORS).
 */
export const DEMO_APP_SCRIPT = `'use strict';
(function () {
  var root = document.getElementById('demo-app');
  var config = root.dataset;
  var TIME_CLAIMS = ['iat', 'exp', 'auth_time', 'nbf', 'updated_at'];
  var client = new auth0.Auth0Client({
    domain: config.authUrl,
    clientId: config.clientId,
    authorizationParams: { redirect_uri: config.callbackUrl, audience: config.audience, scope: 'openid profile phone', connection: config.connection },
  });

  function show(id, visible) { document.getElementById(id).hidden = !visible; }
  function notice(message) {
    var box = document.getElementById('notice');
    box.textContent = message;
    box.hidden = false;
  }
  function fail(message) {
    var error = document.getElementById('error');
    error.textContent = message;
    error.hidden = false;
  }

  function showClaims(claims) {
    var rows = document.querySelector('#claims tbody');
    rows.replaceChildren();
    Object.keys(claims).forEach(function (name) {
      if (name === '__raw') return;
      var value = claims[name];
      var text = typeof value === 'string' ? value : JSON.stringify(value);
      if (TIME_CLAIMS.indexOf(name) >= 0 && typeof value === 'number') text += ' (' + new Date(value * 1000).toISOString() + ')';
      var row = document.createElement('tr');
      var th = document.createElement('th');
      th.scope = 'row';
      th.textContent = name;
      var td = document.createElement('td');
      td.dataset.claim = name;
      td.textContent = text;
      row.append(th, td);
      rows.append(row);
    });
  }

  async function showAirportName(accessToken) {
    var target = document.getElementById('airport-name');
    var response = await fetch('/api/airportName?iataCode=SFO', { headers: { authorization: 'Bearer ' + accessToken } });
    var text = await response.text();
    if (!response.ok) {
      target.textContent = '';
      throw new Error('The airport API answered HTTP ' + response.status + ': ' + text);
    }
    target.textContent = text;
  }

  async function showSignedIn(accessToken) {
    showClaims(await client.getIdTokenClaims());
    show('checking', false);
    show('signed-out', false);
    show('signed-in', true);
    await showAirportName(accessToken);
  }

  function showSignedOut() {
    show('checking', false);
    show('signed-in', false);
    show('signed-out', true);
  }

  async function start() {
    var query = new URLSearchParams(location.search);
    if (location.pathname === new URL(config.callbackUrl).pathname && (query.has('code') || query.has('error'))) {
      try {
        await client.handleRedirectCallback();
      } catch (err) {
        // The user pressed Cancel on the sign-in page: a choice, not a failure.
        if (err.error === 'access_denied') {
          notice('Sign-in cancelled. You are not signed in; sign in again whenever you like.');
          return showSignedOut();
        }
        throw err;
      } finally {
        // The code (or the error) leaves the address bar and the history at once.
        history.replaceState(null, '', location.pathname);
      }
      return showSignedIn(await client.getTokenSilently());
    }
    var token;
    try {
      token = await client.getTokenSilently();
    } catch (err) {
      // No login session at identity: the user signs in with the button.
      if (err.error === 'login_required' || err.error === 'consent_required') return showSignedOut();
      throw err;
    }
    return showSignedIn(token);
  }

  document.getElementById('sign-in').addEventListener('click', function () {
    client.loginWithRedirect().catch(function (err) { fail(err.message); });
  });
  document.getElementById('sign-out').addEventListener('click', function () {
    client.logout({ logoutParams: { returnTo: config.appUrl + '/' } });
  });
  start().catch(function (err) {
    show('checking', false);
    fail('Sign-in failed: ' + err.message);
  });
})();
`;
