import { ErrorCodes } from '@smsauth/contracts';
import { HttpError, maskPhoneNumber, type Clock, type Logger } from '@smsauth/service-kit';
import type { IdentityStore, StoredConnection } from '../../store';
import { decideRateLimit, rateLimitedError, rateLimitWindow, type RateLimitCounter } from '../passwordless/rate-limits';
import { otpMatches } from '../passwordless/otp';
import type { SmsPolicyMetrics, SmsStartRefusalReason } from './metrics';
import type { CanonicalPhoneNumber } from '../phone/canonical-number';
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
  enforce(): Promise<void>;
  /** Passes the per-IP and per-number start limits' answer through; their 429 is a `rate_limit` refusal (counted, logged). */
  countingRateLimits<T>(check: Promise<T>): Promise<T>;
}

const TEST_NUMBERS_DISABLED = 'Test numbers are disabled on this deployment (NODE_ENV=production without ALLOW_TEST_NUMBERS=true)';

/**
 * Reads a start's number against its connection's SMS policy. A refusal (400
 * bad.phone_number, or 429 too_many_requests with X-RateLimit-* and Retry-After) is thrown
 * before anything is stored or sent, logged once and counted in sms_start_refusals_total.
 * A test number is refused at once where test numbers are not allowed.
 */
export function smsPolicyForStart(deps: SmsPolicyDependencies, connection: StoredConnection, number: CanonicalPhoneNumber): SmsStartPolicy {
  const phoneNumber = number.e164;
  const policy = smsPolicyOf(connection.options);
  const refuse = (reason: SmsStartRefusalReason, error: HttpError, country?: string): never => {
    deps.metrics.refused(reason);
    deps.logger.warn(
      { connection: connection.name, recipient: maskPhoneNumber(phoneNumber), country, reason },
      'passwordless start refused before sending',
    );
    throw error;
  };

  if (policy.testNumbers.has(phoneNumber)) {
    if (!deps.testNumbersAllowed) refuse('test_numbers_disabled', new HttpError(400, ErrorCodes.BAD_PHONE_NUMBER, TEST_NUMBERS_DISABLED));
    deps.metrics.testNumberUsed('start');
    deps.logger.warn({ connection: connection.name, recipient: maskPhoneNumber(phoneNumber) }, 'test number start: no SMS sent');
    return { testNumber: true, enforce: async () => undefined, countingRateLimits: (check) => check };
  }
  return {
    testNumber: false,
    enforce: () => enforceSmsPolicy(deps, connection, policy, number, refuse),
    countingRateLimits: (check) =>
      check.catch((err: unknown) => (err instanceof HttpError && err.status === 429 ? refuse('rate_limit', err) : Promise.reject(err))),
  };
}

async function enforceSmsPolicy(
  deps: SmsPolicyDependencies,
  connection: StoredConnection,
  policy: SmsPolicy,
  number: CanonicalPhoneNumber,
  refuse: (reason: SmsStartRefusalReason, error: HttpError, country?: string) => never,
): Promise<void> {
  const phoneNumber = number.e164;
  const facts = smsNumberFacts(number, policy.prefixDigits);
  const rule = staticRefusal(policy, facts);
  if (rule) refuse(rule.reason, new HttpError(400, ErrorCodes.BAD_PHONE_NUMBER, rule.description), facts.country);
  if (policy.safeList.has(phoneNumber)) return;

  const now = deps.clock.now();
  const velocity = await velocityDecision(deps, connection, policy, facts, now);
  if (velocity && !velocity.allowed) refuse('velocity', rateLimitedError(velocity), facts.country);

  const guard = policy.fraudGuard;
  if (guard.mode === 'off') return;
  const { windowStart } = rateLimitWindow(now, guard.window_minutes * 60);
  const counted = await deps.store.smsFraudGuard.countSend(connection.id, facts.prefix, windowStart, now, guard.mode === 'block');
  if (counted.blockedUntil) refuse('fraud_guard', fraudGuardError(guard.min_sends, counted.blockedUntil, now), facts.country);
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
    refuse('fraud_guard', fraudGuardError(guard.min_sends, blockedUntil, now), facts.country);
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
function fraudGuardError(minSends: number, blockedUntil: Date, now: Date): HttpError {
  const decision = decideRateLimit([{ scope: 'fraud_guard', limit: minSends, count: minSends + 1, resetAt: blockedUntil }], now);
  return new HttpError(429, ErrorCodes.TOO_MANY_REQUESTS, 'SMS to this number range is temporarily blocked: too few codes sent to it were used', {
    headers: { ...decision.headers },
  });
}

/**
 * A code was verified: counted for its prefix (the fraud guard's conversion). Test and
 * safe-listed numbers were never counted as sends, so they are not counted here either.
 */
export async function recordSmsVerification(
  deps: SmsPolicyDependencies,
  connection: StoredConnection,
  numberOrE164: CanonicalPhoneNumber | string,
): Promise<void> {
  const phoneNumber = typeof numberOrE164 === 'string' ? numberOrE164 : numberOrE164.e164;
  const policy = smsPolicyOf(connection.options);
  if (policy.testNumbers.has(phoneNumber)) {
    deps.metrics.testNumberUsed('login');
    deps.logger.warn({ connection: connection.name, recipient: maskPhoneNumber(phoneNumber) }, 'test number login');
    return;
  }
  if (policy.fraudGuard.mode === 'off' || policy.safeList.has(phoneNumber)) return;
  const { windowStart } = rateLimitWindow(deps.clock.now(), policy.fraudGuard.window_minutes * 60);
  const { prefix } = smsNumberFacts(numberOrE164, policy.prefixDigits);
  try {
    await deps.store.smsFraudGuard.countVerified(connection.id, prefix, windowStart);
  } catch (err) {
    // The code is already consumed: a login that succeeded must not fail over a statistic.
    deps.logger.warn({ connection: connection.name, prefix, err }, 'SMS fraud guard could not count a verification');
  }
}

/** True when `candidate` is the fixed code of a test number this deployment allows. */
export function isTestNumberCode(deps: Pick<SmsPolicyDependencies, 'testNumbersAllowed'>, connection: StoredConnection, phoneNumber: string, candidate: string): boolean {
  const code = deps.testNumbersAllowed ? smsPolicyOf(connection.options).testNumbers.get(phoneNumber) : undefined;
  return code !== undefined && otpMatches(candidate, code);
}
