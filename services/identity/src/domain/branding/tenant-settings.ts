import { LOGIN_LANGUAGES, type TenantSettingsUpdate } from '@smsauth/contracts';
import type { IdentityStore, StoredTenantSettings } from '../../store';
import type { SessionLifetimes } from '../authorize/session';
import { invalidField } from '../management/validation';

/** Auth0's `GET /api/v2/tenants/settings` answer. */
export type TenantSettingsRecord = Record<string, unknown> & {
  enabled_locales: string[];
  default_audience: '';
  session_lifetime: number;
  idle_session_lifetime: number;
};

/**
 * The stored Auth0 settings, then what is in force: the languages (every bundled one while none
 * were set, English first) and the session lifetimes of the service's configuration, in hours.
 */
export function tenantSettingsRecordOf(stored: StoredTenantSettings | undefined, sessions: SessionLifetimes): TenantSettingsRecord {
  return {
    ...(stored?.auth0_settings ?? {}),
    default_audience: '',
    enabled_locales: stored?.enabled_locales ?? [...LOGIN_LANGUAGES],
    session_lifetime: sessions.absoluteSeconds / 3600,
    idle_session_lifetime: sessions.idleSeconds / 3600,
  };
}

export async function getTenantSettings(store: IdentityStore, sessions: SessionLifetimes): Promise<TenantSettingsRecord> {
  return tenantSettingsRecordOf(await store.tenantSettings.find(), sessions);
}

/**
 * A session lifetime given in hours or in minutes must be the configured one (to the minute):
 * the files auth0-deploy-cli exported import unchanged, and nobody is told a lifetime that is not in force.
 */
function checkSessionLifetime(update: TenantSettingsUpdate, field: 'session_lifetime' | 'idle_session_lifetime', seconds: number, variable: string): void {
  const hours = update[field];
  const minutes = update[`${field}_in_minutes`];
  if (hours !== undefined && minutes !== undefined) throw invalidField(`${field}_in_minutes`, `not with ${field}: give one of them`);
  const givenMinutes = minutes ?? (hours === undefined ? undefined : Math.round(hours * 60));
  if (givenMinutes === undefined || givenMinutes === Math.round(seconds / 60)) return;
  const name = minutes === undefined ? field : `${field}_in_minutes`;
  throw invalidField(name, `must be ${minutes === undefined ? `${seconds / 3600} (hours)` : `${Math.round(seconds / 60)} (minutes)`}: the service's ${variable} sets it`);
}

/**
 * Writes the fields given: `enabled_locales` (the pages' languages), the inert Auth0 settings
 * merged over the stored ones (flags merged flag by flag; ephemeral lifetimes given in minutes
 * kept in hours, as GET shows them). Session lifetimes are checked, never stored.
 */
export async function updateTenantSettings(tx: IdentityStore, update: TenantSettingsUpdate, sessions: SessionLifetimes, now: Date): Promise<TenantSettingsRecord> {
  checkSessionLifetime(update, 'session_lifetime', sessions.absoluteSeconds, 'SESSION_ABSOLUTE_LIFETIME_SECONDS');
  checkSessionLifetime(update, 'idle_session_lifetime', sessions.idleSeconds, 'SESSION_IDLE_LIFETIME_SECONDS');
  const {
    enabled_locales: enabledLocales,
    default_audience: _defaultAudience,
    session_lifetime: _sessionLifetime,
    session_lifetime_in_minutes: _sessionMinutes,
    idle_session_lifetime: _idleLifetime,
    idle_session_lifetime_in_minutes: _idleMinutes,
    ephemeral_session_lifetime_in_minutes: ephemeralMinutes,
    idle_ephemeral_session_lifetime_in_minutes: idleEphemeralMinutes,
    ...inert
  } = update;
  if (ephemeralMinutes !== undefined) {
    if (inert.ephemeral_session_lifetime !== undefined) throw invalidField('ephemeral_session_lifetime_in_minutes', 'not with ephemeral_session_lifetime: give one of them');
    inert.ephemeral_session_lifetime = ephemeralMinutes / 60;
  }
  if (idleEphemeralMinutes !== undefined) {
    if (inert.idle_ephemeral_session_lifetime !== undefined) {
      throw invalidField('idle_ephemeral_session_lifetime_in_minutes', 'not with idle_ephemeral_session_lifetime: give one of them');
    }
    inert.idle_ephemeral_session_lifetime = idleEphemeralMinutes / 60;
  }
  const stored = await tx.tenantSettings.find();
  const storedSettings = stored?.auth0_settings ?? {};
  const merged: Record<string, unknown> = { ...storedSettings, ...inert };
  if (inert.flags) merged.flags = { ...((storedSettings.flags as Record<string, boolean> | undefined) ?? {}), ...inert.flags };
  const row = await tx.tenantSettings.update({ auth0_settings: merged, ...(enabledLocales ? { enabled_locales: enabledLocales } : {}) }, now);
  return tenantSettingsRecordOf(row, sessions);
}
