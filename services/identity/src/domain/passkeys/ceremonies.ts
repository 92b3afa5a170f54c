import { randomBytes } from 'node:crypto';
import type { PasskeySettings } from '@smsauth/contracts';
import type { Clock } from '@smsauth/service-kit';
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
} from '@simplewebauthn/server';
import { z } from 'zod';
import type { IdentityStore, StoredPasskey, StoredUser, StoredWebAuthnChallenge } from '../../store';
import { CHALLENGE_TTL_SECONDS, type RelyingParty } from './settings';

export interface CeremonyDependencies {
  store: IdentityStore;
  clock: Clock;
  relyingParty: RelyingParty;
}

/** What the browser posts back (the JSON of @simplewebauthn/browser), checked before any decoding. */
const base64url = z.string().regex(/^[A-Za-z0-9_-]*$/).max(16_384);
const RegistrationCredentialSchema = z.object({
  id: base64url.min(1),
  rawId: base64url.min(1),
  type: z.literal('public-key'),
  response: z.object({ clientDataJSON: base64url, attestationObject: base64url, transports: z.array(z.string().max(32)).max(10).optional() }).loose(),
  clientExtensionResults: z.record(z.string(), z.unknown()).default({}),
  authenticatorAttachment: z.string().max(32).optional(),
});
const AuthenticationCredentialSchema = z.object({
  id: base64url.min(1),
  rawId: base64url.min(1),
  type: z.literal('public-key'),
  response: z.object({ clientDataJSON: base64url, authenticatorData: base64url, signature: base64url, userHandle: base64url.optional() }),
  clientExtensionResults: z.record(z.string(), z.unknown()).default({}),
  authenticatorAttachment: z.string().max(32).optional(),
});

function parseCredential<T>(schema: z.ZodType<T>, posted: string): T | undefined {
  if (!posted || posted.length > 65_536) return undefined;
  try {
    const result = schema.safeParse(JSON.parse(posted));
    return result.success ? result.data : undefined;
  } catch {
    return undefined;
  }
}

async function storeChallenge(
  deps: CeremonyDependencies,
  challenge: string,
  transactionId: string,
  purpose: StoredWebAuthnChallenge['purpose'],
  userId: string | null,
): Promise<void> {
  const now = deps.clock.now();
  await deps.store.passkeys.insertChallenge({
    challenge,
    transaction_id: transactionId,
    purpose,
    user_id: userId,
    created_at: now,
    expires_at: new Date(now.getTime() + CHALLENGE_TTL_SECONDS * 1000),
  });
}

/**
 * Options for creating a passkey for `user` after their SMS login: a discoverable credential
 * (resident key required), user verification per the setting, no attestation, identity's RP ID.
 * The user handle is the user's random handle, never the phone number; the passkeys the user
 * has already are excluded, so one authenticator does not register twice.
 */
export async function registrationOptions(
  deps: CeremonyDependencies,
  settings: PasskeySettings,
  transactionId: string,
  user: StoredUser,
): Promise<PublicKeyCredentialCreationOptionsJSON> {
  const handle = await deps.store.passkeys.userHandle(user.user_id, randomBytes(32).toString('base64url'));
  const existing = await deps.store.passkeys.listForUser(user.user_id);
  const options = await generateRegistrationOptions({
    rpName: deps.relyingParty.name,
    rpID: deps.relyingParty.id,
    userID: Buffer.from(handle, 'base64url'),
    // What the authenticator shows the person choosing a passkey: their own number.
    userName: user.phone_number,
    userDisplayName: user.phone_number,
    timeout: CHALLENGE_TTL_SECONDS * 1000,
    attestationType: 'none',
    excludeCredentials: existing.map((p) => ({ id: p.id, transports: p.transports })),
    authenticatorSelection: { residentKey: 'required', requireResidentKey: true, userVerification: settings.user_verification },
  });
  await storeChallenge(deps, options.challenge, transactionId, 'registration', user.user_id);
  return options;
}

export type RegistrationOutcome = { ok: true; passkey: StoredPasskey } | { ok: false; reason: string };

/** Verifies a registration of the transaction's challenge for `user` and stores the passkey. */
export async function registerPasskey(
  deps: CeremonyDependencies,
  settings: PasskeySettings,
  transactionId: string,
  user: StoredUser,
  posted: string,
  userAgent: string | undefined,
): Promise<RegistrationOutcome> {
  const credential = parseCredential(RegistrationCredentialSchema, posted);
  if (!credential) return { ok: false, reason: 'malformed' };
  const now = deps.clock.now();
  let challengeOk = false;
  let verification;
  try {
    verification = await verifyRegistrationResponse({
      response: credential as RegistrationResponseJSON,
      // Single use: the challenge is deleted as it is checked, whatever the outcome.
      expectedChallenge: async (challenge) => {
        const stored = await deps.store.passkeys.consumeChallenge(challenge, transactionId, 'registration', now);
        challengeOk = stored?.user_id === user.user_id;
        return challengeOk;
      },
      expectedOrigin: deps.relyingParty.origin,
      expectedRPID: deps.relyingParty.id,
      requireUserVerification: settings.user_verification === 'required',
    });
  } catch {
    return { ok: false, reason: challengeOk ? 'invalid_attestation' : 'unknown_challenge' };
  }
  if (!verification.verified) return { ok: false, reason: 'invalid_attestation' };
  const info = verification.registrationInfo;
  if (await deps.store.passkeys.findById(info.credential.id)) return { ok: false, reason: 'already_registered' };
  const handle = await deps.store.passkeys.userHandle(user.user_id, randomBytes(32).toString('base64url'));
  const passkey: StoredPasskey = {
    id: info.credential.id,
    user_id: user.user_id,
    user_handle: handle,
    public_key: Buffer.from(info.credential.publicKey).toString('base64url'),
    counter: info.credential.counter,
    transports: credential.response.transports ?? [],
    aaguid: info.aaguid,
    device_type: info.credentialDeviceType,
    backed_up: info.credentialBackedUp,
    rp_id: deps.relyingParty.id,
    user_agent: userAgent?.slice(0, 512) ?? null,
    created_at: now,
    last_used_at: null,
  };
  await deps.store.passkeys.insert(passkey);
  return { ok: true, passkey };
}

/**
 * Options for signing in with any passkey of this RP (discoverable credentials: no allow list,
 * the browser offers the passkeys it holds, in its autofill or a dialog).
 */
export async function authenticationOptions(
  deps: CeremonyDependencies,
  settings: PasskeySettings,
  transactionId: string,
): Promise<PublicKeyCredentialRequestOptionsJSON> {
  const options = await generateAuthenticationOptions({
    rpID: deps.relyingParty.id,
    userVerification: settings.user_verification,
    timeout: CHALLENGE_TTL_SECONDS * 1000,
  });
  await storeChallenge(deps, options.challenge, transactionId, 'authentication', null);
  return options;
}

/** Why an assertion was refused (the tenant log's and the metric's reason). */
export type AssertionRefusal =
  | 'malformed'
  | 'unknown_passkey'
  | 'other_connection'
  | 'wrong_user_handle'
  | 'unknown_challenge'
  | 'wrong_origin'
  | 'wrong_rp_id'
  | 'user_not_verified'
  | 'invalid_signature'
  | 'counter_replayed';

/** The library's message, read into a reason for the log (never shown to the user). */
function assertionErrorReason(message: string): AssertionRefusal {
  if (/counter/i.test(message)) return 'counter_replayed';
  if (/origin/i.test(message)) return 'wrong_origin';
  if (/rp ?id/i.test(message)) return 'wrong_rp_id';
  if (/user verification|user not present/i.test(message)) return 'user_not_verified';
  return 'invalid_signature';
}

export type AssertionOutcome =
  | { ok: true; passkey: StoredPasskey; user: StoredUser }
  | { ok: false; reason: AssertionRefusal; passkey?: StoredPasskey; user?: StoredUser };

/**
 * Verifies an assertion for the transaction: the passkey must exist (not deleted) and belong to
 * a user of the transaction's connection, the user handle must be the passkey's, the challenge
 * one this transaction was given and not used before, the origin and RP ID identity's, the
 * signature valid for the stored public key, and the signature counter higher than the stored
 * one when the authenticator keeps one. The counter and last use are then recorded.
 * Whether the user is blocked is the caller's check (it ends the sign-in differently).
 */
export async function verifyPasskeyAssertion(
  deps: CeremonyDependencies,
  settings: PasskeySettings,
  transactionId: string,
  connectionName: string,
  posted: string,
): Promise<AssertionOutcome> {
  const credential = parseCredential(AuthenticationCredentialSchema, posted);
  if (!credential) return { ok: false, reason: 'malformed' };
  const passkey = await deps.store.passkeys.findById(credential.id);
  if (!passkey) return { ok: false, reason: 'unknown_passkey' };
  const user = await deps.store.users.findById(passkey.user_id);
  if (!user) return { ok: false, reason: 'unknown_passkey' };
  if (user.connection_name !== connectionName) return { ok: false, reason: 'other_connection', passkey, user };
  if (credential.response.userHandle !== undefined && credential.response.userHandle !== passkey.user_handle) {
    return { ok: false, reason: 'wrong_user_handle', passkey, user };
  }
  // A discoverable credential's assertion carries the user handle; one without it is not ours.
  if (credential.response.userHandle === undefined) return { ok: false, reason: 'wrong_user_handle', passkey, user };
  const now = deps.clock.now();
  let challengeOk = false;
  let verification;
  try {
    verification = await verifyAuthenticationResponse({
      response: credential as AuthenticationResponseJSON,
      expectedChallenge: async (challenge) => {
        challengeOk = (await deps.store.passkeys.consumeChallenge(challenge, transactionId, 'authentication', now)) !== undefined;
        return challengeOk;
      },
      expectedOrigin: deps.relyingParty.origin,
      expectedRPID: deps.relyingParty.id,
      credential: { id: passkey.id, publicKey: Buffer.from(passkey.public_key, 'base64url'), counter: passkey.counter, transports: passkey.transports as never },
      requireUserVerification: settings.user_verification === 'required',
    });
  } catch (err) {
    if (!challengeOk) return { ok: false, reason: 'unknown_challenge', passkey, user };
    return { ok: false, reason: assertionErrorReason((err as Error).message), passkey, user };
  }
  if (!verification.verified) return { ok: false, reason: 'invalid_signature', passkey, user };
  const recorded = await deps.store.passkeys.recordUse(passkey.id, passkey.counter, verification.authenticationInfo.newCounter, now);
  if (!recorded) return { ok: false, reason: 'counter_replayed', passkey, user };
  return { ok: true, passkey: { ...passkey, counter: verification.authenticationInfo.newCounter, last_used_at: now }, user };
}
