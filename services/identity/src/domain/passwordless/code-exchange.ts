import { PHONE_NUMBER_PATTERN, UNKNOWN_PROVIDER } from '@smsauth/contracts';
import { maskPhoneNumber, type Logger, type Clock } from '@smsauth/service-kit';
import type { IdentityStore, StoredAccessToken, StoredCode, StoredConnection, StoredUser } from '../../store';
import { newUserIdPart } from '../ids';
import { countRefusedExchange, exchangeLogContext, loginRecord, recordBlockedAttempt, type ExchangeLog } from '../logs/login-events';
import { refuseBlockedUser } from './blocked-user';
import { CONSECUTIVE_FAILURES_LOCK, loginBlockStatus, type BruteForceSettings, type BruteForceState } from './brute-force';
import { codeState, MAX_CODE_ATTEMPTS } from './code-state';
import { verifyOtp } from './otp';
import { canonicalPhoneNumber } from '../phone/canonical-number';
import { countryLabel, type SmsMetrics } from './sms-metrics';
import { isTestNumberCode, reportSmsVerification, smsVerificationOf, type SmsPolicyDependencies } from '../sms-policy/guard';

export interface CodeExchangeDependencies {
  store: IdentityStore;
  clock: Clock;
  bruteForce: BruteForceSettings;
  logger: Pick<Logger, 'info' | 'warn'>;
  smsMetrics: Pick<SmsMetrics, 'verified'>;
  smsPolicy: SmsPolicyDependencies;
}

export interface CodeExchangeAttempt {
  connection: StoredConnection;
  clientId: string;
  /** `username`: the phone number, in E.164 (canonicalPhoneNumber) as every code is stored. */
  phoneNumber: string;
  /** `password` / `otp`: the guess, unvalidated. */
  candidate: string;
  ip: string;
  /** The number's user on the connection, read with it (store.passwordlessLogins.exchangeContext). */
  user: StoredUser | undefined;
  /** The number's brute-force counters and this IP's, read with the connection. */
  failures: BruteForceState;
  /**
   * The number's code as read with the connection (exchangeContext), no attempt taken yet: a
   * right guess against it then takes its attempt in the statement that consumes it (one round
   * trip fewer); a wrong one takes it with codes.reserveAttempt, as without it.
   */
  code?: StoredCode | undefined;
  /** For the tenant log records of the exchange: which path, and what it knows of the caller. */
  log?: ExchangeLog;
  /**
   * An opaque access token the caller will certainly issue on success (prepareOpaqueAccessToken):
   * stored for the user in the statement that records the login, so a refused exchange stores none.
   */
  accessToken?: Omit<StoredAccessToken, 'user_id'>;
}

/**
 * Why an exchange was refused. `blocked`: brute-force protection (429, even for a right
 * code). The others are all "wrong phone number or verification code" to /oauth/ro; the
 * OTP grant words `expired` and `exhausted` differently, as the reference product does.
 */
export type CodeRejection = 'blocked' | 'wrong' | 'unknown' | 'used' | 'expired' | 'exhausted';

export type CodeExchangeResult =
  | { ok: true; user: StoredUser; code: StoredCode }
  | { ok: false; reason: CodeRejection };

/**
 * Checks a one-time code and, when it is right, consumes it and records the login. A user
 * an administrator blocked is refused first (throws 401 `unauthorized` "user is blocked").
 *
 * 1. Brute-force state first: a blocked IP (or a locked number) is refused before the code
 *    is looked at, and the refusal is not counted again.
 * 2. reserveAttempt takes one of the code's attempts in a single UPDATE ... WHERE
 *    attempts < 3 AND NOT used AND expires_at > now, before the guess is compared. However
 *    many guesses arrive in parallel (on however many replicas), at most 3 are compared.
 * 3. The guess must be exactly `digits` ASCII digits, compared in constant time.
 * 4. consumeCodeAndRecordLogin marks it used in a single UPDATE ... WHERE NOT used (of parallel right
 *    guesses exactly one succeeds) and, in the same statement, resets both failure counters
 *    for the number and this IP, records the login, counts the fraud guard's verification
 *    and stores the caller's prepared opaque access token.
 * Every refusal counts as a failure (per number and IP, and per number).
 */
export async function exchangeCode(deps: CodeExchangeDependencies, attempt: CodeExchangeAttempt): Promise<CodeExchangeResult> {
  const { store, bruteForce } = deps;
  const { connection, phoneNumber, ip } = attempt;
  // Not a number we could ever have sent to: wrong, without a counter keyed by arbitrary text.
  if (!PHONE_NUMBER_PATTERN.test(phoneNumber)) return { ok: false, reason: 'unknown' };
  // Before the code is looked at: a blocked user's attempt takes no attempt and counts no failure.
  refuseBlockedUser(attempt.user);
  const now = deps.clock.now();
  const protection = connection.options.brute_force_protection;

  const block = loginBlockStatus(attempt.failures, now, bruteForce, protection);
  const log = exchangeLogContext(attempt);
  if (block.blocked) {
    deps.logger.warn({ recipient: maskPhoneNumber(phoneNumber), ip, reason: block.reason }, 'code exchange refused: blocked');
    await recordBlockedAttempt(store, log, now, block.reason, attempt.log?.via);
    return { ok: false, reason: 'blocked' };
  }

  const outcome = await checkGuess(store, attempt, now, deps.smsPolicy);
  let refusal: Exclude<CodeRejection, 'blocked'> = outcome.ok ? 'used' : outcome.reason;
  if (outcome.ok) {
    // One parse of the (stored, E.164) number for both the metric and the fraud guard.
    const parsed = canonicalPhoneNumber(phoneNumber);
    const number = parsed.ok ? parsed.number : undefined;
    const verification = smsVerificationOf(connection, number ?? phoneNumber, now); // the fraud guard's conversion
    const user = await store.passwordlessLogins.consumeCodeAndRecordLogin(outcome.code, {
      newUserId: `sms|${newUserIdPart()}`,
      ip,
      at: now,
      maxAttempts: MAX_CODE_ATTEMPTS,
      log: loginRecord(log, now, attempt.log?.via, outcome.code.channel ?? 'sms', outcome.code.provider ?? UNKNOWN_PROVIDER),
      // Counted in the login's statement, so atomic with it: a failing count now fails the
      // login (and changes nothing), where a separate statement's failure was only logged.
      verification: verification.count,
      accessToken: attempt.accessToken,
      ...(outcome.attemptTaken ? {} : { takeAttempt: { clientId: attempt.clientId } }),
    });
    if (user) {
      deps.smsMetrics.verified.inc({ country: countryLabel(number), channel: outcome.code.channel ?? 'sms' });
      reportSmsVerification(deps.smsPolicy, connection, phoneNumber, verification);
      return { ok: true, user, code: outcome.code };
    }
    // A right guess whose attempt was taken and lost the race to a parallel one reads as a used
    // code; one checked against the code as read finds out now why it could take no attempt.
    if (!outcome.attemptTaken) refusal = await whyUnusable(store, attempt, now);
  }
  const reason = refusal;
  await countRefusedExchange(
    store,
    { phoneNumber, ip, at: now, countIp: protection },
    { ...bruteForce, consecutiveFailuresLock: CONSECUTIVE_FAILURES_LOCK },
    { reason, context: log, via: attempt.log?.via },
  );
  deps.logger.info({ recipient: maskPhoneNumber(phoneNumber), ip, reason }, 'code exchange refused');
  return { ok: false, reason };
}

/**
 * Compares the guess, its attempt taken first (codes.reserveAttempt) unless it is right for
 * the code read with the context: then the statement that consumes the code takes the attempt
 * (`attemptTaken: false`), and a guess counts only if that statement could take one, so at
 * most MAX_CODE_ATTEMPTS guesses count however many arrive in parallel. A right guess still
 * has to be consumed.
 */
async function checkGuess(
  store: IdentityStore,
  attempt: CodeExchangeAttempt,
  now: Date,
  smsPolicy: Pick<SmsPolicyDependencies, 'testNumbersAllowed'>,
): Promise<{ ok: true; code: StoredCode; attemptTaken: boolean } | { ok: false; reason: Exclude<CodeRejection, 'blocked'> }> {
  const { connection, phoneNumber, clientId } = attempt;
  // disable_signup: only numbers that already have a user may log in (start refuses the
  // others; this covers a user deleted in between). Checked before an attempt is taken.
  if (connection.options.disable_signup && !attempt.user) {
    return { ok: false, reason: 'unknown' };
  }
  const isRight = (code: StoredCode) =>
    isTestNumberCode(smsPolicy, connection, phoneNumber, attempt.candidate) || verifyOtp(attempt.candidate, code.secret, { issuedAt: code.issued_at, step: code.time_step, digits: code.digits });
  const read = attempt.code?.client_id === clientId ? attempt.code : undefined;
  if (read && isRight(read)) return { ok: true, code: read, attemptTaken: false };
  const code = await store.codes.reserveAttempt(connection.id, phoneNumber, clientId, now, MAX_CODE_ATTEMPTS);
  if (!code) return { ok: false, reason: await whyUnusable(store, attempt, now) };
  // The code that was read (same start, same secret) was compared already: the guess is wrong.
  if (code.request_id === read?.request_id || !isRight(code)) return { ok: false, reason: 'wrong' };
  return { ok: true, code, attemptTaken: true };
}

/** Why reserveAttempt found nothing to check, for the OTP grant's error description. */
async function whyUnusable(store: IdentityStore, attempt: CodeExchangeAttempt, now: Date): Promise<Exclude<CodeRejection, 'blocked'>> {
  const code = await store.codes.find(attempt.connection.id, attempt.phoneNumber);
  // A code issued to another client is no code for this one.
  if (!code || code.client_id !== attempt.clientId) return 'unknown';
  const state = codeState({ expiresAt: code.expires_at, attempts: code.attempts, used: code.used }, now);
  // 'usable' here means a newer start replaced the row between the two statements.
  return state === 'usable' ? 'wrong' : state;
}
