import { randomUUID } from 'node:crypto';
import type { Clock, Logger } from '@smsauth/service-kit';
import type { IdentityStore, StoredBackchannelLogout } from '../../store';
import { logRecord, recordEvents } from '../logs/tenant-log';
import { PollingWorker, type PollingWorkerOptions } from '../polling-worker';
import type { TokenSigner } from '../tokens/signer';

/** The event a logout_token carries (OpenID Connect Back-Channel Logout 1.0 §2.4). */
export const BACKCHANNEL_LOGOUT_EVENT = 'http://schemas.openid.net/event/backchannel-logout';

/** A logout_token is valid this long: long enough for a slow receiver, short against replay. */
export const LOGOUT_TOKEN_LIFETIME_SECONDS = 120;

/** One POST of a logout_token to a client's back-channel logout URL. */
export interface BackchannelLogoutRequest {
  url: string;
  /** `logout_token=…`, application/x-www-form-urlencoded. */
  body: string;
}

/**
 * Why a POST got no HTTP answer: `refused` when GATEWAY_URL_POLICY refused the address the URL
 * resolved to (or the URL itself), otherwise timeout or unreachable.
 */
export class BackchannelLogoutPostError extends Error {
  constructor(
    readonly reason: 'refused' | 'timeout' | 'unreachable',
    message: string,
  ) {
    super(message);
    this.name = 'BackchannelLogoutPostError';
  }
}

/** The port the HTTP adapter implements: POST once (no redirects), answer the status or throw BackchannelLogoutPostError. */
export interface BackchannelLogoutSender {
  post(request: BackchannelLogoutRequest): Promise<{ status: number }>;
}

/**
 * delivered: a 2xx answer. failed: tried again later. abandoned: not tried again (a redirect or a
 * 4xx answer, which says the client refused this token, or the retry time is over). refused: the
 * URL policy refused the address (not tried again).
 */
export type BackchannelLogoutOutcome = 'delivered' | 'failed' | 'abandoned' | 'refused';

/** Counts attempts (backchannel_logout_deliveries_total). */
export interface BackchannelLogoutMetrics {
  delivery(outcome: BackchannelLogoutOutcome): void;
}

export interface BackchannelLogoutPolicy {
  /** Notifications claimed per pass (POSTed concurrently). */
  batchSize: number;
  /** A POST's whole deadline. */
  timeoutMs: number;
  /** First retry delay; doubled per failed attempt up to maxBackoffMs. */
  backoffMs: number;
  maxBackoffMs: number;
  /** No attempt starts later than this after the session ended. */
  retryForMs: number;
}

export interface BackchannelLogoutDependencies {
  store: IdentityStore;
  clock: Clock;
  signer: TokenSigner;
  sender: BackchannelLogoutSender;
  metrics?: BackchannelLogoutMetrics;
  logger: Pick<Logger, 'warn' | 'info'>;
  policy: BackchannelLogoutPolicy;
}

/** What one attempt came to, and why when it was not delivered. */
interface Attempt {
  outcome: BackchannelLogoutOutcome;
  status?: number;
  reason?: string;
}

/** The origin of a URL: what logs may show of it (its path or query may carry a credential). */
function originOf(url: string | null): string {
  if (url === null) return 'none';
  try {
    return new URL(url).origin;
  } catch {
    return 'invalid URL';
  }
}

/**
 * A redirect (never followed: the URL is registered, not discovered) or a 4xx other than 408 and
 * 429 (the client refused this token): the same answer would come again.
 */
function isFinalRefusal(status: number): boolean {
  return (status >= 300 && status < 400) || (status >= 400 && status < 500 && status !== 408 && status !== 429);
}

/**
 * Delivers queued logout_tokens (OpenID Connect Back-Channel Logout 1.0). A notification is
 * queued in the transaction that ends the session (store.loginSessions), so the request that
 * ended it never waits for, nor fails because of, a client. Each pass claims due rows (one
 * replica per row), signs a fresh logout_token per attempt, POSTs it, and records the outcome
 * in the tenant logs: delivered rows go, failed ones come back with a doubling delay until
 * `retryForMs` after the session ended.
 */
export class BackchannelLogoutDeliverer {
  constructor(private readonly deps: BackchannelLogoutDependencies) {}

  /** One batch of due notifications; true when the batch was full (more may be waiting). */
  async deliverDue(): Promise<boolean> {
    const { store, clock, policy } = this.deps;
    const now = clock.now();
    // The claim outlasts the POST's deadline, so a live replica never loses it mid-delivery.
    const leaseUntil = new Date(now.getTime() + policy.timeoutMs * 2 + 5_000);
    const claimed = await store.backchannelLogouts.claimDue(now, leaseUntil, policy.batchSize);
    await Promise.all(claimed.map((notification) => this.deliver(notification)));
    return claimed.length === policy.batchSize;
  }

  /** The logout_token for one notification (a new jti at every attempt). */
  async logoutToken(notification: Pick<StoredBackchannelLogout, 'client_id' | 'user_id' | 'session_id'>): Promise<string> {
    return this.deps.signer.sign(
      {
        aud: notification.client_id,
        sub: notification.user_id,
        sid: notification.session_id,
        jti: randomUUID(),
        events: { [BACKCHANNEL_LOGOUT_EVENT]: {} },
      },
      { expiresInSeconds: LOGOUT_TOKEN_LIFETIME_SECONDS, typ: 'logout+jwt' },
    );
  }

  private async deliver(notification: StoredBackchannelLogout): Promise<void> {
    let attempt: Attempt;
    try {
      attempt = await this.attempt(notification);
    } catch (err) {
      // Signing failed (no key?) or the adapter threw something unexpected: retried like a failure.
      attempt = { outcome: 'failed', reason: err instanceof Error ? err.message : String(err) };
    }
    await this.settle(notification, attempt);
  }

  private async attempt(notification: StoredBackchannelLogout): Promise<Attempt> {
    if (notification.url === null) return { outcome: 'abandoned', reason: 'the client no longer has a back-channel logout URL' };
    const token = await this.logoutToken(notification);
    try {
      const { status } = await this.deps.sender.post({ url: notification.url, body: new URLSearchParams({ logout_token: token }).toString() });
      if (status >= 200 && status < 300) return { outcome: 'delivered', status };
      return { outcome: isFinalRefusal(status) ? 'abandoned' : 'failed', status, reason: `the back-channel logout URL answered HTTP ${status}` };
    } catch (err) {
      if (err instanceof BackchannelLogoutPostError) return { outcome: err.reason === 'refused' ? 'refused' : 'failed', reason: err.message };
      throw err;
    }
  }

  /** Removes or reschedules the row, and records the attempt (tenant log, metric, log line). */
  private async settle(notification: StoredBackchannelLogout, attempt: Attempt): Promise<void> {
    const { store, clock, policy, logger } = this.deps;
    const now = clock.now();
    const delay = Math.min(policy.backoffMs * 2 ** Math.min(notification.attempts - 1, 30), policy.maxBackoffMs);
    const nextAttemptAt = new Date(now.getTime() + delay);
    let outcome = attempt.outcome;
    if (outcome === 'failed' && nextAttemptAt.getTime() > notification.created_at.getTime() + policy.retryForMs) outcome = 'abandoned';
    if (outcome === 'failed') await store.backchannelLogouts.reschedule(notification.id, notification.attempts, nextAttemptAt, attempt.reason ?? 'failed');
    else await store.backchannelLogouts.remove(notification.id, notification.attempts);
    this.deps.metrics?.delivery(outcome);

    const client = await store.clients.findById(notification.client_id);
    const details = {
      session_id: notification.session_id,
      initiator: notification.initiator,
      attempt: notification.attempts,
      url_origin: originOf(notification.url),
      ...(attempt.status !== undefined ? { status: attempt.status } : {}),
      ...(outcome === 'delivered' ? {} : { error: attempt.reason ?? 'failed', will_retry: outcome === 'failed' }),
      ...(outcome === 'failed' ? { next_attempt_at: nextAttemptAt.toISOString() } : {}),
    };
    const type = outcome === 'delivered' ? 'oidc_backchannel_logout_succeeded' : 'oidc_backchannel_logout_failed';
    await recordEvents(store, logRecord(type, { clientId: notification.client_id, clientName: client?.name, userId: notification.user_id }, now, details));
    const fields = { client: notification.client_id, endpoint: details.url_origin, attempt: notification.attempts, initiator: notification.initiator };
    if (outcome === 'delivered') logger.info(fields, 'back-channel logout delivered');
    else if (outcome === 'failed') logger.warn({ ...fields, reason: attempt.reason, nextAttemptAt: details.next_attempt_at }, 'back-channel logout failed; will retry');
    else logger.warn({ ...fields, reason: attempt.reason }, 'back-channel logout given up');
  }
}

/** Runs the deliverer in a loop: the next batch at once while one was full, otherwise after pollMs. */
export class BackchannelLogoutWorker extends PollingWorker {
  constructor(deliverer: BackchannelLogoutDeliverer, options: PollingWorkerOptions) {
    super(() => deliverer.deliverDue(), {
      ...options,
      messages: { failed: 'back-channel logout pass failed; retrying', resumed: 'back-channel logout delivery resumed' },
    });
  }
}
