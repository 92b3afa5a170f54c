import { z } from 'zod';

/**
 * Passkeys on the hosted login (issue 29): after an SMS login the page offers a passkey, and a
 * returning user signs in with it, no SMS sent. Connection `options.passkeys`.
 */

/** `required`: the authenticator must verify the user (PIN, biometrics); `preferred`: it should when it can. */
export const PASSKEY_USER_VERIFICATIONS = ['required', 'preferred'] as const;
export type PasskeyUserVerification = (typeof PASSKEY_USER_VERIFICATIONS)[number];

const passkeySettingFields = {
  enabled: z.boolean().meta({ description: 'Offer passkeys after an SMS login and accept them on the phone page.' }),
  offer_after_sms_logins: z.int().min(1).max(100).meta({
    description: 'After "Not now", the offer comes back at this SMS login of the user (1: the next one).',
  }),
  user_verification: z.enum(PASSKEY_USER_VERIFICATIONS).meta({
    description: 'WebAuthn user verification for registration and sign-in: required (default) or preferred.',
  }),
};

/** Defaults of a field left out of a create body, and of a connection created through /api/v2 without the setting. */
export const NEW_CONNECTION_PASSKEYS = { enabled: true, offer_after_sms_logins: 3, user_verification: 'required' } as const;

/** Connections stored before passkeys existed were given this (migration 014): passkeys stay off until turned on. */
export const PASSKEYS_OFF = { ...NEW_CONNECTION_PASSKEYS, enabled: false } as const;

export const PasskeySettingsSchema = z
  .strictObject({
    enabled: passkeySettingFields.enabled.default(NEW_CONNECTION_PASSKEYS.enabled),
    offer_after_sms_logins: passkeySettingFields.offer_after_sms_logins.default(NEW_CONNECTION_PASSKEYS.offer_after_sms_logins),
    user_verification: passkeySettingFields.user_verification.default(NEW_CONNECTION_PASSKEYS.user_verification),
  })
  .meta({
    description:
      'Passkeys on the hosted login: offered after an SMS login, then used instead of the SMS. New connections have them on; connections stored before they existed have them off.',
  });
export type PasskeySettings = z.infer<typeof PasskeySettingsSchema>;

/** PATCH: the given fields are merged into the stored setting. */
export const PasskeySettingsPatchSchema = z.strictObject(passkeySettingFields).partial();

/**
 * One passkey of a user, in the shape of Auth0's `GET /api/v2/users/{id}/authentication-methods`
 * (type `passkey`). `name` is the authenticator's friendly name where its AAGUID is known.
 */
export const AuthenticationMethodRecordSchema = z.object({
  id: z.string(),
  type: z.literal('passkey'),
  confirmed: z.boolean(),
  name: z.string(),
  created_at: z.string(),
  /** The last sign-in with it; absent before the first. */
  last_auth_at: z.string().optional(),
  /** The credential id (base64url). */
  key_id: z.string(),
  /** The authenticator's model, a UUID (all zeros when the authenticator does not say). */
  aaguid: z.string(),
  credential_device_type: z.enum(['single_device', 'multi_device']),
  credential_backed_up: z.boolean(),
  relying_party_identifier: z.string(),
  user_agent: z.string().optional(),
});
export type AuthenticationMethodRecord = z.infer<typeof AuthenticationMethodRecordSchema>;
