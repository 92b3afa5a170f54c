import { DELIVERY_CHANNELS, PRICE_ANY_COUNTRY, type DeliveryChannel, type SmsPrice, type SmsPrices, type SmsPricesUpdate } from '@smsauth/contracts';
import type { IdentityStore, StoredSmsPrice } from '../../store';
import { isKnownCountry } from '../phone/canonical-number';
import { invalidField } from './validation';

type ChannelPrices = Readonly<Record<DeliveryChannel, number>>;

/**
 * The built-in prices, USD per message (a voice call: per call of under a minute): rounded public
 * list prices of 2024 for a handful of common countries: SMS as Twilio Programmable Messaging
 * lists them, WhatsApp as Meta's authentication-category rates, voice as Twilio Programmable Voice's
 * outbound minute. They change and contracts differ: a starting point the tenant adjusts
 * (PATCH /stats/sms-prices). `*` prices every other country.
 */
export const DEFAULT_SMS_PRICES: Readonly<Record<string, ChannelPrices>> = {
  [PRICE_ANY_COUNTRY]: { sms: 0.1, whatsapp: 0.03, voice: 0.1 },
  US: { sms: 0.0083, whatsapp: 0.0135, voice: 0.014 },
  CA: { sms: 0.0083, whatsapp: 0.0135, voice: 0.014 },
  GB: { sms: 0.0524, whatsapp: 0.0358, voice: 0.0158 },
  DE: { sms: 0.0868, whatsapp: 0.0636, voice: 0.0236 },
  FR: { sms: 0.0822, whatsapp: 0.0357, voice: 0.0239 },
  ES: { sms: 0.0842, whatsapp: 0.0336, voice: 0.0218 },
  IN: { sms: 0.0832, whatsapp: 0.0014, voice: 0.0333 },
  BR: { sms: 0.0525, whatsapp: 0.0315, voice: 0.0175 },
  MX: { sms: 0.0519, whatsapp: 0.024, voice: 0.0271 },
  NG: { sms: 0.2476, whatsapp: 0.0067, voice: 0.1433 },
};

/** The prices in force: the defaults with the tenant's own over them. `price(country, channel)` falls back on `*`. */
export class PriceTable {
  private readonly prices = new Map<string, SmsPrice>();

  constructor(stored: readonly StoredSmsPrice[]) {
    for (const [country, prices] of Object.entries(DEFAULT_SMS_PRICES)) {
      for (const channel of DELIVERY_CHANNELS) this.prices.set(`${country}\0${channel}`, { country, channel, price: prices[channel], source: 'default' });
    }
    for (const p of stored) {
      if ((DELIVERY_CHANNELS as readonly string[]).includes(p.channel)) {
        this.prices.set(`${p.country}\0${p.channel}`, { country: p.country, channel: p.channel as DeliveryChannel, price: p.price, source: 'tenant' });
      }
    }
  }

  /** The price of a message to `country` ('' when unknown) by `channel`. */
  price(country: string, channel: string): number {
    const known = (DELIVERY_CHANNELS as readonly string[]).includes(channel) ? (channel as DeliveryChannel) : 'sms';
    return (this.prices.get(`${country}\0${known}`) ?? this.prices.get(`${PRICE_ANY_COUNTRY}\0${known}`)!).price;
  }

  /** `*` first, then by country and channel (the channels in their usual order). */
  list(): SmsPrice[] {
    const order = (p: SmsPrice) => (p.country === PRICE_ANY_COUNTRY ? '' : p.country);
    return [...this.prices.values()].sort(
      (a, b) => order(a).localeCompare(order(b)) || DELIVERY_CHANNELS.indexOf(a.channel) - DELIVERY_CHANNELS.indexOf(b.channel),
    );
  }
}

export async function priceTable(store: IdentityStore): Promise<PriceTable> {
  return new PriceTable(await store.smsEconomics.prices());
}

/** `GET /stats/sms-prices`. */
export async function smsPrices(store: IdentityStore): Promise<SmsPrices> {
  return { currency: 'USD', prices: (await priceTable(store)).list() };
}

/**
 * `PATCH /stats/sms-prices`: a country must be one with phone numbers (libphonenumber's) or `*`;
 * a price named twice is refused rather than one of them silently winning.
 */
export async function updateSmsPrices(tx: IdentityStore, update: SmsPricesUpdate, now: Date): Promise<SmsPrices> {
  const seen = new Set<string>();
  update.prices.forEach((p, i) => {
    if (p.country !== PRICE_ANY_COUNTRY && !isKnownCountry(p.country)) throw invalidField(`prices.${i}.country`, `${p.country} is not a country with phone numbers`);
    const id = `${p.country}\0${p.channel}`;
    if (seen.has(id)) throw invalidField(`prices.${i}`, `${p.country} ${p.channel} is named twice`);
    seen.add(id);
  });
  await tx.smsEconomics.setPrices(update.prices, now);
  return smsPrices(tx);
}
