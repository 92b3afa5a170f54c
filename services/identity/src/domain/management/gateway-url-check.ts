import {
  assertGatewayUrlAllowed,
  GatewayUrlRefusedError,
  gatewayUrlRefusedHttpError,
  type GatewayUrlPolicy,
  type ResolveHost,
} from '../passwordless/gateway-url-policy';

/**
 * Connection create/update: `options.gateway_url` must satisfy GATEWAY_URL_POLICY
 * (under `public`, after DNS resolution). Refusal -> 400 naming `options.gateway_url`.
 */
export async function checkGatewayUrlPolicy(url: string, policy: GatewayUrlPolicy, resolveHost?: ResolveHost): Promise<void> {
  try {
    await assertGatewayUrlAllowed(url, policy, resolveHost ? { resolveHost } : {});
  } catch (err) {
    if (err instanceof GatewayUrlRefusedError) throw gatewayUrlRefusedHttpError(err);
    throw err;
  }
}
