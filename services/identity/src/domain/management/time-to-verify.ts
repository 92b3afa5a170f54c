import type { SmsStatsQuery, TimeToVerify } from '@smsauth/contracts';
import type { Clock } from '@smsauth/service-kit';
import type { IdentityStore } from '../../store';
import { smsRange } from './stats';

/**
 * `GET /stats/time-to-verify`: over the period `/stats/sms` would count for the same `from` and
 * `to`, the seconds from a code sent to the login it made (p50, p90, p99). From the tenant log,
 * so as far back as its retention.
 */
export async function timeToVerify(store: IdentityStore, clock: Clock, query: Pick<SmsStatsQuery, 'from' | 'to'>): Promise<TimeToVerify> {
  const range = smsRange(clock, { ...query, interval: 'day' });
  const figures = await store.smsEconomics.timeToVerify(range);
  return { from: range.from.toISOString(), to: range.to.toISOString(), ...figures };
}
