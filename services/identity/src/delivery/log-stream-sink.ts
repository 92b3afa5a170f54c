import axios, { type AxiosInstance } from 'axios';
import { LogStreamSinkError, type LogStreamSink } from '../domain/log-streams/delivery';
import { policyAgents, postWithinDeadline, unansweredCallReason } from './gateway-client';
import { checkGatewayUrlSyntax, GatewayUrlRefusedError, type GatewayUrlPolicy, type ResolveHost } from './gateway-url-policy';

export interface LogStreamSinkClient extends LogStreamSink {
  /** Closes the pooled keep-alive connections (for lifecycle.addCloser). */
  close(): void;
}

export interface LogStreamSinkClientDeps {
  /** GATEWAY_URL_POLICY: sink URLs obey the same policy as gateway URLs. */
  policy: GatewayUrlPolicy;
  /** LOG_STREAM_TIMEOUT_MS: the whole call's deadline. */
  timeoutMs: number;
  /** DNS used by the `public` policy's connect-time guard; tests inject one. */
  resolveHost?: ResolveHost;
  http?: AxiosInstance;
}

const REASONS = {
  refused: 'the endpoint resolved to an address GATEWAY_URL_POLICY refuses',
  timeout: 'the endpoint did not answer in time',
  unreachable: 'the endpoint could not be reached',
} as const;

/**
 * POSTs log stream batches as the SMS gateway client POSTs codes: no redirects, no proxy,
 * and under the `public` policy only to addresses vetted at connect time, so an endpoint
 * re-pointed at an internal address after it was accepted (DNS rebinding) is still refused.
 */
export function createLogStreamSinkClient(deps: LogStreamSinkClientDeps): LogStreamSinkClient {
  const client = deps.http ?? axios.create();
  const agents = policyAgents(deps.policy, deps.resolveHost);
  return {
    async post(request) {
      try {
        checkGatewayUrlSyntax(request.url, deps.policy);
        // A Buffer goes out byte for byte (axios would re-serialise a string), so the signature holds.
        return await postWithinDeadline(client, agents, { url: request.url, data: Buffer.from(request.body, 'utf8'), headers: request.headers }, deps.timeoutMs);
      } catch (err) {
        if (err instanceof GatewayUrlRefusedError && err.reason !== 'address') throw new LogStreamSinkError('refused', `the endpoint URL is refused: ${err.message}`);
        const reason = unansweredCallReason(err);
        throw new LogStreamSinkError(reason, REASONS[reason]);
      }
    },
    close() {
      agents.httpAgent.destroy();
      agents.httpsAgent.destroy();
    },
  };
}
