import { ErrorCodes, type DeliveryChannel, type SmsFraudGuard } from '@smsauth/contracts';
import { HttpError, maskPhoneNumber, type Clock, type Logger } from '@smsauth/service-kit';
import type { IdentityStore, SmsSend, SmsSendCounted, SmsVerificationCount, StoredConnection } from '../../store';
import { decideRateLimit, rateLimitedError, rateLimitWindow, type RateLimitCounter } from '../passwordless/rate-limits';
import { otpMatches } from '../passwordless/otp';
import type { SmsPolicyMetrics, SmsStartRefusalReason } from './metrics';
import type { CanonicalPhoneNumber } from '../phone/canonical-number';
import { channelNoun } from '../passwordless/channels';
import { looksPumped, smsNumberFacts, smsPolicyOf, staticRefusal, type SmsNumberFacts, type SmsPolicy } from './policy';

export interface SmsPolicyDependencies {
  store: Pick<IdentityStore, 'rateLimits' | 'smsFraudGuard'>;
  clock: Clock;
  logger: Pick<Logger, 'info' | 'warn'>;
  metrics: SmsPolicyMetrics;
  /** False when NODE_ENV=production without ALLOW_TEST_NUMBERS=true (config.ts). */
  testNumbersAllowed: boolean;
}

/** A start's number under its connection's SMS policy (smsPolicyForStart). */
export interface SmsStartPolicy {
  /** A connection test number: no SMS, no limits (not even per IP and number), its fixed code logs in. */
  testNumber: boolean;
  /**
   * Countries and number types, then (unless the number is on the safe list) velocity limits
   * per country and prefix and the fraud guard; nothing for a test number. Called just before
   * the code is stored, so what it counts as a send is a start that sends.
   */
  enforce(early?: EarlySendCount): Promise<void>;
  /**
   * The fraud guard's send, for the caller to count in the statement that counts the start's
   * rate limits (one round trip less), when nothing enforce decides before the fraud guard can
   * refuse or skip the start: no country or number-type rule refuses it, the number is not on
   * the safe list, no velocity limit is set, and the guard is not `off`. Undefined otherwise:
   * enforce counts the send itself, after the velocity limits. Only for a start nothing else
   * refuses between the rate limits and enforce (sign-up, blocked user): the send must be one
   * that is sent.
   */
  sendToCountEarly(now: Date): SmsSend | undefined;
  /** Passes the per-IP and per-number start limits' answer through; their 429 is a `rate_limit` refusal (counted, logged). */
  countingRateLimits<T>(check: Promise<T>): Promise<T>;
}

/** Why the SMS policy refused a start, for its tenant log record; `blocked` when this start made the fraud guard block the prefix. */
export interface SmsRefusalFacts {
  reason: SmsStartRefusalReason;
  prefix?: string;
  blocked?: { prefix: string; until: Date };
}

const refusalFacts = new WeakMap<object, SmsRefusalFacts>();

/** The facts of a refusal smsPolicyForStart threw (undefined for any other error). */
export function smsRefusalFactsOf(err: unknown): SmsRefusalFacts | undefined {
  return typeof err === 'object' && err !== null ? refusalFacts.get(err) : undefined;
}

const TEST_NUMBERS_DISABLED = 'Test numbers are disabled on this deployment (NODE_ENV=production without ALLOW_TEST_NUMBERS=true)';

/**
 * Reads a start's number against its connection's SMS policy. A refusal (400
 * bad.phone_number, or 429 too_many_requests with X-RateLimit-* and Retry-After) is thrown
 * before anything is stored or sent, logged once and counted in sms_start_refusals_total.
 * A test number is refused at once where test numbers are not allowed.
 */
export function smsPolicyForStart(
  deps: SmsPolicyDependencies,
  connection: StoredConnection,
  number: CanonicalPhoneNumber,
  /**
   * The channel the start sends by first. Every channel is under the same rules and counters
   * (pumping by voice call is the same fraud as by SMS, and a start counts once however many
   * channels it tries); refusals name this one.
   */
  channel: DeliveryChannel = 'sms',
): SmsStartPolicy {
  const phoneNumber = number.e164;
  const policy = smsPolicyOf(connection.options);
  const refuse = (reason: SmsStartRefusalReason, error: HttpError, country?: string, facts?: Omit<SmsRefusalFacts, 'reason'>): never => {
    deps.metrics.refused(reason, channel);
    refusalFacts.set(error, { reason, ...facts });
    deps.logger.warn(
      { connection: connection.name, recipient: maskPhoneNumber(phoneNumber), country, reason, channel },
      'passwordless start refused before sending',
    );
    throw error;
  };

  if (policy.testNumbers.has(phoneNumber)) {
    if (!deps.testNumbersAllowed) refuse('test_numbers_disabled', new HttpError(400, ErrorCodes.BAD_PHONE_NUMBER, TEST_NUMBERS_DISABLED));
    deps.metrics.testNumberUsed('start');
    deps.logger.warn({ connection: connection.name, recipient: maskPhoneNumber(phoneNumber) }, 'test number start: no SMS sent');
    return { testNumber: true, enforce: async () => undefined, sendToCountEarly: () => undefined, countingRateLimits: (check) => check };
  }
  const facts = smsNumberFacts(number, policy.prefixDigits);
  return {
    testNumber: false,
    enforce: (early) => enforceSmsPolicy(deps, connection, policy, { e164: phoneNumber, facts }, refuse, early, channelNoun(channel)),
    sendToCountEarly: (now) => {
      const skipsOrMayRefuseFirst =
        staticRefusal(policy, facts) !== null || policy.safeList.has(phoneNumber) || hasVelocityLimits(policy) || policy.fraudGuard.mode === 'off';
      return skipsOrMayRefuseFirst ? undefined : fraudGuardSend(connection, policy.fraudGuard, facts.prefix, now);
    },
    countingRateLimits: (check) =>
      check.catch((err: unknown) => (err instanceof HttpError && err.status === 429 ? refuse('rate_limit', err) : Promise.reject(err))),
  };
}

/** A fraud guard send counted with the start's rate limits (SmsStartPolicy.sendToCountEarly), and what counting it found. */
export interface EarlySendCount {
  send: SmsSend;
  counted: SmsSendCounted;
}

function hasVelocityLimits(policy: SmsPolicy): boolean {
  return policy.perCountryPerHour !== null || policy.perPrefixPerHour !== null;
}

function fraudGuardSend(connection: StoredConnection, guard: SmsFraudGuard, prefix: string, now: Date): SmsSend {
  const { windowStart } = rateLimitWindow(now, guard.window_minutes * 60);
  return { connectionId: connection.id, prefix, windowStart, now, honourBlocks: guard.mode === 'block' };
}

async function enforceSmsPolicy(
  deps: SmsPolicyDependencies,
  connection: StoredConnection,
  policy: SmsPolicy,
  number: { e164: string; facts: SmsNumberFacts },
  refuse: (reason: SmsStartRefusalReason, error: HttpError, country?: string, facts?: Omit<SmsRefusalFacts, 'reason'>) => never,
  early: EarlySendCount | undefined,
  noun: string,
): Promise<void> {
  const { e164: phoneNumber, facts } = number;
  const rule = staticRefusal(policy, facts, noun);
  if (rule) refuse(rule.reason, new HttpError(400, ErrorCodes.BAD_PHONE_NUMBER, rule.description), facts.country);
  if (policy.safeList.has(phoneNumber)) return;

  // With an early count there is no velocity limit (sendToCountEarly), and its clock is the start's.
  const now = early?.send.now ?? deps.clock.now();
  const velocity = await velocityDecision(deps, connection, policy, facts, now);
  if (velocity && !velocity.allowed) refuse('velocity', rateLimitedError(velocity), facts.country);

  const guard = policy.fraudGuard;
  if (guard.mode === 'off') return;
  const send = early?.send ?? fraudGuardSend(connection, guard, facts.prefix, now);
  const counted = early?.counted ?? (await deps.store.smsFraudGuard.countSend(send));
  const { windowStart } = send;
  if (counted.blockedUntil) refuse('fraud_guard', fraudGuardError(guard.min_sends, counted.blockedUntil, now, noun), facts.country, { prefix: facts.prefix });
  if (counted.blockedUntil !== null || !looksPumped(guard, counted.counts)) return;
  const { counts } = counted;
  deps.metrics.pumpingDetected(guard.mode);
  if (guard.mode === 'block') {
    const blockedUntil = new Date(now.getTime() + guard.block_minutes * 60_000);
    await deps.store.smsFraudGuard.block(connection.id, facts.prefix, { windowStart, counts }, now, blockedUntil);
    deps.logger.warn(
      { connection: connection.name, prefix: facts.prefix, sends: counts.sends - 1, verified: counts.verified, blocked_until: blockedUntil },
      'SMS fraud guard blocked a prefix: many codes sent, few verified',
    );
    refuse('fraud_guard', fraudGuardError(guard.min_sends, blockedUntil, now, noun), facts.country, { prefix: facts.prefix, blocked: { prefix: facts.prefix, until: blockedUntil } });
  }
  // monitor: reported once per min_sends sends, never refused.
  if ((counts.sends - 1) % guard.min_sends === 0) {
    deps.logger.warn(
      { connection: connection.name, prefix: facts.prefix, sends: counts.sends - 1, verified: counts.verified },
      'SMS fraud guard (monitor): a prefix looks pumped; block mode would refuse it',
    );
  }
}

/** Per-country and per-prefix hourly counters (rate_limit_counters, shared by replicas); null when neither is set. */
async function velocityDecision(deps: SmsPolicyDependencies, connection: StoredConnection, policy: SmsPolicy, facts: SmsNumberFacts, now: Date) {
  const { windowStart, resetAt } = rateLimitWindow(now);
  const counters: RateLimitCounter[] = [];
  if (policy.perCountryPerHour !== null) {
    const key = `sms:country:${connection.id}:${facts.country ?? facts.prefix}`;
    counters.push({ scope: 'country', limit: policy.perCountryPerHour, count: await deps.store.rateLimits.hit(key, windowStart), resetAt });
  }
  if (policy.perPrefixPerHour !== null && (counters.length === 0 || counters[0]!.count <= counters[0]!.limit)) {
    const key = `sms:prefix:${connection.id}:${facts.prefix}`;
    counters.push({ scope: 'prefix', limit: policy.perPrefixPerHour, count: await deps.store.rateLimits.hit(key, windowStart), resetAt });
  }
  return counters.length ? decideRateLimit(counters, now) : null;
}

/**
 * A blocked prefix answers as Auth0 answers attack protection: 429 too_many_requests, with
 * Retry-After at the block's expiry, so clients that already handle rate limits need nothing new.
 */
function fraudGuardError(minSends: number, blockedUntil: Date, now: Date, noun: string): HttpError {
  const decision = decideRateLimit([{ scope: 'fraud_guard', limit: minSends, count: minSends + 1, resetAt: blockedUntil }], now);
  return new HttpError(429, ErrorCodes.TOO_MANY_REQUESTS, `${noun} to this number range ${noun === 'SMS' ? 'is' : 'are'} temporarily blocked: too few codes sent to it were used`, {
    headers: { ...decision.headers },
  });
}

/** What a verified code means to the fraud guard (smsVerificationOf). */
export interface SmsVerification {
  /** A connection test number: no count, but the login is reported (reportSmsVerification). */
  testNumber: boolean;
  /** The prefix counter the login bumps, or undefined: test and safe-listed numbers, fraud guard `off`. */
  count: SmsVerificationCount | undefined;
}

/**
 * Decides, before the code is consumed, what its verification counts for the fraud guard
 * (its conversion): the store counts it in the statement that records the login. Test and
 * safe-listed numbers were never counted as sends, so they are not counted here either.
 */
export function smsVerificationOf(
  connection: StoredConnection,
  numberOrE164: CanonicalPhoneNumber | string,
  now: Date,
): SmsVerification {
  const phoneNumber = typeof numberOrE164 === 'string' ? numberOrE164 : numberOrE164.e164;
  const policy = smsPolicyOf(connection.options);
  if (policy.testNumbers.has(phoneNumber)) return { testNumber: true, count: undefined };
  if (policy.fraudGuard.mode === 'off' || policy.safeList.has(phoneNumber)) return { testNumber: false, count: undefined };
  const { windowStart } = rateLimitWindow(now, policy.fraudGuard.window_minutes * 60);
  return { testNumber: false, count: { prefix: smsNumberFacts(numberOrE164, policy.prefixDigits).prefix, windowStart } };
}

/** After the login was recorded: a test number's login is counted and logged. */
export function reportSmsVerification(
  deps: Pick<SmsPolicyDependencies, 'metrics' | 'logger'>,
  connection: StoredConnection,
  phoneNumber: string,
  verification: SmsVerification,
): void {
  if (!verification.testNumber) return;
  deps.metrics.testNumberUsed('login');
  deps.logger.warn({ connection: connection.name, recipient: maskPhoneNumber(phoneNumber) }, 'test number login');
}

/** True when `candidate` is the fixed code of a test number this deployment allows. */
export function isTestNumberCode(deps: Pick<SmsPolicyDependencies, 'testNumbersAllowed'>, connection: StoredConnection, phoneNumber: string, candidate: string): boolean {
  const code = deps.testNumbersAllowed ? smsPolicyOf(connection.options).testNumbers.get(phoneNumber) : undefined;
  return code !== undefined && otpMatches(candidate, code);
}
