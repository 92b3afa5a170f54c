import { randomBytes } from 'node:crypto';
import {
  ErrorCodes,
  StartRequestSchema,
  startRequestErrorCode,
  toErrorDetails,
  type StartRequest,
  type StartResponse,
} from '@smsauth/contracts';
import type { IncomingHttpHeaders } from 'node:http';
import { HttpError, maskPhoneNumber, type Logger, type Clock } from '@smsauth/service-kit';
import type { IdentityStore, SmsSend, StoredClient, StoredConnection, StoredUser } from '../../store';
import type { ClientAuthenticator } from '../oauth/client-auth';
import { canonicalPhoneNumber, type CanonicalPhoneNumber } from '../phone/canonical-number';
import { smsPolicyForStart, type EarlySendCount, type SmsPolicyDependencies } from '../sms-policy/guard';
import { discardUnsentCode, recordCodeSent, recordingRefusal, recordStartRefused, startLogContext } from '../logs/login-events';
import { isBlockedUser, refuseBlockedUser } from './blocked-user';
import { decideRateLimit, rateLimitedError, rateLimitWindow, type RateLimitHeaders } from './rate-limits';
import { codeExpiresAt } from './code-state';
import { computeOtp, generateOtpSecret } from './otp';
import type { SmsGateway } from './sms-gateway';
import { deliveryPayload, gatewayToken } from './sms-message';
import { countryLabel, type SmsMetrics } from './sms-metrics';

/** Starts allowed per hour (PASSWORDLESS_START_LIMIT_PER_IP_PER_HOUR, ..._PER_PHONE_PER_HOUR). */
export interface StartRateLimits {
  perIpPerHour: number;
  perPhonePerHour: number;
}

export interface StartDependencies {
  store: IdentityStore;
  clock: Clock;
  rateLimits: StartRateLimits;
  smsGateway: SmsGateway;
  logger: Pick<Logger, 'info'>;
  clientAuthenticator: ClientAuthenticator;
  smsMetrics: Pick<SmsMetrics, 'sent'>;
  smsPolicy: SmsPolicyDependencies;
}

export interface StartCall {
  body: unknown;
  /** Client address, honouring TRUST_PROXY. */
  ip: string;
  userAgent: string | undefined;
  /** `x-request-language`, else the best `accept-language` entry, else null. */
  requestLanguage: string | null;
  /** Receives the rate-limit headers as soon as they are known (success and every later error). */
  setHeaders(headers: RateLimitHeaders): void;
  /**
   * The API's callers authenticate as their client's token_endpoint_auth_method says (the
   * request headers carry HTTP Basic). The hosted login page starts for a client its
   * transaction already checked (client and callback), with no client credentials.
   */
  clientAuthentication: { headers: IncomingHttpHeaders } | 'hosted-login';
}

function startError(code: string, description: string): HttpError {
  return new HttpError(400, code, description);
}

/** Schema problems first, answered with the earliest code in START_REQUEST_VALIDATION_ORDER. */
export function parseStartRequest(body: unknown): StartRequest {
  const parsed = StartRequestSchema.safeParse(body);
  if (parsed.success) return parsed.data;
  const code = startRequestErrorCode(parsed.error.issues);
  const details = toErrorDetails(parsed.error.issues);
  const relevant = details.filter((d) => code === 'bad.request' || d.path.split('.')[0] === code.slice('bad.'.length));
  const description = (relevant.length ? relevant : details)
    .map((d) => (d.path ? `${d.path}: ${d.message}` : d.message))
    .join('; ');
  throw startError(code, description);
}

/**
 * Client exists -> it authenticates -> connection exists and is enabled for it -> valid
 * number (canonicalPhoneNumber: formatting allowed, `+` and country code required). The
 * client, the connection and the number's user come in one round trip, the user looked up
 * by the number's E.164 form (undefined for a number that has none, and for a number that
 * does not parse, which is refused anyway).
 */
export async function resolveStartTarget(
  store: IdentityStore,
  request: StartRequest,
  authenticateClient: (client: StoredClient) => Promise<unknown> = async () => undefined,
): Promise<{ client: StoredClient; connection: StoredConnection; user: StoredUser | undefined; number: CanonicalPhoneNumber }> {
  const parsed = canonicalPhoneNumber(request.phone_number);
  const { client, connection, user } = await store.passwordlessLogins.startContext(
    request.client_id,
    request.connection,
    parsed.ok ? parsed.number.e164 : request.phone_number,
  );
  if (!client) throw startError(ErrorCodes.BAD_CLIENT_ID, `Unknown client: ${request.client_id}`);
  // Before anything about the connection or the number is told (401 invalid_client).
  await authenticateClient(client);
  if (!connection || connection.strategy !== 'sms') throw startError(ErrorCodes.BAD_CONNECTION, 'Connection does not exist');
  if (!connection.enabled_clients.includes(client.client_id)) {
    throw startError(ErrorCodes.BAD_CONNECTION, 'Connection is disabled for this client');
  }
  if (!parsed.ok) throw startError(ErrorCodes.BAD_PHONE_NUMBER, parsed.description);
  return { client, connection, user, number: parsed.number };
}

/**
 * Counts the start against the caller's IP and, unless that already refuses it, against the
 * number (so one flooding address cannot use up a victim's per-number allowance) and, with
 * `send` and only when both allow the start, the SMS fraud guard's send: one statement.
 * Counters live in the database: every replica counts the same starts. `send` in the answer:
 * what counting the send found (undefined when none was given).
 */
export async function enforceStartRateLimits(
  store: IdentityStore,
  limits: StartRateLimits,
  who: { ip: string; phoneNumber: string },
  now: Date,
  send?: SmsSend,
): Promise<{ headers: RateLimitHeaders; send?: EarlySendCount }> {
  const { windowStart, resetAt } = rateLimitWindow(now);
  const ipLimit = limits.perIpPerHour;
  const counts = await store.passwordlessLogins.countStart(
    { key: `start:ip:${who.ip}`, limit: ipLimit },
    { key: `start:phone:${who.phoneNumber}`, limit: limits.perPhonePerHour },
    windowStart,
    send,
  );
  const ipCounter = { scope: 'ip', limit: ipLimit, count: counts.first, resetAt };
  if (counts.second === null) throw rateLimitedError(decideRateLimit([ipCounter], now));
  const phoneCounter = { scope: 'phone', limit: limits.perPhonePerHour, count: counts.second, resetAt };
  const decision = decideRateLimit([ipCounter, phoneCounter], now);
  if (!decision.allowed) throw rateLimitedError(decision);
  // Both limits allow the start, so a given send was counted (or found its prefix blocked).
  return { headers: decision.headers, ...(send && counts.send ? { send: { send, counted: counts.send } } : {}) };
}

/** Opaque id of one start: its `_id`, the delivery's Idempotency-Key, and the code's binding. */
function newStartId(): string {
  return randomBytes(12).toString('hex');
}

/**
 * `POST /passwordless/start`. The code row is written before the SMS goes out, so it exists
 * by the time the user can type it, and deleted again if the gateway does not answer 200.
 * A concurrent second start for the same number replaces the row (the newest start wins,
 * its code is the valid one); a failing start deletes only its own code, never a newer one.
 */
export async function startPasswordless(deps: StartDependencies, call: StartCall): Promise<StartResponse> {
  const request = parseStartRequest(call.body);
  const auth = call.clientAuthentication;
  const { client, connection, user, number } = await resolveStartTarget(
    deps.store,
    request,
    auth === 'hosted-login' ? undefined : (found) => deps.clientAuthenticator.authenticate(found, { body: request, headers: auth.headers }),
  );
  // From here on the number is its E.164 form only (stored, counted, sent to, echoed); `number` also tells its country and type.
  const phoneNumber = number.e164;
  const now = deps.clock.now();
  const sms = smsPolicyForStart(deps.smsPolicy, connection, number); // test numbers: fixed code, no limits, no SMS
  const log = startLogContext(client, connection, phoneNumber, call, user);
  const signupRefused = !user && connection.options.disable_signup;
  let early: EarlySendCount | undefined;
  if (!sms.testNumber) {
    // The fraud guard's send is counted with the rate limits only when nothing decided between
    // them (sign-up, blocked user, the SMS policy's rules) refuses the start: the order of
    // refusals stays rate limit, sign-up, blocked user, policy, and a refused start counts no send.
    const send = signupRefused || isBlockedUser(user) ? undefined : sms.sendToCountEarly(now);
    const counted = sms.countingRateLimits(enforceStartRateLimits(deps.store, deps.rateLimits, { ip: call.ip, phoneNumber }, now, send));
    const limited = await recordingRefusal(deps.store, 'api_limit', log, now, counted);
    call.setHeaders(limited.headers);
    early = limited.send;
  }

  // Telling "unknown number" apart enables user enumeration; README documents the trade-off.
  if (signupRefused) {
    await recordStartRefused(deps.store, 'fs', log, now);
    throw startError(ErrorCodes.BAD_CONNECTION, 'Public signup is disabled');
  }
  // A blocked user gets the block's error and no code: nothing is stored or sent.
  refuseBlockedUser(user);
  await recordingRefusal(deps.store, 'sms_start_refused', log, now, sms.enforce(early), (err) => ({ error: err.error, reason: err.errorDescription }));

  const authToken = gatewayToken(connection, now);
  const { time_step: step, length: digits } = connection.options.totp;
  const secret = generateOtpSecret();
  const code = computeOtp(secret, { issuedAt: now, step, digits });
  const key = { connection_id: connection.id, phone_number: phoneNumber, request_id: newStartId() };
  await deps.store.codes.issue({
    ...key,
    client_id: client.client_id,
    auth_params: request.authParams ?? {},
    secret,
    issued_at: now,
    expires_at: codeExpiresAt(now, step),
    time_step: step,
    digits,
  });

  try {
    if (!sms.testNumber) await deps.smsGateway.deliverSms({
      gatewayUrl: connection.options.gateway_url,
      payload: deliveryPayload(connection, client, phoneNumber, code, { ...call, send: request.send }),
      authToken,
      idempotencyKey: key.request_id,
    });
  } catch (err) {
    // The caller learns why delivery failed even if the discard fails too.
    await discardUnsentCode(deps.store, key, log, now, err);
    throw err;
  }
  deps.smsMetrics.sent.inc({ country: countryLabel(number) });
  await recordCodeSent(deps.store, log, now, key.request_id);
  deps.logger.info(
    { connection: connection.name, client_id: client.client_id, recipient: maskPhoneNumber(phoneNumber), start_id: key.request_id },
    'passwordless code sent',
  );
  return {
    _id: key.request_id,
    phone_number: phoneNumber,
    request_language: call.requestLanguage,
    phone_verified: reportedPhoneVerified(connection, user),
  };
}

/**
 * `phone_verified` as start reports it. Where anyone may sign up, a true value would tell a
 * number with a user from one without (user enumeration), so it stays false: the number is
 * not verified by this start until its code is exchanged (spec §3). With disable_signup,
 * start already refuses numbers without a user, so the stored value reveals nothing more.
 */
export function reportedPhoneVerified(connection: StoredConnection, user: { phone_verified: boolean } | undefined): boolean {
  return connection.options.disable_signup ? (user?.phone_verified ?? false) : false;
}
