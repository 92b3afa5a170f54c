import { env } from '@smsauth/service-kit';
import { z } from 'zod';
import { GATEWAY_URL_POLICIES, type GatewayUrlPolicy } from './gateway-url-policy';

/**
 * Environment fields of the passwordless flow, to be spread into the identity config
 * schema: `z.object({ ...coreFields, ...passwordlessConfigShape }).transform(withGatewayUrlPolicyDefault)`.
 * GATEWAY_URL_POLICY's default depends on NODE_ENV, which a field default cannot see; the
 * transform fills it in.
 */
export const passwordlessConfigShape = {
  GATEWAY_URL_POLICY: z.enum(GATEWAY_URL_POLICIES, { message: 'must be public or any' }).optional(),
  GATEWAY_TIMEOUT_MS: env.positiveInt(30_000),
  PASSWORDLESS_START_LIMIT_PER_IP_PER_HOUR: env.positiveInt(50),
  PASSWORDLESS_START_LIMIT_PER_PHONE_PER_HOUR: env.positiveInt(10),
  BRUTE_FORCE_THRESHOLD: env.positiveInt(10),
  BRUTE_FORCE_BLOCK_SECONDS: env.positiveInt(86_400),
};

/** `public` in production, `any` elsewhere (local development, tests, compose networks). */
export function defaultGatewayUrlPolicy(nodeEnv: string | undefined): GatewayUrlPolicy {
  return nodeEnv === 'production' ? 'public' : 'any';
}

export function withGatewayUrlPolicyDefault<T extends { NODE_ENV?: string; GATEWAY_URL_POLICY?: GatewayUrlPolicy | undefined }>(
  config: T,
): Omit<T, 'GATEWAY_URL_POLICY'> & { GATEWAY_URL_POLICY: GatewayUrlPolicy } {
  return { ...config, GATEWAY_URL_POLICY: config.GATEWAY_URL_POLICY ?? defaultGatewayUrlPolicy(config.NODE_ENV) };
}

/** The passwordless fields on their own (with NODE_ENV), e.g. for tests. */
export const passwordlessConfigSchema = z
  .object({ NODE_ENV: env.nodeEnv(), ...passwordlessConfigShape })
  .transform(withGatewayUrlPolicyDefault);
export type PasswordlessConfig = z.output<typeof passwordlessConfigSchema>;
