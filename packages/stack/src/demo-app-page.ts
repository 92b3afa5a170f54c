import { escapeHtml, htmlPage } from '@smsauth/service-kit';

/**
 * The demo web app's page, script and stylesheet. Everything comes from the demo app's own
 * origin: no inline script or style, no eval; the page talks only to its own server
 * (connect-src 'self'), and leaves for the hosted login by navigation.
 */
export const DEMO_APP_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

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
<p>A single-page app signing in through the hosted login of <a href="${escapeHtml(settings.authUrl)}/docs">${escapeHtml(settings.authUrl)}</a>,
then calling the airport API with the access token it got.</p>
<noscript><p class="error">This demo app needs JavaScript (the sign-in page itself does not).</p></noscript>

<section id="signed-out">
<button type="button" id="sign-in">Sign in with your phone</button>
</section>

<section id="signed-in" hidden>
<h2>ID token claims</h2>
<p>Signature checked with identity's JWKS; issuer, audience, expiry and nonce checked.</p>
<table id="claims"><thead><tr><th scope="col">Claim</th><th scope="col">Value</th></tr></thead><tbody></tbody></table>
<h2>Airport API</h2>
<p><code>GET /airportName?iataCode=SFO</code> with the access token:</p>
<p id="airport-name" aria-live="polite">Asking…</p>
<button type="button" id="sign-out">Sign out</button>
</section>

<p id="error" class="error" role="alert" hidden></p>
</div>
<script src="/demo-app.js"></script>`,
  });
}

export const DEMO_APP_STYLES = `body { font-family: system-ui, sans-serif; max-width: 46rem; margin: 2rem auto; padding: 0 1rem; line-height: 1.5; color: #1b1b1b; }
button { font: inherit; padding: 0.6rem 1.2rem; border-radius: 0.4rem; border: 1px solid #0b57d0; background: #0b57d0; color: #fff; cursor: pointer; }
button:focus-visible { outline: 3px solid #f9ab00; outline-offset: 2px; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 0.3rem 0.5rem; border-bottom: 1px solid #ddd; vertical-align: top; }
td { font-family: ui-monospace, monospace; word-break: break-all; }
#airport-name { font-size: 1.3rem; font-weight: 600; }
.error { color: #b3261e; }
[hidden] { display: none !important; }
`;

/**
 * The page's script. Sign in: a random state and nonce kept in sessionStorage, then
 * `/authorize` with `response_type=token id_token` (the implicit flow: the hosted login
 * supports no code flow). Back on /callback: the tokens are read from the URL fragment (which
 * never reaches a server) and removed from the address bar, state and nonce are compared, the
 * ID token's signature is checked with WebCrypto against identity's keys, and the access token
 * goes, in an Authorization header, to the airport API through the demo app's own server
 * (neither identity nor the airport API answers CORS requests).
 */
export const DEMO_APP_SCRIPT = `'use strict';
(function () {
  var root = document.getElementById('demo-app');
  var config = root.dataset;
  var LOGIN_KEY = 'smsauth-demo-login';
  var TIME_CLAIMS = ['iat', 'exp', 'auth_time', 'nbf', 'updated_at'];

  function show(id, visible) { document.getElementById(id).hidden = !visible; }
  function fail(message) {
    var error = document.getElementById('error');
    error.textContent = message;
    error.hidden = false;
  }

  function base64url(bytes) {
    var binary = '';
    bytes.forEach(function (b) { binary += String.fromCharCode(b); });
    return btoa(binary).replace(/\\+/g, '-').replace(/\\//g, '_').replace(/=+$/, '');
  }
  function fromBase64url(text) {
    var padded = text.replace(/-/g, '+').replace(/_/g, '/') + '==='.slice((text.length + 3) % 4);
    return Uint8Array.from(atob(padded), function (c) { return c.charCodeAt(0); });
  }
  function randomValue() { return base64url(crypto.getRandomValues(new Uint8Array(32))); }

  function signIn() {
    var login = { state: randomValue(), nonce: randomValue() };
    sessionStorage.setItem(LOGIN_KEY, JSON.stringify(login));
    var query = new URLSearchParams({
      client_id: config.clientId,
      redirect_uri: config.callbackUrl,
      response_type: 'token id_token',
      scope: 'openid phone',
      audience: config.audience,
      connection: config.connection,
      state: login.state,
      nonce: login.nonce,
    });
    location.assign(config.authUrl + '/authorize?' + query.toString());
  }

  async function verifyIdToken(token, nonce) {
    var parts = token.split('.');
    if (parts.length !== 3) throw new Error('The ID token is not a JWT.');
    var decoder = new TextDecoder();
    var header = JSON.parse(decoder.decode(fromBase64url(parts[0])));
    var claims = JSON.parse(decoder.decode(fromBase64url(parts[1])));
    if (header.alg !== 'RS256') throw new Error('The ID token is not signed with RS256.');
    var response = await fetch('/jwks.json');
    if (!response.ok) throw new Error('identity\\'s keys could not be read (HTTP ' + response.status + ').');
    var jwk = (await response.json()).keys.find(function (k) { return k.kid === header.kid; });
    if (!jwk) throw new Error('The ID token is signed with a key identity does not publish.');
    var key = await crypto.subtle.importKey('jwk', { kty: 'RSA', n: jwk.n, e: jwk.e, alg: 'RS256', ext: true },
      { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' }, false, ['verify']);
    var signed = new TextEncoder().encode(parts[0] + '.' + parts[1]);
    if (!(await crypto.subtle.verify('RSASSA-PKCS1-v1_5', key, fromBase64url(parts[2]), signed))) {
      throw new Error('The ID token signature does not verify.');
    }
    var audiences = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
    if (claims.iss !== config.authUrl + '/') throw new Error('The ID token comes from another issuer: ' + claims.iss);
    if (audiences.indexOf(config.clientId) < 0) throw new Error('The ID token is for another client.');
    if (claims.nonce !== nonce) throw new Error('The ID token\\'s nonce is not the one this sign-in sent.');
    if (typeof claims.exp !== 'number' || claims.exp * 1000 <= Date.now()) throw new Error('The ID token has expired.');
    return claims;
  }

  function showClaims(claims) {
    var rows = document.querySelector('#claims tbody');
    rows.replaceChildren();
    Object.keys(claims).forEach(function (name) {
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

  async function finishSignIn() {
    var answer = new URLSearchParams(location.hash.slice(1));
    // The tokens leave the address bar and the history at once.
    history.replaceState(null, '', location.pathname);
    var login = JSON.parse(sessionStorage.getItem(LOGIN_KEY) || 'null');
    sessionStorage.removeItem(LOGIN_KEY);
    if (!login || answer.get('state') !== login.state) throw new Error('This answer does not belong to a sign-in started on this page (state mismatch).');
    if (answer.get('error')) throw new Error('Sign-in failed: ' + answer.get('error') + ': ' + (answer.get('error_description') || ''));
    var idToken = answer.get('id_token');
    var accessToken = answer.get('access_token');
    if (!idToken || !accessToken) throw new Error('The answer holds no ID token or no access token.');
    showClaims(await verifyIdToken(idToken, login.nonce));
    show('signed-out', false);
    show('signed-in', true);
    await showAirportName(accessToken);
  }

  function signOut() {
    var query = new URLSearchParams({ client_id: config.clientId, returnTo: config.appUrl + '/' });
    location.assign(config.authUrl + '/v2/logout?' + query.toString());
  }

  document.getElementById('sign-in').addEventListener('click', signIn);
  document.getElementById('sign-out').addEventListener('click', signOut);
  if (location.hash.length > 1) {
    finishSignIn().catch(function (err) { fail(err.message); });
  }
})();
`;
