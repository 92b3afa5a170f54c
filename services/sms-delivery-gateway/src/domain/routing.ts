import { getCountryCallingCode, isSupportedCountry, parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js';
import { z } from 'zod';

/** A provider instance name: a kind (`twilio`) or a name from SMS_PROVIDER_INSTANCES. */
export const ProviderInstanceNameSchema = z
  .string()
  .regex(/^[a-z][a-z0-9-]{0,39}$/, { message: 'must be 1-40 lowercase letters, digits or "-", starting with a letter' });

/** E.164 or an alphanumeric sender id (what both Twilio and most regional providers accept). */
export const RouteSenderSchema = z
  .string()
  .regex(/^(\+[1-9][0-9]{1,14}|(?=.*[A-Za-z])[A-Za-z0-9 ]{1,11})$/, {
    message: 'must be an E.164 number like +14155550123 or an alphanumeric sender id of 1-11 characters',
  });

const RouteSchema = z.union([
  z.array(ProviderInstanceNameSchema).min(1, { message: 'needs at least one provider' }),
  z.strictObject({
    providers: z.array(ProviderInstanceNameSchema).min(1, { message: 'needs at least one provider' }),
    sender: RouteSenderSchema.optional(),
  }),
]);

/** `+<digits>` (E.164 prefix), a two-letter country code, or `default`. */
const RouteKeySchema = z.string().refine((key) => key === 'default' || /^\+[0-9]{1,6}$/.test(key) || (/^[A-Z]{2}$/.test(key) && isSupportedCountry(key)), {
  message: 'route keys are "+<1-6 digits>" (E.164 prefix), an ISO 3166 country code like "DE", or "default"',
});

/** The `SMS_ROUTES` value: a JSON object of route key -> providers (or {providers, sender}). */
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

  /** SMS_ROUTES parsed; `defaultProviders` is the default route when it names none (SMS_PROVIDER). */
  static fromInput(input: RouteTableInput | undefined, defaultProviders: readonly string[]): RouteTable {
    const routes: Route[] = Object.entries(input ?? {}).map(([key, value]) =>
      Array.isArray(value) ? { key, providers: value } : { key, providers: value.providers, ...(value.sender !== undefined ? { sender: value.sender } : {}) },
    );
    const fallback = routes.find((route) => route.key === 'default') ?? { key: 'default', providers: defaultProviders };
    return new RouteTable(
      routes.filter((route) => route.key !== 'default'),
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
  if (route.key.startsWith('+')) {
    return { ...route, specificity: route.key.length - 1, matches: (recipient) => recipient.startsWith(route.key) };
  }
  const country = route.key as CountryCode;
  return {
    ...route,
    specificity: getCountryCallingCode(country).length + 0.5,
    matches: (recipient) => parsePhoneNumberFromString(recipient)?.country === country,
  };
}
