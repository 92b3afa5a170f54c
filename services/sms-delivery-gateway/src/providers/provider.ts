import type { Clock, Logger } from '@smsauth/service-kit';
import type { AxiosInstance } from 'axios';
import { z } from 'zod';
import type { SmsProvider } from '../domain/sms-provider';
import type { OutboxStore } from '../store/outbox-store';

/** What the service hands every provider besides its settings; each takes only what it needs. */
export interface ProviderDependencies {
  /** The instance's name (its kind for the one configured by its own variables); the SmsProvider's name. */
  name: string;
  /** Where this instance's delivery receipts for a message go; absent without GATEWAY_PUBLIC_URL. */
  statusCallbackUrl?: (messageId: string) => string;
  logger: Logger;
  http: AxiosInstance;
  outbox: OutboxStore;
  clock: Clock;
}

/** A provider's settings: its own environment variables, as its settingsSchema parsed them. */
export type ProviderSettings<Schema extends z.ZodObject> = z.output<Schema>;

/** What a provider's rules see besides its settings, and how they report a problem. */
export interface ProviderRuleContext<Settings> {
  /** SMS_PROVIDER or a route names this provider (or it is an SMS_PROVIDER_INSTANCES entry of its kind). */
  selected: boolean;
  /** NODE_ENV is production. */
  production: boolean;
  /** Refuses the environment; the message is shown after the variable's name (`VAR: message`). */
  problem(variable: Extract<keyof Settings, string>, message: string): void;
  /** When this provider is selected and `variable` is unset: "VAR: is required when SMS_PROVIDER is <name>". */
  required(variable: Extract<keyof Settings, string>): void;
  /** When this provider is selected and both are unset: "FIRST: FIRST or SECOND is required when SMS_PROVIDER is <kind>". */
  requiredEither(first: Extract<keyof Settings, string>, second: Extract<keyof Settings, string>): void;
}

/** requiredEither's check, the same for SMS_PROVIDER's provider and an SMS_PROVIDER_INSTANCES entry. */
export function checkEither(
  settings: Readonly<Record<string, unknown>>,
  kind: string,
  [first, second]: readonly [string, string],
  problem: (variable: string, message: string) => void,
): void {
  if (settings[first] === undefined && settings[second] === undefined) problem(first, `${first} or ${second} is required when SMS_PROVIDER is ${kind}`);
}

/**
 * One SMS provider, described by itself: its `SMS_PROVIDER` name, the schema of its own
 * environment variables (spread into the service's schema by config.ts), the rules across
 * them (checked after every variable parsed, whichever provider is selected), and how to
 * build it from those settings. Nothing here reads the service's whole configuration.
 */
export interface ProviderDefinition<Name extends string = string, Schema extends z.ZodObject = z.ZodObject> {
  readonly name: Name;
  readonly settingsSchema: Schema;
  /** Variables holding credentials, censored wherever a log line would carry them. */
  readonly secrets?: readonly Extract<keyof ProviderSettings<Schema>, string>[];
  readonly rules?: (settings: ProviderSettings<Schema>, context: ProviderRuleContext<ProviderSettings<Schema>>) => void;
  create(settings: ProviderSettings<Schema>, deps: ProviderDependencies): SmsProvider;
}

/** Checks a definition against ProviderDefinition while keeping its literal name and exact schema type. */
export function defineProvider<const Name extends string, Schema extends z.ZodObject>(
  definition: ProviderDefinition<Name, Schema>,
): ProviderDefinition<Name, Schema> {
  return definition;
}

/** A provider HTTP timeout variable: 100 ms to 2 minutes. */
export const timeoutMs = (fallback: number) => z.coerce.number().int().min(100).max(120_000).default(fallback);

/** Removes every occurrence of the given secrets from a provider-supplied text. */
export function scrubSecrets(text: string, secrets: ReadonlyArray<string | undefined>): string {
  let scrubbed = text;
  for (const secret of secrets) {
    if (secret) scrubbed = scrubbed.split(secret).join('[REDACTED]');
  }
  return scrubbed;
}

/** A transport failure (no HTTP answer) in words, without the request config axios attaches. */
export function describeTransportFailure(err: unknown, timeoutMs: number): string {
  const code = (err as { code?: unknown }).code;
  if (code === 'ECONNABORTED' || code === 'ETIMEDOUT') return `no answer within ${timeoutMs} ms`;
  if (typeof code === 'string') return `could not connect (${code})`;
  return 'could not connect';
}
