import type { IdentityStore, StoredUser } from '../../store';

/**
 * After an SMS login: whether to offer a passkey now. Only where the browser said it can create
 * one (and this device did not say "Don't ask"), for a connection with passkeys on; after "Not
 * now" the next `offer_after_sms_logins - 1` SMS logins pass without it (each one counted here).
 */
export async function passkeyOfferDue(store: IdentityStore, user: StoredUser, at: Date): Promise<boolean> {
  const left = await store.passkeys.smsLoginsLeftBeforeOffer(user.user_id);
  if (left > 0) {
    await store.passkeys.countSmsLoginAgainstSnooze(user.user_id, at);
    return false;
  }
  return true;
}
