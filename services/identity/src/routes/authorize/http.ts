import { parseCookies } from '@smsauth/service-kit';
import type { Request, Response } from 'express';
import { bindingCookieName, TRANSACTION_TTL_SECONDS } from '../../domain/authorize/transaction';
import { responseLocation, webMessageOrigin, type AuthorizationResponse } from '../../domain/authorize/response';
import { SESSION_COOKIE_NAME } from '../../domain/authorize/session';
import { verifierCookieName } from '../../domain/authorize/cross-origin';
import { FORM_POST_SCRIPT_SOURCE, formPostPage, webMessagePage } from './views';
import { NO_BRAND_SOURCES, type BrandSources } from './brand';


export function requestCookies(req: Request): Record<string, string> {
  return parseCookies(req.headers.cookie);
}

/** HttpOnly (no script reads it), SameSite=Lax (not sent on cross-site posts), Secure behind https. */
function cookieAttributes(secure: boolean, maxAgeSeconds: number): string {
  return `Path=/authorize; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
}

export function setBindingCookie(res: Response, transactionId: string, secret: string, secure: boolean): void {
  res.append('Set-Cookie', `${bindingCookieName(transactionId)}=${secret}; ${cookieAttributes(secure, TRANSACTION_TTL_SECONDS)}`);
}

export function clearBindingCookie(res: Response, transactionId: string, secure: boolean): void {
  res.append('Set-Cookie', `${bindingCookieName(transactionId)}=; ${cookieAttributes(secure, 0)}`);
}

/**
 * The login session cookie, for every path (/authorize, the logout endpoints). Behind https
 * it is `SameSite=None; Secure`, so the hidden iframe of silent authentication (a third-party
 * context on the application's site) sends it; over plain http (local development, where
 * browsers refuse SameSite=None without Secure) it is Lax, which same-site iframes still get.
 */
function sessionCookieAttributes(secure: boolean, maxAgeSeconds: number): string {
  return `Path=/; Max-Age=${maxAgeSeconds}; HttpOnly; ${secure ? 'SameSite=None; Secure' : 'SameSite=Lax'}`;
}

/**
 * The verifier cookie of a login ticket (POST /co/authenticate sets it from the application's
 * page, a cross-origin request with credentials): `SameSite=None; Secure` behind https so the
 * redirect or iframe to /authorize sends it; Lax over plain http.
 */
export function setVerifierCookie(res: Response, coId: string, verifier: string, secure: boolean, maxAgeSeconds: number): void {
  res.append('Set-Cookie', `${verifierCookieName(coId)}=${verifier}; ${sessionCookieAttributes(secure, maxAgeSeconds)}`);
}

export function clearVerifierCookie(res: Response, coId: string, secure: boolean): void {
  res.append('Set-Cookie', `${verifierCookieName(coId)}=; ${sessionCookieAttributes(secure, 0)}`);
}

export function sessionCookie(req: Request): string | undefined {
  return requestCookies(req)[SESSION_COOKIE_NAME];
}

export function setSessionCookie(res: Response, secret: string, secure: boolean, maxAgeSeconds: number): void {
  res.append('Set-Cookie', `${SESSION_COOKIE_NAME}=${secret}; ${sessionCookieAttributes(secure, maxAgeSeconds)}`);
}

export function clearSessionCookie(res: Response, secure: boolean): void {
  res.append('Set-Cookie', `${SESSION_COOKIE_NAME}=; ${sessionCookieAttributes(secure, 0)}`);
}

/** The origin of a URL as a CSP source expression, or undefined when it has none. */
function cspOrigin(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    const { origin } = new URL(url);
    return origin === 'null' ? undefined : origin;
  } catch {
    return undefined;
  }
}

/**
 * No script (`default-src 'none'` without `script-src`) unless a page names the hash of its
 * one inline script, styles from our own file, no framing. `form-action` must also allow
 * the redirect_uri's origin: browsers apply it to the redirect that follows a form post.
 */
export function contentSecurityPolicy(redirectUri?: string, scriptSource?: string, brand: BrandSources = NO_BRAND_SOURCES): string {
  const formAction = ["'self'", cspOrigin(redirectUri)].filter(Boolean).join(' ');
  const scripts = scriptSource ? `; script-src ${scriptSource}` : '';
  const fonts = brand.font.length > 0 ? `; font-src ${brand.font.join(' ')}` : '';
  return `default-src 'none'; style-src ${["'self'", ...brand.style].join(' ')}; img-src ${["'self'", ...brand.img].join(' ')}${fonts}; form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'${scripts}`;
}

function securityHeaders(res: Response, redirectUri?: string, scriptSource?: string, brand?: BrandSources): void {
  res.set({
    'Content-Security-Policy': contentSecurityPolicy(redirectUri, scriptSource, brand),
    'X-Frame-Options': 'DENY',
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    // Pages carry CSRF tokens and phone numbers; redirects carry tokens.
    'Cache-Control': 'no-store',
    Pragma: 'no-cache',
  });
}

/**
 * `scriptSource`: the CSP source (a `'sha256-…'` hash) of the page's inline script, if it has
 * one; `brand`: the https URLs of the tenant's logo, favicon and font the page may load.
 */
export function sendPage(res: Response, status: number, html: string, redirectUri?: string, scriptSource?: string, brand?: BrandSources): void {
  securityHeaders(res, redirectUri, scriptSource, brand);
  res.status(status).type('html').send(html);
}

/**
 * 302 to a redirect_uri whose fragment may hold tokens. The kit's access log records only
 * the response status, so the Location never reaches a log line.
 */
export function redirectWithFragment(res: Response, location: string): void {
  securityHeaders(res);
  res.status(302).setHeader('Location', location);
  res.end();
}

/** 303 to one of our own pages after a successful form post (reloading it resends nothing). */
export function seeOther(res: Response, path: string): void {
  securityHeaders(res);
  res.status(303).setHeader('Location', path);
  res.end();
}

/**
 * Delivers an authorization response as its mode says: query and fragment are a 302 to the
 * redirect_uri; form_post is a page whose one script (allowed by its hash) submits the
 * parameters to the redirect_uri; web_message is a page whose one script posts
 * `{type: "authorization_response", response}` to the opener or parent window at the
 * redirect_uri's origin only (a registered web origin), and which only that origin may frame.
 * The parameters carry `iss`.
 */
export function sendAuthorizationResponse(res: Response, issued: AuthorizationResponse, issuer: string): void {
  // RFC 9207: every response, success or error, names its issuer, so a client talking to several
  // servers can tell which one answered (the mix-up attack); discovery advertises it.
  const response = { ...issued, params: { ...issued.params, iss: issuer } };
  if (response.mode === 'query' || response.mode === 'fragment') return redirectWithFragment(res, responseLocation(response));
  const common = {
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'Cache-Control': 'no-store',
    Pragma: 'no-cache',
  };
  if (response.mode === 'form_post') {
    const formAction = cspOrigin(response.redirectUri) ?? "'none'";
    res.set({
      ...common,
      'Content-Security-Policy': `default-src 'none'; script-src ${FORM_POST_SCRIPT_SOURCE}; form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'`,
      'X-Frame-Options': 'DENY',
    });
    res.status(200).type('html').send(formPostPage(response.redirectUri, response.params));
    return;
  }
  const origin = webMessageOrigin(response.redirectUri)!;
  const { html, scriptSource } = webMessagePage(origin, response.params);
  res.set({
    ...common,
    'Content-Security-Policy': `default-src 'none'; script-src ${scriptSource}; frame-ancestors ${origin}; base-uri 'none'`,
  });
  res.status(200).type('html').send(html);
}
