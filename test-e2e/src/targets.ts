/**
 * Where the suite points, with the spec's names. Either all come from the environment (a
 * deployment under test) or the global setup launched the stack and filled them in.
 */
export interface Targets {
  authUrl: string;
  gatewayUrl: string;
  baseUrl: string;
  /** The gateway's delivery URL as the identity service reaches it (differs inside a container network). */
  gatewayDeliveryUrl: string;
  adminClientId: string;
  adminClientSecret: string;
  apiAudience: string;
  /** The gateway's bearer secret, when its authentication is on. */
  gatewayAuthSecret?: string;
  gatewayAuthAudience?: string;
  gatewayAuthSubject?: string;
  outboxToken?: string;
  /** A gateway whose provider always fails, for the delivery-failure case. */
  failingGatewayDeliveryUrl?: string;
  /**
   * A gateway (base URL) routing +1415 numbers (every randomPhone) to a provider that is down, then to its outbox
   * with the route's sender, for the routed failover case.
   */
  routedGatewayUrl?: string;
  /** The routed gateway's delivery URL as identity reaches it (its container name on a compose network). */
  routedGatewayDeliveryUrl?: string;
  /** Set only when the suite launched the stack: lets a test restart a service. */
  controlUrl?: string;
}

const trim = (url: string) => url.replace(/\/$/, '');

export function targetsFromEnv(env: Record<string, string | undefined> = process.env): Targets {
  const required = (name: string): string => {
    const value = env[name];
    if (!value) throw new Error(`${name} is not set: set the targets (AUTH_URL, GATEWAY_URL, BASE_URL, ADMIN_CLIENT_ID, ADMIN_CLIENT_SECRET) or let the suite launch the stack`);
    return value;
  };
  const gatewayUrl = trim(required('GATEWAY_URL'));
  return {
    authUrl: trim(required('AUTH_URL')),
    gatewayUrl,
    baseUrl: trim(required('BASE_URL')),
    gatewayDeliveryUrl: env.GATEWAY_DELIVERY_URL ?? `${gatewayUrl}/sms`,
    adminClientId: required('ADMIN_CLIENT_ID'),
    adminClientSecret: required('ADMIN_CLIENT_SECRET'),
    apiAudience: env.API_AUDIENCE ?? 'https://airport-api.example.com',
    gatewayAuthSecret: env.GATEWAY_AUTH_SECRET || undefined,
    gatewayAuthAudience: env.GATEWAY_AUTH_AUDIENCE || undefined,
    gatewayAuthSubject: env.GATEWAY_AUTH_SUBJECT || undefined,
    outboxToken: env.OUTBOX_TOKEN || undefined,
    failingGatewayDeliveryUrl: env.FAILING_GATEWAY_DELIVERY_URL || undefined,
    routedGatewayUrl: env.ROUTED_GATEWAY_URL ? trim(env.ROUTED_GATEWAY_URL) : undefined,
    routedGatewayDeliveryUrl: env.ROUTED_GATEWAY_DELIVERY_URL ?? (env.ROUTED_GATEWAY_URL ? `${trim(env.ROUTED_GATEWAY_URL)}/sms` : undefined),
    controlUrl: env.E2E_CONTROL_URL || undefined,
  };
}
