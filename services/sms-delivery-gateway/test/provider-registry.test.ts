import { loadConfig, secretVariablesOf } from '@smsauth/service-kit';
import { configSchema } from '../src/config';
import { PROVIDERS, PROVIDER_NAMES, PROVIDER_SECRETS, providerSettingsShape } from '../src/providers/registry';

describe('provider registry', () => {
  it('lists each provider once, by its SMS_PROVIDER name', () => {
    expect(PROVIDER_NAMES).toEqual(['outbox', 'twilio', 'webhook', 'vonage', 'telnyx', 'plivo', 'sinch', 'infobip']);
    expect(new Set(PROVIDER_NAMES).size).toBe(PROVIDERS.length);
  });

  it('spreads every provider variable into the service schema, each owned by one provider', () => {
    const variables = PROVIDERS.flatMap((provider) => Object.keys(provider.settingsSchema.shape));
    expect(new Set(variables).size).toBe(variables.length);
    expect(Object.keys(providerSettingsShape).sort()).toEqual([...variables].sort());
    expect(loadConfig(configSchema, { SMS_PROVIDER: 'webhook', WEBHOOK_URL: 'https://hooks.example.com/sms', TWILIO_TIMEOUT_MS: '2000' })).toMatchObject({
      WEBHOOK_URL: 'https://hooks.example.com/sms',
      WEBHOOK_TIMEOUT_MS: 10_000,
      TWILIO_TIMEOUT_MS: 2000,
    });
  });

  it('names only variables of the provider declaring them as secrets', () => {
    for (const provider of PROVIDERS) {
      for (const secret of provider.secrets ?? []) expect(Object.keys(provider.settingsSchema.shape)).toContain(secret);
    }
    expect(PROVIDER_SECRETS).toEqual(expect.arrayContaining(['TWILIO_AUTH_TOKEN', 'WEBHOOK_HEADERS']));
  });

  it('marks each of those secrets as one in its schema too, so that it may also be read from <NAME>_FILE', () => {
    for (const provider of PROVIDERS) expect(secretVariablesOf(provider.settingsSchema).sort()).toEqual([...(provider.secrets ?? [])].sort());
  });
});
