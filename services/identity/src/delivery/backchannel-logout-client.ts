import type { AxiosInstance } from 'axios';
import { BackchannelLogoutPostError, type BackchannelLogoutSender } from '../domain/logout/backchannel';
import { createGuardedPoster, UnansweredPost } from './guarded-post';
import type { GatewayUrlPolicy, ResolveHost } from './gateway-url-policy';

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
 * POSTs logout_tokens (a form) through the guarded poster, as log stream batches go: no
 * redirects followed, no proxy, a short deadline for the whole call, and under the `public`
 * policy only to addresses vetted at connect time.
 */
export function createBackchannelLogoutClient(deps: BackchannelLogoutClientDeps): BackchannelLogoutClient {
  const poster = createGuardedPoster(deps);
  return {
    async post(request) {
      try {
        return await poster.post(request.url, request.body, { 'Content-Type': 'application/x-www-form-urlencoded' });
      } catch (err) {
        if (!(err instanceof UnansweredPost)) throw err;
        throw new BackchannelLogoutPostError(err.reason, err.urlRefusal ? `the back-channel logout URL is refused: ${err.urlRefusal}` : REASONS[err.reason]);
      }
    },
    close: () => poster.close(),
  };
}
