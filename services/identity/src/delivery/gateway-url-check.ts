import {
  assertGatewayUrlAllowed,
  GatewayUrlRefusedError,
  gatewayUrlRefusedHttpError,
  type GatewayUrlPolicy,
  type ResolveHost,
} from './gateway-url-policy';

/**
 * Connection (and log stream) create/update: `options.gateway_url` (`sink.httpEndpoint`) must
 * satisfy GATEWAY_URL_POLICY (under `public`, after DNS resolution). Refusal -> 400 naming
 * `field`. Built once in app.ts and handed to the management domain as its ConnectionRules.
 */
export function gatewayUrlCheck(policy: GatewayUrlPolicy, resolveHost?: ResolveHost, field = 'options.gateway_url'): (url: string) => Promise<void> {
  return async (url) => {
    try {
      await assertGatewayUrlAllowed(url, policy, resolveHost ? { resolveHost } : {});
    } catch (err) {
      if (err instanceof GatewayUrlRefusedError) throw gatewayUrlRefusedHttpError(err, field);
      throw err;
    }
  };
}
