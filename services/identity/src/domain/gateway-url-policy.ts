/**
 * GATEWAY_URL_POLICY: where the URLs identity posts to (a connection's `gateway_url`, a log
 * stream's endpoint, a back-channel logout URL) may point. A rule of the tenant's configuration,
 * so it lives here, below config.ts and the outbound adapters (delivery/gateway-url-policy.ts
 * enforces it).
 * - `public`: only public unicast addresses, checked when the connection is created or
 *   updated (literal IPs, then every address the host name resolves to) and again when a
 *   message is sent, at connect time after DNS resolution (see createGuardedLookup), so a
 *   name that later re-resolves to an internal address (DNS rebinding) is still refused.
 * - `any`: everything reachable over http(s) (local development, tests, compose networks).
 */
export const GATEWAY_URL_POLICIES = ['public', 'any'] as const;
export type GatewayUrlPolicy = (typeof GATEWAY_URL_POLICIES)[number];
