import { parseCookies } from '@smsauth/service-kit';
import type { Request, Response } from 'express';
import { bindingCookieName, TRANSACTION_TTL_SECONDS } from '../../domain/authorize/transaction';


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
export function contentSecurityPolicy(redirectUri?: string, scriptSource?: string): string {
  const formAction = ["'self'", cspOrigin(redirectUri)].filter(Boolean).join(' ');
  const scripts = scriptSource ? `; script-src ${scriptSource}` : '';
  return `default-src 'none'; style-src 'self'; img-src 'self'; form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'${scripts}`;
}

function securityHeaders(res: Response, redirectUri?: string, scriptSource?: string): void {
  res.set({
    'Content-Security-Policy': contentSecurityPolicy(redirectUri, scriptSource),
    'X-Frame-Options': 'DENY',
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    // Pages carry CSRF tokens and phone numbers; redirects carry tokens.
    'Cache-Control': 'no-store',
    Pragma: 'no-cache',
  });
}

/** `scriptSource`: the CSP source (a `'sha256-…'` hash) of the page's inline script, if it has one. */
export function sendPage(res: Response, status: number, html: string, redirectUri?: string, scriptSource?: string): void {
  securityHeaders(res, redirectUri, scriptSource);
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
