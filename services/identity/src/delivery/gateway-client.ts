import http from 'node:http';
import { MESSAGE_ID_HEADER, MessageStatusSchema, PROVIDER_HEADER, type MessageStatusValue } from '@smsauth/contracts';
import https from 'node:https';
import type { Readable } from 'node:stream';
import type { Logger } from '@smsauth/service-kit';
import axios, { type AxiosInstance, type AxiosResponse } from 'axios';
import { RETRYABLE_GATEWAY_STATUSES, SmsProviderError, type SmsGateway, type SmsMessage } from '../domain/passwordless/sms-gateway';
import {
  checkGatewayUrlSyntax,
  createGuardedLookup,
  GatewayUrlRefusedError,
  type GatewayUrlPolicy,
  type ResolveHost,
} from './gateway-url-policy';

export const DEFAULT_GATEWAY_TIMEOUT_MS = 30_000;
/** A message status look-up delays a start: it gets this long at most (GATEWAY_TIMEOUT_MS if shorter). */
export const MESSAGE_STATUS_TIMEOUT_MS = 2_000;

/**
 * The status decides; the body is only read (and dropped) so a keep-alive socket can be
 * reused. Past this many bytes the socket is closed instead of reading on.
 */
const MAX_GATEWAY_RESPONSE_BYTES = 64 * 1024;

/** The delivery adapter of the SmsGateway port. */
export interface SmsGatewayClient extends SmsGateway {
  messageStatus: NonNullable<SmsGateway['messageStatus']>;
  /** Closes the pooled keep-alive connections (for lifecycle.addCloser). */
  close(): void;
}

export interface SmsGatewayClientDeps {
  /** GATEWAY_URL_POLICY; `public` when not given. */
  policy?: GatewayUrlPolicy;
  /** GATEWAY_TIMEOUT_MS, the whole-call deadline (connect, send, response); DEFAULT_GATEWAY_TIMEOUT_MS when not given. */
  timeoutMs?: number;
  /** Defaults to a fresh axios instance. */
  http?: AxiosInstance;
  /** DNS used by the `public` policy's connect-time guard; tests inject one. */
  resolveHost?: ResolveHost;
  logger?: Pick<Logger, 'warn'>;
}

/** The keep-alive agents of one URL policy; under `public` they connect only to vetted addresses. */
export type AgentPair = { httpAgent: http.Agent; httpsAgent: https.Agent };

/**
 * POSTs delivery requests to connection gateways. Never follows redirects (a 3xx is a
 * failure, so a public gateway cannot bounce the request to an internal address), ignores
 * proxy environment variables (a proxy would resolve the name itself, out of the guard's
 * reach), and under the `public` policy connects only to addresses the guard has vetted.
 * The message body (it holds the code) and the token are never logged.
 */
export function createSmsGatewayClient(deps: SmsGatewayClientDeps = {}): SmsGatewayClient {
  const client = deps.http ?? axios.create();
  const agents: Record<GatewayUrlPolicy, AgentPair> = {
    any: policyAgents('any'),
    public: policyAgents('public', deps.resolveHost),
  };

  const timeoutMs = deps.timeoutMs ?? DEFAULT_GATEWAY_TIMEOUT_MS;
  const policy = deps.policy ?? 'public';

  async function deliverSms(request: SmsMessage): Promise<{ messageId?: string; provider?: string }> {
    const gateway = safeOrigin(request.gatewayUrl);
    let failure: SmsProviderError;
    try {
      checkGatewayUrlSyntax(request.gatewayUrl, policy);
      const response = await postWithinDeadline(client, agents[policy], {
        url: request.gatewayUrl,
        data: request.payload,
        headers: {
          'Content-Type': 'application/json',
          Accept: 'application/json, text/plain, */*',
          'Idempotency-Key': request.idempotencyKey,
          ...(request.authToken ? { Authorization: `Bearer ${request.authToken}` } : {}),
        },
      }, timeoutMs);
      if (response.status === 200) {
        return { ...(response.messageId !== undefined ? { messageId: response.messageId } : {}), ...(response.provider !== undefined ? { provider: response.provider } : {}) };
      }
      failure =
        response.status === 401
          ? SmsProviderError.authenticationFailed()
          : RETRYABLE_GATEWAY_STATUSES.has(response.status)
            ? SmsProviderError.gatewayUnavailable(response.status, response.retryAfter)
            : SmsProviderError.unexpectedStatus(response.status);
    } catch (err) {
      failure = toSmsProviderError(err);
      deps.logger?.warn(
        { gateway, failure: failure.failure, code: errorCode(err), refusedAddressClass: refusedClass(err) },
        'SMS gateway call failed',
      );
      throw failure;
    }
    deps.logger?.warn({ gateway, failure: failure.failure, status: failure.gatewayStatus }, 'SMS gateway call failed');
    throw failure;
  }

  async function messageStatus(query: { gatewayUrl: string; messageId: string; authToken?: string }): Promise<MessageStatusValue | undefined> {
    try {
      // Beside the delivery URL: https://gw/sms -> https://gw/messages/{id}.
      const url = new URL(`messages/${encodeURIComponent(query.messageId)}`, query.gatewayUrl).toString();
      checkGatewayUrlSyntax(url, policy);
      const response = await client.request({
        method: 'GET',
        url,
        headers: { Accept: 'application/json', ...(query.authToken ? { Authorization: `Bearer ${query.authToken}` } : {}) },
        timeout: Math.min(timeoutMs, MESSAGE_STATUS_TIMEOUT_MS),
        signal: AbortSignal.timeout(Math.min(timeoutMs, MESSAGE_STATUS_TIMEOUT_MS)),
        adapter: 'http',
        maxRedirects: 0,
        proxy: false,
        httpAgent: agents[policy].httpAgent,
        httpsAgent: agents[policy].httpsAgent,
        maxContentLength: MAX_GATEWAY_RESPONSE_BYTES,
        responseType: 'json',
        validateStatus: () => true,
      });
      if (response.status !== 200) return undefined;
      const parsed = MessageStatusSchema.pick({ status: true }).safeParse(response.data);
      return parsed.success ? parsed.data.status : undefined;
    } catch (err) {
      deps.logger?.warn({ gateway: safeOrigin(query.gatewayUrl), code: errorCode(err) }, 'SMS gateway message status look-up failed');
      return undefined;
    }
  }

  return {
    deliverSms,
    messageStatus,
    close() {
      for (const pair of Object.values(agents)) {
        pair.httpAgent.destroy();
        pair.httpsAgent.destroy();
      }
    },
  };
}

/** Agents for outgoing calls under `policy` (SMS gateways, log stream sinks): destroy them to close their sockets. */
export function policyAgents(policy: GatewayUrlPolicy, resolveHost?: ResolveHost): AgentPair {
  if (policy === 'any') return { httpAgent: new http.Agent({ keepAlive: true }), httpsAgent: new https.Agent({ keepAlive: true }) };
  const lookup = createGuardedLookup({ resolveHost });
  // Agent options reach net.connect, and they override per-request options there.
  return {
    httpAgent: new http.Agent({ keepAlive: true, lookup }),
    httpsAgent: new https.Agent({ keepAlive: true, lookup }),
  };
}

/**
 * One POST under a URL policy's agents: no redirects, no proxy, the whole call (connect, send,
 * response) bounded by `timeoutMs`; the status decides and the body is read and dropped.
 */
/** What a provider name may be as a figure's key: letters, digits, `_`, `.`, `-` (the delivery gateway's instance names fit). */
const PROVIDER_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

export async function postWithinDeadline(
  client: AxiosInstance,
  agents: AgentPair,
  request: { url: string; data: unknown; headers: Record<string, string> },
  timeoutMs: number,
): Promise<{ status: number; retryAfter?: string; messageId?: string; provider?: string }> {
  // `timeout` alone is an idle timer; the abort signal bounds the whole call, so a gateway
  // trickling bytes cannot hold a start request open.
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(new DeadlineExceeded()), timeoutMs);
  try {
    const response: AxiosResponse<Readable> = await client.request({
      method: 'POST',
      url: request.url,
      data: request.data,
      headers: request.headers,
      timeout: timeoutMs,
      signal: deadline.signal,
      // The agents (and with them the SSRF guard) only exist in the Node http adapter.
      adapter: 'http',
      maxRedirects: 0,
      proxy: false,
      httpAgent: agents.httpAgent,
      httpsAgent: agents.httpsAgent,
      responseType: 'stream',
      validateStatus: () => true,
    });
    await discardBody(response.data, MAX_GATEWAY_RESPONSE_BYTES);
    const retryAfter = response.headers['retry-after'];
    const messageId = response.headers[MESSAGE_ID_HEADER.toLowerCase()];
    const provider = response.headers[PROVIDER_HEADER.toLowerCase()];
    return {
      status: response.status,
      ...(typeof retryAfter === 'string' ? { retryAfter } : {}),
      ...(typeof messageId === 'string' && messageId.length <= 128 ? { messageId } : {}),
      // A name for the figures, from a gateway the tenant chose: kept only when it looks like one.
      ...(typeof provider === 'string' && PROVIDER_NAME.test(provider) ? { provider } : {}),
    };
  } catch (err) {
    if (deadline.signal.aborted) throw new DeadlineExceeded();
    throw err;
  } finally {
    clearTimeout(timer);
  }
}

/** Reads the body to its end (within the deadline) and drops it; closes the stream past `limit`. */
function discardBody(body: Readable, limit: number): Promise<void> {
  return new Promise((resolve, reject) => {
    let received = 0;
    body.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (received > limit) {
        body.destroy();
        resolve();
      }
    });
    body.once('end', () => resolve());
    body.once('error', reject);
  });
}

class DeadlineExceeded extends Error {
  constructor() {
    super('SMS gateway deadline exceeded');
  }
}

const TIMEOUT_CODES = new Set(['ECONNABORTED', 'ETIMEDOUT']);

/** Why a call got no HTTP answer: the URL policy refused the address, the deadline passed, or no connection. */
export function unansweredCallReason(err: unknown): 'refused' | 'timeout' | 'unreachable' {
  if (err instanceof DeadlineExceeded) return 'timeout';
  if (refusedClass(err) !== undefined) return 'refused';
  if (axios.isAxiosError(err) && err.code && TIMEOUT_CODES.has(err.code)) return 'timeout';
  return 'unreachable';
}

function toSmsProviderError(err: unknown): SmsProviderError {
  if (err instanceof SmsProviderError) return err;
  if (axios.isAxiosError(err) && err.response && !(err instanceof DeadlineExceeded)) return SmsProviderError.unexpectedStatus(err.response.status);
  const reason = unansweredCallReason(err);
  if (reason === 'timeout') return SmsProviderError.timeout();
  if (reason === 'refused') return SmsProviderError.addressRefused();
  // Sent, then the connection dropped before an answer (the gateway, or the balancer's backend,
  // died mid-delivery): whether the SMS went out is unknown, and a retry with the start's key is
  // safe. A connection refused stays "unable to reach".
  if (errorCode(err) === 'ECONNRESET' || (err as Error | undefined)?.message === 'socket hang up') return SmsProviderError.gatewayUnavailable();
  return SmsProviderError.unreachable();
}

function findCause(err: unknown, match: (e: unknown) => boolean): unknown {
  for (let current = err, depth = 0; current && depth < 5; depth += 1) {
    if (match(current)) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** The address class (or reason) the URL policy refused, found in an error's cause chain. */
export function refusedClass(err: unknown): string | undefined {
  const refused = findCause(err, (e) => e instanceof GatewayUrlRefusedError) as GatewayUrlRefusedError | undefined;
  return refused ? (refused.addressClass ?? refused.reason) : undefined;
}

function errorCode(err: unknown): string | undefined {
  const code = (err as { code?: unknown })?.code;
  return typeof code === 'string' ? code : undefined;
}

/** Origin only: a gateway URL may carry credentials in its path or query. */
function safeOrigin(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return '(invalid URL)';
  }
}
