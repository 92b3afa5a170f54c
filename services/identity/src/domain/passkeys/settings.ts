import { PASSKEYS_OFF, type ConnectionOptions, type PasskeySettings } from '@smsauth/contracts';

/** The connection's passkey setting; a connection without one (stored before passkeys existed, or written by hand) has them off. */
export function passkeySettingsOf(options: ConnectionOptions | undefined): PasskeySettings {
  return options?.passkeys ?? { ...PASSKEYS_OFF };
}

/**
 * The WebAuthn relying party: identity itself. The RP ID is AUTH_URL's host (passkeys are bound
 * to it, so they work on every page identity serves there), the origin AUTH_URL's origin.
 */
export interface RelyingParty {
  id: string;
  origin: string;
  name: string;
}

export function relyingPartyOf(authUrl: string, name = 'smsauth'): RelyingParty {
  const url = new URL(authUrl);
  return { id: url.hostname, origin: url.origin, name };
}

/** How long a WebAuthn challenge may be answered (also the ceremony's timeout in the browser). */
export const CHALLENGE_TTL_SECONDS = 5 * 60;
