import Bowser from 'bowser';
import { parsePhoneNumberFromString } from 'libphonenumber-js/min';
import type { TenantLog } from './timeline';

/**
 * A session's or a passkey's device, read from its user agent as an operator says it:
 * "Chrome 131 on macOS 10.15.7 (desktop)"; undefined when there is no user agent, the raw
 * text when the parser knows nothing of it.
 */
export function deviceOf(userAgent: string | undefined): string | undefined {
  if (!userAgent) return undefined;
  const { browser, os, platform } = Bowser.parse(userAgent);
  const name = [browser.name, browser.version?.split('.')[0]].filter(Boolean).join(' ');
  const system = [os.name, os.version].filter(Boolean).join(' ');
  if (!name && !system) return userAgent;
  return `${name || 'Unknown browser'}${system ? ` on ${system}` : ''}${platform.type ? ` (${platform.type})` : ''}`;
}

/** The country a number belongs to (`US`, "United States"), by its calling code and prefix; undefined for a number it cannot read. */
export function countryOfNumber(phoneNumber: string | undefined, locale?: string): { code: string; name: string } | undefined {
  const code = phoneNumber ? parsePhoneNumberFromString(phoneNumber)?.country : undefined;
  if (!code) return undefined;
  let name: string | undefined;
  try {
    name = new Intl.DisplayNames(locale ? [locale] : undefined, { type: 'region' }).of(code);
  } catch {
    name = undefined;
  }
  return { code, name: name ?? code };
}

/**
 * A user's whole timeline: the user's own records and those of their number, which include the
 * codes sent before the number became a user (sign-up), each once, oldest first.
 */
export function completeTimeline(userLogs: readonly TenantLog[], numberLogs: readonly TenantLog[]): TenantLog[] {
  const byId = new Map<string, TenantLog>();
  for (const log of [...userLogs, ...numberLogs]) byId.set(log.log_id, log);
  return [...byId.values()].sort((a, b) => a.date.localeCompare(b.date) || a.log_id.localeCompare(b.log_id));
}
