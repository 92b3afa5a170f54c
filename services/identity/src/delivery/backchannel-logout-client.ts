import axios, { type AxiosInstance } from 'axios';
import { BackchannelLogoutPostError, type BackchannelLogoutSender } from '../domain/logout/backchannel';
import { policyAgents, postWithinDeadline, unansweredCallReason } from './gateway-client';
import { checkGatewayUrlSyntax, GatewayUrlRefusedError, type GatewayUrlPolicy, type ResolveHost } from './gateway-url-policy';

export interface BackchannelLogoutClient extends BackchannelLogoutSender {
  /** Closes the pooled keep-alive connections (for lifecycle.addCloser). */
  close(): void;
}

export interface BackchannelLogoutClientDeps {
  /** GATEWAY_URL_POLICY: back-channel logout URLs obey the same policy as gateway and log stream URLs. */
  policy: GatewayUrlPolicy;
  /** BACKCHANNEL_LOGOUT_TIMEOUT_MS: the whole call's deadline. */
  timeoutMs: number;
  /** DNS used by the `public` policy's connect-time guard; tests inject one. */
  resolveHost?: ResolveHost;
  http?: AxiosInstance;
}

const REASONS = {
  refused: 'the back-channel logout URL resolved to an address GATEWAY_URL_POLICY refuses',
  timeout: 'the back-channel logout URL did not answer in time',
  unreachable: 'the back-channel logout URL could not be reached',
} as const;

/**
 * POSTs logout_tokens as the log stream sink POSTs batches: no redirects followed, no proxy,
 * a short deadline for the whole call, and under the `public` policy only to addresses vetted
 * at connect time (a URL re-pointed at an internal address is still refused).
 */
export function createBackchannelLogoutClient(deps: BackchannelLogoutClientDeps): BackchannelLogoutClient {
  const client = deps.http ?? axios.create();
  const agents = policyAgents(deps.policy, deps.resolveHost);
  return {
    async post(request) {
      try {
        checkGatewayUrlSyntax(request.url, deps.policy);
        return await postWithinDeadline(
          client,
          agents,
          { url: request.url, data: Buffer.from(request.body, 'utf8'), headers: { 'Content-Type': 'application/x-www-form-urlencoded' } },
          deps.timeoutMs,
        );
      } catch (err) {
        if (err instanceof GatewayUrlRefusedError && err.reason !== 'address') throw new BackchannelLogoutPostError('refused', `the back-channel logout URL is refused: ${err.message}`);
        const reason = unansweredCallReason(err);
        throw new BackchannelLogoutPostError(reason, REASONS[reason]);
      }
    },
    close() {
      agents.httpAgent.destroy();
      agents.httpsAgent.destroy();
    },
  };
}
