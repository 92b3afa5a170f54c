import { getCountryCallingCode, isSupportedCountry, parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js';
import { DELIVERY_CHANNELS, type DeliveryChannel } from '@smsauth/contracts';
import { z } from 'zod';
import { ALPHANUMERIC_SENDER_ID } from './sender-id';

/** A provider instance name: a kind (`twilio`) or a name from SMS_PROVIDER_INSTANCES. */
export const ProviderInstanceNameSchema = z
  .string()
  .regex(/^[a-z][a-z0-9-]{0,39}$/, { message: 'must be 1-40 lowercase letters, digits or "-", starting with a letter' });

/** E.164 or an alphanumeric sender id (what both Twilio and most regional providers accept). */
export const RouteSenderSchema = z
  .string()
  .regex(new RegExp(`^(\\+[1-9][0-9]{1,14}|${ALPHANUMERIC_SENDER_ID.source.slice(1, -1)})$`), {
    message: 'must be an E.164 number like +14155550123 or an alphanumeric sender id of 1-11 characters',
  });

const RouteSchema = z.union([
  z.array(ProviderInstanceNameSchema).min(1, { message: 'needs at least one provider' }),
  z.strictObject({
    providers: z.array(ProviderInstanceNameSchema).min(1, { message: 'needs at least one provider' }),
    sender: RouteSenderSchema.optional(),
  }),
]);

/** A route key without its channel: `+<digits>` (E.164 prefix), a two-letter country code, or `default`. */
function isPlainRouteKey(key: string): boolean {
  return key === 'default' || /^\+[0-9]{1,6}$/.test(key) || (/^[A-Z]{2}$/.test(key) && isSupportedCountry(key));
}

const CHANNEL_PREFIX = new RegExp(`^(${DELIVERY_CHANNELS.join('|')}):`);

/**
 * A route key's channel and the key within it: `whatsapp:BR` is WhatsApp's route for Brazil,
 * `voice:default` voice's default; a key without a channel (`+1`, `DE`, `default`) is an SMS
 * route, as before channels existed.
 */
export function splitRouteKey(key: string): { channel: DeliveryChannel; key: string } {
  const match = CHANNEL_PREFIX.exec(key);
  return match ? { channel: match[1] as DeliveryChannel, key: key.slice(match[0].length) } : { channel: 'sms', key };
}

const RouteKeySchema = z.string().refine((key) => isPlainRouteKey(splitRouteKey(key).key), {
  message:
    'route keys are "+<1-6 digits>" (E.164 prefix), an ISO 3166 country code like "DE", or "default", optionally after a channel: "whatsapp:BR", "voice:default" ("sms:" is the same as none)',
});

/** The `SMS_ROUTES` value: a JSON object of route key (optionally `<channel>:` first) -> providers (or {providers, sender}). */
export const RouteTableSchema = z.record(RouteKeySchema, RouteSchema);
export type RouteTableInput = z.output<typeof RouteTableSchema>;

export interface Route {
  /** The key that matched (`+1`, `DE`, `default`), for logs. */
  key: string;
  /** Provider instance names, tried in this order. */
  providers: readonly string[];
  /** Replaces the request's sender for every provider of the route. */
  sender?: string;
}

interface Candidate extends Route {
  /** Digits of the prefix (a country counts as its calling code plus half a digit). */
  specificity: number;
  matches(recipient: string): boolean;
}

/**
 * Picks the route of a recipient: the most specific matching key wins, where a prefix counts
 * its digits and a country its calling code's digits plus a half (so `+1415` > `US` > `+1`);
 * `default` when none matches.
 */
export class RouteTable {
  private readonly candidates: Candidate[];

  constructor(
    routes: ReadonlyArray<Route>,
    private readonly fallback: Route,
  ) {
    this.candidates = routes.map((route) => toCandidate(route)).sort((a, b) => b.specificity - a.specificity);
  }

  /**
   * SMS_ROUTES parsed: the SMS table (keys without a channel; `defaultProviders`, SMS_PROVIDER,
   * is its default when it names none). Use ChannelRoutes.fromInput for every channel.
   */
  static fromInput(input: RouteTableInput | undefined, defaultProviders: readonly string[]): RouteTable {
    return ChannelRoutes.fromInput(input, defaultProviders).sms;
  }

  /** The routes of one channel's keys (`channel:` removed from `key`, put back for logs), or undefined when it has none. */
  static ofChannel(input: RouteTableInput | undefined, channel: DeliveryChannel, defaultProviders?: readonly string[]): RouteTable | undefined {
    const routes: Route[] = [];
    for (const [fullKey, value] of Object.entries(input ?? {})) {
      const { channel: keyChannel, key } = splitRouteKey(fullKey);
      if (keyChannel !== channel) continue;
      const shown = channel === 'sms' ? key : `${channel}:${key}`;
      routes.push(Array.isArray(value) ? { key: shown, providers: value } : { key: shown, providers: value.providers, ...(value.sender !== undefined ? { sender: value.sender } : {}) });
    }
    const defaultKey = channel === 'sms' ? 'default' : `${channel}:default`;
    const fallback = routes.find((route) => route.key === defaultKey) ?? (defaultProviders ? { key: defaultKey, providers: defaultProviders } : undefined);
    if (!fallback) {
      if (routes.length === 0) return undefined;
      // Routes for some countries of this channel and none for the rest: the rest has none.
      return new RouteTable(routes, { key: defaultKey, providers: [] });
    }
    return new RouteTable(
      routes.filter((route) => route.key !== defaultKey),
      fallback,
    );
  }

  routeFor(recipient: string): Route {
    const candidate = this.candidates.find((c) => c.matches(recipient));
    if (!candidate) return this.fallback;
    const { specificity: _s, matches: _m, ...route } = candidate;
    return route;
  }

  /** Every provider instance any route names, default route first. */
  providerNames(): string[] {
    return [...new Set([...this.fallback.providers, ...this.candidates.flatMap((c) => c.providers)])];
  }
}

function toCandidate(route: Route): Candidate {
  const { key } = splitRouteKey(route.key);
  if (key.startsWith('+')) {
    return { ...route, specificity: key.length - 1, matches: (recipient) => recipient.startsWith(key) };
  }
  const country = key as CountryCode;
  return {
    ...route,
    specificity: getCountryCallingCode(country).length + 0.5,
    matches: (recipient) => parsePhoneNumberFromString(recipient)?.country === country,
  };
}

/**
 * The route tables of every channel. SMS is SMS_ROUTES' keys without a channel (SMS_PROVIDER
 * its default); WhatsApp and voice are their `whatsapp:` / `voice:` keys. A channel with no key
 * of its own uses the SMS routes (its providers then send that channel, or fail and let the
 * identity service fall back); a channel with keys of its own and no `<channel>:default` has no
 * route for the numbers its keys do not match (routeFor answers an empty provider list).
 */
export class ChannelRoutes {
  private constructor(
    readonly sms: RouteTable,
    private readonly others: ReadonlyMap<DeliveryChannel, RouteTable>,
  ) {}

  static fromInput(input: RouteTableInput | undefined, defaultProviders: readonly string[]): ChannelRoutes {
    const sms = RouteTable.ofChannel(input, 'sms', defaultProviders)!;
    const others = new Map<DeliveryChannel, RouteTable>();
    for (const channel of DELIVERY_CHANNELS) {
      if (channel === 'sms') continue;
      const table = RouteTable.ofChannel(input, channel);
      if (table) others.set(channel, table);
    }
    return new ChannelRoutes(sms, others);
  }

  routeFor(recipient: string, channel: DeliveryChannel = 'sms'): Route {
    return (this.others.get(channel) ?? this.sms).routeFor(recipient);
  }

  providerNames(): string[] {
    return [...new Set([this.sms, ...this.others.values()].flatMap((table) => table.providerNames()))];
  }
}
