import type { AxiosInstance } from 'axios';
import { LogStreamSinkError, type LogStreamSink } from '../domain/log-streams/delivery';
import { createGuardedPoster, UnansweredPost } from './guarded-post';
import type { GatewayUrlPolicy, ResolveHost } from './gateway-url-policy';

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
 * POSTs log stream batches through the guarded poster (no redirects, no proxy, addresses vetted
 * at connect time under the `public` policy).
 */
export function createLogStreamSinkClient(deps: LogStreamSinkClientDeps): LogStreamSinkClient {
  const poster = createGuardedPoster(deps);
  return {
    async post(request) {
      try {
        return await poster.post(request.url, request.body, request.headers);
      } catch (err) {
        if (!(err instanceof UnansweredPost)) throw err;
        throw new LogStreamSinkError(err.reason, err.urlRefusal ? `the endpoint URL is refused: ${err.urlRefusal}` : REASONS[err.reason]);
      }
    },
    close: () => poster.close(),
  };
}
