import { createHash, randomBytes } from 'node:crypto';
import {
  ErrorCodes,
  IdempotencyKeySchema,
  StartRequestSchema,
  startRequestErrorCode,
  toErrorDetails,
  DeliveryChannelSchema,
  UNKNOWN_PROVIDER,
  type DeliveryChannel,
  type StartRequest,
  type StartResponse,
} from '@smsauth/contracts';
import type { IncomingHttpHeaders } from 'node:http';
import { HttpError, maskPhoneNumber, type Logger, type Clock } from '@smsauth/service-kit';
import type { IdentityStore, SmsSend, StoredClient, StoredConnection, StoredStartKey, StoredUser } from '../../store';
import type { ClientAuthenticator } from '../oauth/client-auth';
import { canonicalPhoneNumber, type CanonicalPhoneNumber } from '../phone/canonical-number';
import { smsPolicyForStart, smsRefusalFactsOf, type EarlySendCount, type SmsPolicyDependencies } from '../sms-policy/guard';
import { codeSentAheadRecord, discardUnsentCode, recordingRefusal, recordStartRefused, startLogContext } from '../logs/login-events';
import type { LogContext } from '../logs/tenant-log';
import { isBlockedUser, refuseBlockedUser } from './blocked-user';
import { decideRateLimit, rateLimitedError, rateLimitWindow, type RateLimitHeaders } from './rate-limits';
import { codeExpiresAt } from './code-state';
import { computeOtp, generateOtpSecret } from './otp';
import { channelPlan } from './channels';
import { chooseMessageLanguage } from './message-language';
import { SmsProviderError, type SmsGateway } from './sms-gateway';
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
  /**
   * The hosted login page's language, when the start comes from the page: the default messages
   * speak it before request_language and the number's country (chooseMessageLanguage).
   */
  pageLanguage?: string | undefined;
  /** Receives the rate-limit headers as soon as they are known (success and every later error). */
  setHeaders(headers: RateLimitHeaders): void;
  /**
   * The API's callers authenticate as their client's token_endpoint_auth_method says (the
   * request headers carry HTTP Basic). The hosted login page starts for a client its
   * transaction already checked (client and callback), with no client credentials.
   */
  clientAuthentication: { headers: IncomingHttpHeaders } | 'hosted-login';
  /**
   * The request's `Idempotency-Key` header, if any: a retry with it, while the start's code is
   * valid, gets the first start's answer and sends nothing more (docs/identity.md, "Idempotent starts").
   */
  idempotencyKey?: string | undefined;
  /** Told when the answer is a retry's (the route sets `Idempotent-Replayed: true`). */
  replayed?: () => void;
}

/**
 * What a policy refusal's record says: the error, its text and why (`refusal`: country,
 * number_type, velocity, fraud_guard...), with the prefix the fraud guard refused and, when
 * this start made it block the prefix, until when (the guard's decision, on the number's timeline).
 */
function smsRefusalDetails(err: HttpError): Record<string, unknown> {
  const facts = smsRefusalFactsOf(err);
  return {
    error: err.error,
    reason: err.errorDescription,
    ...(facts ? { refusal: facts.reason } : {}),
    ...(facts?.prefix ? { prefix: facts.prefix } : {}),
    ...(facts?.blocked ? { prefix_blocked_until: facts.blocked.until.toISOString() } : {}),
  };
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
  // A channel the connection does not allow for this number is refused before anything is counted.
  let channels = channelPlan(connection, number, request.channel);
  const sms = smsPolicyForStart(deps.smsPolicy, connection, number, channels[0]); // test numbers: fixed code, no limits, no SMS
  const log = startLogContext(client, connection, phoneNumber, call, user);
  // Refusals name the channel the start would have gone by first (the figures count them by it).
  const refusedOn = { channel: channels[0] };
  const signupRefused = !user && connection.options.disable_signup;
  const idempotency = readIdempotencyKey(call.idempotencyKey, request, phoneNumber);
  if (idempotency) {
    // A retry of a start this client made with the key: nothing is counted again.
    const found = await deps.store.passwordlessLogins.findStartKey(client.client_id, idempotency.key, now);
    if (found) return resumeKeyedStart(deps, call, { request, client, connection, user, number, log, now, channels }, idempotency, found);
  }
  let early: EarlySendCount | undefined;
  if (!sms.testNumber) {
    // The fraud guard's send is counted with the rate limits only when nothing decided between
    // them (sign-up, blocked user, the SMS policy's rules) refuses the start: the order of
    // refusals stays rate limit, sign-up, blocked user, policy, and a refused start counts no send.
    const send = signupRefused || isBlockedUser(user) ? undefined : sms.sendToCountEarly(now);
    const counted = sms.countingRateLimits(enforceStartRateLimits(deps.store, deps.rateLimits, { ip: call.ip, phoneNumber }, now, send));
    const limited = await recordingRefusal(deps.store, 'api_limit', log, now, counted, (refusal) => ({ error: refusal.error, ...refusedOn }));
    call.setHeaders(limited.headers);
    early = limited.send;
  }

  // Telling "unknown number" apart enables user enumeration; docs/identity.md documents the trade-off.
  if (signupRefused) {
    await recordStartRefused(deps.store, 'fs', log, now, refusedOn);
    throw startError(ErrorCodes.BAD_CONNECTION, 'Public signup is disabled');
  }
  // A blocked user gets the block's error and no code: nothing is stored or sent.
  if (isBlockedUser(user)) await recordStartRefused(deps.store, 'sms_start_blocked_user', log, now, refusedOn);
  refuseBlockedUser(user);
  await recordingRefusal(deps.store, 'sms_start_refused', log, now, sms.enforce(early), (err) => ({ ...smsRefusalDetails(err), ...refusedOn }));
  if (!sms.testNumber && request.channel === undefined && channels.length > 1) {
    const avoid = await channelThatFailedLastTime(deps, connection, phoneNumber, now);
    if (avoid) channels = channelPlan(connection, number, undefined, avoid);
  }

  const { time_step: step, length: digits } = connection.options.totp;
  const secret = generateOtpSecret();
  const key = { connection_id: connection.id, phone_number: phoneNumber, request_id: newStartId() };
  const record = codeSentAheadRecord(log, now, key.request_id, sms.testNumber ? 'test_number' : 'pending');
  const response = startResponse(key.request_id, phoneNumber, call, connection, user);
  // Written ahead: the code, its `cs` record and the start's key commit before the SMS is
  // attempted, so a replica that dies mid-delivery leaves a record whose outcome is unknown,
  // never an SMS without one.
  const claimed = await deps.store.passwordlessLogins.issueCodeAhead(
    {
      ...key,
      client_id: client.client_id,
      auth_params: request.authParams ?? {},
      secret,
      issued_at: now,
      expires_at: codeExpiresAt(now, step),
      time_step: step,
      digits,
    },
    record,
    idempotency ? { clientId: client.client_id, idempotencyKey: idempotency.key, fingerprint: idempotency.fingerprint } : undefined,
  );
  if (!claimed) {
    // The same key was claimed by a concurrent retry a moment ago: continue that start.
    const again = idempotency ? await deps.store.passwordlessLogins.findStartKey(client.client_id, idempotency.key, now) : undefined;
    if (!again || !idempotency) throw startInProgress();
    return resumeKeyedStart(deps, call, { request, client, connection, user, number, log, now, channels }, idempotency, again);
  }
  await deliverAndSettle(deps, call, { request, client, connection, user, number, log, now, channels }, {
    key,
    code: sms.testNumber ? undefined : computeOtp(secret, { issuedAt: now, step, digits }),
    logId: record.log_id,
    response,
    ...(idempotency ? { idempotency } : {}),
  });
  return response;
}

/** A start's Idempotency-Key, and what makes a retry with it "the same start". */
interface StartIdempotency {
  key: string;
  fingerprint: string;
}

/** What a start has resolved by the time it sends. */
interface ResolvedStart {
  request: StartRequest;
  client: StoredClient;
  connection: StoredConnection;
  user: StoredUser | undefined;
  number: CanonicalPhoneNumber;
  log: LogContext;
  now: Date;
  /** The channels to try, in order (channelPlan). */
  channels: readonly DeliveryChannel[];
}

function startResponse(startId: string, phoneNumber: string, call: StartCall, connection: StoredConnection, user: StoredUser | undefined): StartResponse {
  // `channel` is added once a channel took the code (deliverAndSettle).
  return {
    _id: startId,
    phone_number: phoneNumber,
    request_language: call.requestLanguage,
    phone_verified: reportedPhoneVerified(connection, user),
  };
}

function readIdempotencyKey(header: string | undefined, request: StartRequest, phoneNumber: string): StartIdempotency | undefined {
  if (header === undefined) return undefined;
  const parsed = IdempotencyKeySchema.safeParse(header);
  if (!parsed.success) throw new HttpError(400, ErrorCodes.INVALID_REQUEST, `Idempotency-Key header: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
  const fingerprint = createHash('sha256')
    .update(JSON.stringify([request.connection, phoneNumber, request.send ?? null, request.authParams ?? null, ...(request.channel ? [request.channel] : [])]))
    .digest('base64url');
  return { key: parsed.data, fingerprint };
}

function startInProgress(): HttpError {
  return new HttpError(409, ErrorCodes.INVALID_REQUEST, 'A start with this Idempotency-Key is in progress; retry with the same key');
}

/**
 * Sends the code (unless it is a test number's) under the start's id as the gateway's
 * Idempotency-Key, then writes the outcome: `sent` (and a keyed start's answer), or, on a
 * failure, the code discarded with `failed` and `fn`. A keyed start whose gateway did not say
 * (503, timeout, 502) keeps its code and key, marked `unknown`: its retry delivers the same
 * code under the same gateway key, which sends it at most once.
 */
async function deliverAndSettle(
  deps: StartDependencies,
  call: StartCall,
  start: ResolvedStart,
  sending: { key: { connection_id: string; phone_number: string; request_id: string }; code: string | undefined; logId: string | undefined; response: StartResponse; idempotency?: StartIdempotency },
): Promise<void> {
  const { client, connection, number, log, now } = start;
  const { key, code, idempotency } = sending;
  const phoneNumber = number.e164;
  let channel: DeliveryChannel | undefined;
  let messageId: string | undefined;
  let provider: string | undefined;
  try {
    if (code !== undefined) ({ channel, messageId, provider } = await deliverByFirstChannelThatTakes(deps, call, start, key.request_id, code));
  } catch (err) {
    const unknownOutcome = err instanceof SmsProviderError && (err.retryable || err.failure === 'timeout');
    if (idempotency && unknownOutcome) {
      await deps.store.passwordlessLogins.settleStart(sending.logId, { delivery: 'unknown' }).catch(() => undefined);
      throw err;
    }
    // The caller learns why delivery failed even if the discard fails too.
    await discardUnsentCode(deps.store, key, log, now, err, {
      logId: sending.logId,
      ...(idempotency ? { key: { clientId: client.client_id, idempotencyKey: idempotency.key } } : {}),
    }, start.channels[0]);
    throw err;
  }
  if (channel !== undefined) {
    sending.response.channel = channel;
    deps.smsMetrics.sent.inc({ country: countryLabel(number), channel });
    // A code's channel is kept when it is not SMS, its provider when the gateway named one (its
    // login then counts under them); an SMS code through a gateway that names none costs no write.
    if (channel !== 'sms' || provider !== undefined) {
      await deps.store.codes
        .recordDelivery(key, { channel: channel === 'sms' ? null : channel, provider: provider ?? null })
        .catch((err: unknown) => deps.logger.info({ err: { message: (err as Error).message } }, 'could not record the code channel'));
    }
    // Only where there is another channel to prefer next time (no write for SMS-only connections).
    if (start.channels.length > 1) {
      await deps.store.lastDeliveries
        .record(connection.id, phoneNumber, { channel, gateway_message_id: messageId ?? null, sent_at: now }, new Date(now.getTime() - LAST_DELIVERY_RELEVANCE_MS))
        .catch((err: unknown) => deps.logger.info({ err: { message: (err as Error).message } }, 'could not record the last delivery channel'));
    }
  }
  if (code !== undefined || idempotency) {
    await deps.store.passwordlessLogins.settleStart(
      code !== undefined ? sending.logId : undefined,
      { delivery: 'sent', ...(channel ? { channel, provider: provider ?? UNKNOWN_PROVIDER } : {}) },
      idempotency ? { clientId: client.client_id, idempotencyKey: idempotency.key, startId: key.request_id, response: { ...sending.response } } : undefined,
    );
  }
  deps.logger.info(
    { connection: connection.name, client_id: client.client_id, recipient: maskPhoneNumber(phoneNumber), start_id: key.request_id, channel },
    'passwordless code sent',
  );
}

/**
 * Sends the code by the start's channels in order until the gateway takes it: a channel whose
 * route could not take the message (the gateway answered something other than 200, 401 or
 * "try again": every provider of the route failed or refused) passes to the next. A gateway
 * that is away, slow or refuses our token fails the start at once: another channel would go
 * through the same gateway. The first channel keeps the start's id as the gateway's
 * Idempotency-Key (as before channels); the others add their name, so each is its own message.
 */
async function deliverByFirstChannelThatTakes(
  deps: StartDependencies,
  call: StartCall,
  start: ResolvedStart,
  startId: string,
  code: string,
): Promise<{ channel: DeliveryChannel; messageId?: string; provider?: string }> {
  const { request, client, connection, number, now, channels } = start;
  const { language: messageLanguage } = chooseMessageLanguage({ pageLanguage: call.pageLanguage, requestLanguage: call.requestLanguage, country: number.country });
  for (const [index, channel] of channels.entries()) {
    try {
      const { messageId, provider } = await deps.smsGateway.deliverSms({
        gatewayUrl: connection.options.gateway_url,
        payload: deliveryPayload(connection, client, number.e164, code, { ...call, messageLanguage, send: request.send }, channel),
        authToken: gatewayToken(connection, now),
        idempotencyKey: index === 0 ? startId : `${startId}.${channel}`,
      });
      return { channel, ...(messageId !== undefined ? { messageId } : {}), ...(provider !== undefined ? { provider } : {}) };
    } catch (err) {
      const next = channels[index + 1];
      if (next === undefined || !(err instanceof SmsProviderError) || err.failure !== 'unexpected_status') throw err;
      deps.logger.info(
        { connection: connection.name, recipient: maskPhoneNumber(number.e164), start_id: startId, channel, next, status: err.gatewayStatus },
        'passwordless code: the channel could not take the message; trying the next one',
      );
    }
  }
  throw new Error('a start has at least one channel');
}

/** The gateway keeps message statuses a day; an older delivery says nothing about today. */
const LAST_DELIVERY_RELEVANCE_MS = 24 * 3600_000;

/**
 * The channel of this number's last code when the gateway's receipts say it did not arrive
 * (`undelivered`, `failed`): the next start then tries the connection's next channel first.
 * Undefined when there was none, it arrived (or may still), or the gateway cannot say.
 */
async function channelThatFailedLastTime(
  deps: StartDependencies,
  connection: StoredConnection,
  phoneNumber: string,
  now: Date,
): Promise<DeliveryChannel | undefined> {
  if (!deps.smsGateway.messageStatus) return undefined;
  const last = await deps.store.lastDeliveries.find(connection.id, phoneNumber, new Date(now.getTime() - LAST_DELIVERY_RELEVANCE_MS));
  if (!last?.gateway_message_id) return undefined;
  const parsed = DeliveryChannelSchema.safeParse(last.channel);
  if (!parsed.success) return undefined;
  const status = await deps.smsGateway.messageStatus({
    gatewayUrl: connection.options.gateway_url,
    messageId: last.gateway_message_id,
    ...withAuthToken(gatewayTokenOrNone(connection, now)),
  });
  if (status !== 'undelivered' && status !== 'failed') return undefined;
  deps.logger.info(
    { connection: connection.name, recipient: maskPhoneNumber(phoneNumber), channel: parsed.data, status },
    'passwordless start: the last code to this number was not delivered; trying the next channel first',
  );
  return parsed.data;
}

function gatewayTokenOrNone(connection: StoredConnection, now: Date): string | undefined {
  try {
    return gatewayToken(connection, now);
  } catch {
    // The delivery itself reports an unusable token; the look-up just goes without.
    return undefined;
  }
}

function withAuthToken(token: string | undefined): { authToken?: string } {
  return token === undefined ? {} : { authToken: token };
}

/**
 * A retry with the key of an earlier start: its answer when settled; otherwise (the replica
 * died mid-delivery, or the gateway did not say) the same code delivered again under the same
 * gateway key, so the gateway sends it at most once. A code since used, replaced or expired
 * ends the start: its answer is given and nothing is sent.
 */
async function resumeKeyedStart(
  deps: StartDependencies,
  call: StartCall,
  start: ResolvedStart,
  idempotency: StartIdempotency,
  found: StoredStartKey,
): Promise<StartResponse> {
  if (found.fingerprint !== idempotency.fingerprint) {
    throw new HttpError(422, ErrorCodes.INVALID_REQUEST, 'This Idempotency-Key was already used for a different start; use a new key per start');
  }
  call.replayed?.();
  if (found.response) return found.response as unknown as StartResponse;
  const { connection, number, now } = start;
  const response = startResponse(found.start_id, number.e164, call, connection, start.user);
  const stored = await deps.store.codes.find(connection.id, number.e164);
  if (!stored || stored.request_id !== found.start_id || stored.used || stored.expires_at <= now) return response;
  const testNumber = smsPolicyForStart(deps.smsPolicy, connection, number, start.channels[0]).testNumber;
  await deliverAndSettle(deps, call, start, {
    key: { connection_id: connection.id, phone_number: number.e164, request_id: found.start_id },
    code: testNumber ? undefined : computeOtp(stored.secret, { issuedAt: stored.issued_at, step: stored.time_step, digits: stored.digits }),
    logId: found.log_id ?? undefined,
    response,
    idempotency,
  });
  return response;
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
