import type { z } from 'zod';
import { outboxProvider } from './outbox';
import type { SmsProvider } from '../domain/sms-provider';
import { checkEither, type ProviderDefinition, type ProviderDependencies, type ProviderRuleContext } from './provider';
import { telnyxProvider } from './telnyx';
import { twilioProvider } from './twilio';
import { vonageProvider } from './vonage';
import { webhookProvider } from './webhook';
// Plivo, Sinch and Infobip (issue 46).
import { infobipProvider } from './infobip';
import { plivoProvider } from './plivo';
import { sinchProvider } from './sinch';
// AWS End User Messaging SMS and Bird (issue 46).
import { awsSmsProvider } from './aws-sms';
import { birdProvider } from './bird';

/**
 * Every provider, in the order their variables appear in the environment schema and their
 * rules are checked. Adding one = a module exporting a ProviderDefinition (defineProvider)
 * and a line here; config.ts, app.ts and the routes never change.
 */
export const PROVIDERS = [
  outboxProvider,
  twilioProvider,
  webhookProvider,
  vonageProvider,
  telnyxProvider,
  // Plivo, Sinch and Infobip (issue 46).
  plivoProvider,
  sinchProvider,
  infobipProvider,
  // AWS End User Messaging SMS and Bird (issue 46).
  awsSmsProvider,
  birdProvider,
] as const;

type Providers = typeof PROVIDERS;
type AnyProvider = Providers[number];

type NamesOf<T extends readonly { name: string }[]> = { readonly [K in keyof T]: T[K] extends { name: infer Name } ? Name : never };

/** The `SMS_PROVIDER` names, as a tuple for z.enum. */
export const PROVIDER_NAMES = PROVIDERS.map((provider) => provider.name) as unknown as NamesOf<Providers>;
export type ProviderName = AnyProvider['name'];

type UnionToIntersection<U> = (U extends unknown ? (union: U) => void : never) extends (intersection: infer I) => void ? I : never;

/** Every provider's variables, one shape: config.ts spreads it into the service's schema. */
export type ProviderSettingsShape = UnionToIntersection<AnyProvider['settingsSchema']['shape']>;
export const providerSettingsShape = mergeShapes();

/** One shape of all providers' variables; a variable two providers claim would be read by both, so it is refused. */
function mergeShapes(): ProviderSettingsShape {
  const owners = new Map<string, string>();
  for (const provider of PROVIDERS) {
    for (const variable of Object.keys(provider.settingsSchema.shape)) {
      const owner = owners.get(variable);
      if (owner !== undefined) throw new Error(`SMS providers ${owner} and ${provider.name} both declare ${variable}`);
      owners.set(variable, provider.name);
    }
  }
  return Object.assign({}, ...PROVIDERS.map((provider) => provider.settingsSchema.shape)) as ProviderSettingsShape;
}

/** Every provider's secret variables, for log redaction. */
export const PROVIDER_SECRETS: readonly string[] = PROVIDERS.flatMap((provider): readonly string[] => provider.secrets ?? []);

/** Every variable a parsed environment holds for the providers. */
type ProviderVariables = z.output<z.ZodObject<ProviderSettingsShape>>;

/** The definitions with their settings types erased; each is only ever handed its own settings (settingsOf). */
const DEFINITIONS = PROVIDERS as unknown as readonly ProviderDefinition[];

function definitionOf(name: ProviderName): ProviderDefinition {
  const definition = DEFINITIONS.find((provider) => provider.name === name);
  if (!definition) throw new Error(`unknown SMS provider ${name}`);
  return definition;
}

/** The variables of one provider's schema, and no others, picked from the parsed environment. */
function settingsOf(definition: ProviderDefinition, variables: ProviderVariables): Record<string, unknown> {
  const all = variables as Record<string, unknown>;
  return Object.fromEntries(Object.keys(definition.settingsSchema.shape).map((variable) => [variable, all[variable]]));
}

/**
 * Checks every provider's rules on its own settings (superRefine-style: each problem names a
 * variable). `selected` maps the kinds SMS_PROVIDER (after defaulting) and SMS_ROUTES use to
 * why (`SMS_PROVIDER is twilio`, `SMS_ROUTES uses twilio`).
 */
export function checkProviderRules(
  variables: ProviderVariables,
  environment: { selected: ReadonlyMap<string, string>; production: boolean },
  addProblem: (variable: string, message: string) => void,
): void {
  for (const definition of DEFINITIONS) {
    const settings = settingsOf(definition, variables);
    const context: ProviderRuleContext<Record<string, unknown>> = {
      selected: environment.selected.has(definition.name),
      production: environment.production,
      problem: addProblem,
      required(variable) {
        if (context.selected && settings[variable] === undefined) addProblem(variable, `is required when ${environment.selected.get(definition.name)}`);
      },
      requiredEither(first, second) {
        if (context.selected) checkEither(settings, definition.name, [first, second], addProblem);
      },
    };
    definition.rules?.(settings, context);
  }
}

/** One configured provider: a kind's definition and the settings of this instance. */
export interface ProviderInstance {
  /** What routes call it: the kind itself, or a name from SMS_PROVIDER_INSTANCES. */
  name: string;
  kind: ProviderName;
  settings: Record<string, unknown>;
}

/** The instance a kind's own variables configure (TWILIO_*, WEBHOOK_*), named after the kind. */
export function instanceFromVariables(kind: ProviderName, variables: ProviderVariables): ProviderInstance {
  return { name: kind, kind, settings: settingsOf(definitionOf(kind), variables) };
}

/**
 * An SMS_PROVIDER_INSTANCES entry: `{provider: kind, VARIABLE: value...}` with the kind's own
 * variable names (values as in the environment; an object or number is taken as its JSON).
 * Parsed by the kind's own schema and rules, as if selected; problems name the entry and variable.
 */
export function parseInstance(
  name: string,
  entry: Record<string, unknown>,
  production: boolean,
  addProblem: (path: string, message: string) => void,
): ProviderInstance | undefined {
  const kind = entry.provider;
  const definition = DEFINITIONS.find((candidate) => candidate.name === kind);
  if (!definition) {
    addProblem(`${name}.provider`, `must be one of ${PROVIDER_NAMES.join(', ')}`);
    return undefined;
  }
  const known = new Set(Object.keys(definition.settingsSchema.shape));
  const raw: Record<string, string> = {};
  for (const [variable, value] of Object.entries(entry)) {
    if (variable === 'provider') continue;
    if (!known.has(variable)) {
      addProblem(`${name}.${variable}`, `is not a ${definition.name} variable (${[...known].join(', ') || 'it has none'})`);
      continue;
    }
    raw[variable] = typeof value === 'string' ? value : JSON.stringify(value);
  }
  const parsed = definition.settingsSchema.safeParse(raw);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) addProblem(`${name}.${issue.path.join('.')}`, issue.message);
    return undefined;
  }
  const settings = parsed.data as Record<string, unknown>;
  let ok = true;
  const problem = (variable: string, message: string) => {
    ok = false;
    addProblem(`${name}.${variable}`, message);
  };
  definition.rules?.(settings, {
    selected: true,
    production,
    problem,
    required(variable) {
      if (settings[variable] === undefined) problem(variable, `is required for a ${definition.name} provider`);
    },
    requiredEither: (first, second) => checkEither(settings, definition.name, [first, second], problem),
  });
  return ok ? { name, kind: definition.name as ProviderName, settings } : undefined;
}

/** Builds one provider instance from its settings. */
export function createProviderInstance(instance: ProviderInstance, deps: Omit<ProviderDependencies, 'name'>): SmsProvider {
  return definitionOf(instance.kind).create(instance.settings, { ...deps, name: instance.name });
}

/** Builds the provider SMS_PROVIDER names from its own settings (picked from the parsed environment). */
export function createProvider(name: ProviderName, variables: ProviderVariables, deps: Omit<ProviderDependencies, 'name'>): SmsProvider {
  return createProviderInstance(instanceFromVariables(name, variables), deps);
}
