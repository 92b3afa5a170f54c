import { loadConfig, ConfigError } from '@smsauth/service-kit';
import { z } from 'zod';
import {
  defaultGatewayUrlPolicy,
  passwordlessConfigSchema,
  passwordlessConfigShape,
  withGatewayUrlPolicyDefault,
} from '../../src/config';

describe('passwordless configuration', () => {
  it('has the documented defaults', () => {
    expect(loadConfig(passwordlessConfigSchema, {})).toEqual({
      NODE_ENV: 'development',
      GATEWAY_URL_POLICY: 'any',
      GATEWAY_TIMEOUT_MS: 30_000,
      PASSWORDLESS_START_LIMIT_PER_IP_PER_HOUR: 50,
      PASSWORDLESS_START_LIMIT_PER_PHONE_PER_HOUR: 10,
      BRUTE_FORCE_THRESHOLD: 10,
      BRUTE_FORCE_BLOCK_SECONDS: 86_400,
      ALLOW_TEST_NUMBERS: false,
    });
  });

  it('defaults GATEWAY_URL_POLICY to public in production and any elsewhere', () => {
    expect(loadConfig(passwordlessConfigSchema, { NODE_ENV: 'production' }).GATEWAY_URL_POLICY).toBe('public');
    expect(loadConfig(passwordlessConfigSchema, { NODE_ENV: 'test' }).GATEWAY_URL_POLICY).toBe('any');
    expect(defaultGatewayUrlPolicy(undefined)).toBe('any');
  });

  it('lets GATEWAY_URL_POLICY be set explicitly either way', () => {
    expect(loadConfig(passwordlessConfigSchema, { NODE_ENV: 'production', GATEWAY_URL_POLICY: 'any' }).GATEWAY_URL_POLICY).toBe('any');
    expect(loadConfig(passwordlessConfigSchema, { GATEWAY_URL_POLICY: 'public' }).GATEWAY_URL_POLICY).toBe('public');
  });

  it('parses numbers from the environment', () => {
    const config = loadConfig(passwordlessConfigSchema, {
      GATEWAY_TIMEOUT_MS: '5000',
      PASSWORDLESS_START_LIMIT_PER_IP_PER_HOUR: '20',
      PASSWORDLESS_START_LIMIT_PER_PHONE_PER_HOUR: '3',
      BRUTE_FORCE_THRESHOLD: '5',
      BRUTE_FORCE_BLOCK_SECONDS: '600',
    });
    expect(config).toMatchObject({
      GATEWAY_TIMEOUT_MS: 5000,
      PASSWORDLESS_START_LIMIT_PER_IP_PER_HOUR: 20,
      PASSWORDLESS_START_LIMIT_PER_PHONE_PER_HOUR: 3,
      BRUTE_FORCE_THRESHOLD: 5,
      BRUTE_FORCE_BLOCK_SECONDS: 600,
    });
  });

  it('names each bad variable', () => {
    let error: unknown;
    try {
      loadConfig(passwordlessConfigSchema, { GATEWAY_URL_POLICY: 'private', GATEWAY_TIMEOUT_MS: '0', BRUTE_FORCE_THRESHOLD: 'ten' });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems.join('\n');
    expect(problems).toContain('GATEWAY_URL_POLICY: must be public or any');
    expect(problems).toContain('GATEWAY_TIMEOUT_MS');
    expect(problems).toContain('BRUTE_FORCE_THRESHOLD');
  });

  it('spreads into a larger config schema', () => {
    const schema = z
      .object({ PORT: z.coerce.number().default(4000), NODE_ENV: z.string().default('development'), ...passwordlessConfigShape })
      .transform(withGatewayUrlPolicyDefault);
    expect(loadConfig(schema, { NODE_ENV: 'production', PORT: '4001' })).toMatchObject({
      PORT: 4001,
      GATEWAY_URL_POLICY: 'public',
      GATEWAY_TIMEOUT_MS: 30_000,
    });
  });
});
