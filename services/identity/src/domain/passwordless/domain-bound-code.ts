/**
 * Domain-bound codes (`options.webotp`). The message ends with the origin-bound line of the
 * WICG sms-one-time-codes format, `@login.example.com #123456`: the last line, nothing
 * after it, so Safari/iOS autofill and Chrome's WebOTP API offer the code only on that
 * origin. Android's SMS Retriever only needs its 11-character app hash somewhere in the
 * message (Google: "include"), so each hash gets a line just before the origin-bound line.
 */
import type { WebOtpOptions } from '@smsauth/contracts';

/** `@host #code`: the format names a host, https implied (the schema allows no port or path). */
export function originBoundLine(origin: string, code: string): string {
  return `@${new URL(origin).host} #${code}`;
}

export function withDomainBoundCode(message: string, webotp: WebOtpOptions, code: string): string {
  const lines = [...webotp.app_hashes, originBoundLine(webotp.origin, code)];
  return `${message.trimEnd()}\n\n${lines.join('\n')}`;
}

/**
 * Whether a page served to `requestHost` (the Host the browser used) is on the origin the
 * codes are bound to: only there can the WebOTP API hand the page the code.
 */
export function isBoundOrigin(webotp: WebOtpOptions | undefined, requestHost: string | undefined): boolean {
  return webotp !== undefined && requestHost !== undefined && new URL(webotp.origin).host === requestHost.toLowerCase();
}
