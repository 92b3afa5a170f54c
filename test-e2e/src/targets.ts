/** Where the suite points: the spec's names, each overridable from the environment. */
export interface Targets {
  authUrl: string;
  gatewayUrl: string;
  baseUrl: string;
}

export function targetsFromEnv(env: Record<string, string | undefined> = process.env): Targets | undefined {
  if (!env.AUTH_URL) return undefined;
  return {
    authUrl: env.AUTH_URL.replace(/\/$/, ''),
    gatewayUrl: (env.GATEWAY_URL ?? 'http://localhost:4100').replace(/\/$/, ''),
    baseUrl: (env.BASE_URL ?? 'http://localhost:4200').replace(/\/$/, ''),
  };
}
