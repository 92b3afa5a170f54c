import { USER_CLAIMS } from '../oauth/profile-claims';

/**
 * The `claims` request parameter (OpenID Connect Core §5.5), reduced to what this service acts
 * on: the names of user claims asked for at UserInfo and in the ID token (USER_CLAIMS; others
 * are ignored, as values and `essential` are: a claim the user has is released, one they do not
 * have cannot be), and whether the ID token's `acr` was asked for, with its acceptable values.
 */
export interface RequestedClaims {
  userinfo: string[];
  idToken: string[];
  /** `claims.id_token.acr`: `values` (or `value`) when given, else any. */
  acr?: { values?: string[] };
}

/**
 * The one Authentication Context Class Reference this service asserts (discovery's
 * acr_values_supported): the user proved control of the phone number (an SMS or voice code)
 * or of a passkey registered after such a login, one factor at least. Only sent when the
 * client asks for it (acr_values, or the claims parameter): no level beyond it is claimed.
 */
export const ACR_SINGLE_FACTOR = 'urn:smsauth:acr:single-factor';
export const ACR_VALUES_SUPPORTED = [ACR_SINGLE_FACTOR] as const;

function names(member: unknown): string[] {
  if (typeof member !== 'object' || member === null || Array.isArray(member)) return [];
  return Object.keys(member).filter((name) => (USER_CLAIMS as readonly string[]).includes(name));
}

function acrRequest(member: unknown): RequestedClaims['acr'] {
  if (typeof member !== 'object' || member === null || !('acr' in member)) return undefined;
  const acr = (member as { acr: unknown }).acr;
  if (typeof acr !== 'object' || acr === null) return {};
  const { values, value } = acr as { values?: unknown; value?: unknown };
  if (Array.isArray(values)) return { values: values.filter((v): v is string => typeof v === 'string') };
  if (typeof value === 'string') return { values: [value] };
  return {};
}

/** The parameter as sent: a JSON object, else a string saying why it is refused (invalid_request). */
export function parseClaimsParameter(value: string): RequestedClaims | string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    return 'The claims parameter must be a JSON object.';
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return 'The claims parameter must be a JSON object.';
  const { userinfo, id_token: idToken } = parsed as { userinfo?: unknown; id_token?: unknown };
  const acr = acrRequest(idToken);
  return { userinfo: names(userinfo), idToken: names(idToken), ...(acr ? { acr } : {}) };
}

/**
 * The acr the ID token carries: ACR_SINGLE_FACTOR when acr_values lists it or the claims
 * parameter asks for acr with it among its values (or with none); otherwise none (OIDC Core
 * §3.1.2.1: acr_values is voluntary, and a level not reached is not claimed).
 */
export function requestedAcr(acrValues: string | undefined, claims: RequestedClaims | undefined): string | undefined {
  const listed = (acrValues ?? '').split(' ').includes(ACR_SINGLE_FACTOR);
  const asked = claims?.acr !== undefined && (claims.acr.values === undefined || claims.acr.values.includes(ACR_SINGLE_FACTOR));
  return listed || asked ? ACR_SINGLE_FACTOR : undefined;
}

/** How a code keeps the names asked for (authorization_codes.claims). */
export function serialiseRequestedClaims(claims: RequestedClaims | undefined): string | null {
  if (!claims || (claims.userinfo.length === 0 && claims.idToken.length === 0)) return null;
  return JSON.stringify({ userinfo: claims.userinfo, id_token: claims.idToken });
}

export function deserialiseRequestedClaims(stored: string | null | undefined): RequestedClaims | undefined {
  if (!stored) return undefined;
  const { userinfo, id_token: idToken } = JSON.parse(stored) as { userinfo?: string[]; id_token?: string[] };
  return { userinfo: userinfo ?? [], idToken: idToken ?? [] };
}
