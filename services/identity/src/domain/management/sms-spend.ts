import type { SmsStat } from '@smsauth/contracts';
import type { CountryChannelCount } from '../../store';
import type { PriceTable } from './sms-prices';

/** The records spend reads: codes sent (`cs`) and logins (`s`, of which the passkey logins). */
export const SPEND_TYPES = ['cs', 's'];

/** USD to the millionth: sums of prices with 6 decimals, without binary fractions' tails. */
const usd = (value: number) => Math.round(value * 1e6) / 1e6;

/**
 * Each figure's spend (its codes sent, test numbers left out, each at the price of its country
 * and channel) and what passkeys saved (its passkey logins, each at the SMS price of the number's
 * country: the code that would otherwise have been sent). `counts` are `figures`' records by
 * country and channel; `figures` are changed and answered.
 */
export function withSpend(figures: SmsStat[], counts: readonly CountryChannelCount[], prices: PriceTable): SmsStat[] {
  const byId = new Map(figures.map((f) => [`${f.period}\0${f.key}`, f]));
  for (const row of counts) {
    const figure = byId.get(`${row.period.toISOString()}\0${row.key}`);
    if (!figure) continue;
    if (row.type === 'cs' && row.reason !== 'test_number') figure.spend_usd = usd(figure.spend_usd + row.n * prices.price(row.country, row.channel));
    else if (row.type === 's' && row.reason === 'passkey') figure.saved_usd = usd(figure.saved_usd + row.n * prices.price(row.country, 'sms'));
  }
  return figures;
}
