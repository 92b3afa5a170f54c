import { ConfigError, loadConfig } from '@smsauth/service-kit';
import { configSchema } from '../../src/config';

/** What the gateway's configuration says is wrong with `env` (empty when it loads). */
export function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(configSchema, env);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  return [];
}
