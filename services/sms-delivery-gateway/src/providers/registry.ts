import { createOutboxProvider } from './outbox';
import type { ProviderDependencies, ProviderFactory, SmsProvider } from './provider';
import { createTwilioProvider } from './twilio';
import { createWebhookProvider } from './webhook';

/**
 * Every provider by its `SMS_PROVIDER` name. Adding one = a module with a ProviderFactory,
 * a line here, and its variables in config.ts; routes never change.
 */
export const PROVIDER_NAMES = ['outbox', 'twilio', 'webhook'] as const;
export type ProviderName = (typeof PROVIDER_NAMES)[number];

const providerFactories: Record<ProviderName, ProviderFactory> = {
  outbox: createOutboxProvider,
  twilio: createTwilioProvider,
  webhook: createWebhookProvider,
};

export function createProvider(name: ProviderName, deps: ProviderDependencies): SmsProvider {
  return providerFactories[name](deps);
}
