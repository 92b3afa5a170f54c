import { ErrorCodes } from '@smsauth/contracts';
import { HttpError } from '@smsauth/service-kit';

const USER_IS_BLOCKED = 'user is blocked';

/**
 * The one check of an administrator's block (`blocked: true`), used by every login path:
 * `/passwordless/start` (before any code is made or sent), the code exchange behind
 * `/oauth/ro`, the OTP grant and the hosted page, and the refresh grant (before the token
 * is rotated, so it works again once the user is unblocked). The answer is the reference
 * product's: 401 `unauthorized` "user is blocked".
 */
export function refuseBlockedUser(user: { blocked: boolean } | undefined): void {
  if (isBlockedUser(user)) throw new HttpError(401, ErrorCodes.UNAUTHORIZED, USER_IS_BLOCKED);
}

/** True when refuseBlockedUser refuses `user`. */
export function isBlockedUser(user: { blocked: boolean } | undefined): boolean {
  return user?.blocked === true;
}

export function isUserBlockedError(err: unknown): err is HttpError {
  return err instanceof HttpError && err.error === ErrorCodes.UNAUTHORIZED && err.errorDescription === USER_IS_BLOCKED;
}
