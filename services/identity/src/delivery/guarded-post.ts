import axios, { type AxiosInstance } from 'axios';
import { policyAgents, postWithinDeadline, unansweredCallReason } from './gateway-client';
import { checkGatewayUrlSyntax, GatewayUrlRefusedError, type GatewayUrlPolicy, type ResolveHost } from './gateway-url-policy';

/**
 * Why a POST got no HTTP answer: `refused` when GATEWAY_URL_POLICY refused the URL (then
 * `urlRefusal` says why) or the address it resolved to, otherwise timeout or unreachable.
 */
export class UnansweredPost extends Error {
  constructor(
    readonly reason: 'refused' | 'timeout' | 'unreachable',
    readonly urlRefusal?: string,
  ) {
    super(urlRefusal ?? reason);
    this.name = 'UnansweredPost';
  }
}

export interface GuardedPosterDeps {
  /** GATEWAY_URL_POLICY: where the URLs may point, checked at every call and at connect time. */
  policy: GatewayUrlPolicy;
  /** The whole call's deadline. */
  timeoutMs: number;
  /** DNS used by the `public` policy's connect-time guard; tests inject one. */
  resolveHost?: ResolveHost;
  http?: AxiosInstance;
}

export interface GuardedPoster {
  /** POSTs `body` byte for byte; the status, or UnansweredPost. */
  post(url: string, body: string, headers: Record<string, string>): Promise<{ status: number }>;
  /** Closes the pooled keep-alive connections (for lifecycle.addCloser). */
  close(): void;
}

/**
 * POSTs to URLs a tenant registered (log stream endpoints, back-channel logout URLs) as the SMS
 * gateway client POSTs codes: no redirects, no proxy, the whole call bounded, and under the
 * `public` policy only to addresses vetted at connect time, so a URL re-pointed at an internal
 * address after it was accepted (DNS rebinding) is still refused.
 */
export function createGuardedPoster(deps: GuardedPosterDeps): GuardedPoster {
  const client = deps.http ?? axios.create();
  const agents = policyAgents(deps.policy, deps.resolveHost);
  return {
    async post(url, body, headers) {
      try {
        checkGatewayUrlSyntax(url, deps.policy);
        // A Buffer goes out byte for byte (axios would re-serialise a string), so a signature over it holds.
        return await postWithinDeadline(client, agents, { url, data: Buffer.from(body, 'utf8'), headers }, deps.timeoutMs);
      } catch (err) {
        if (err instanceof GatewayUrlRefusedError && err.reason !== 'address') throw new UnansweredPost('refused', err.message);
        throw new UnansweredPost(unansweredCallReason(err));
      }
    },
    close() {
      agents.httpAgent.destroy();
      agents.httpsAgent.destroy();
    },
  };
}
