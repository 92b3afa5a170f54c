import { jwtType } from '@smsauth/jose-rules';

/**
 * `typ` of an access token: `JWT` (the identity service's M2M tokens, and most issuers) or
 * `at+jwt` (RFC 9068 access tokens), or none. Any other explicit type (`secevent+jwt`,
 * `dpop+jwt`, `JOSE`...) says the token is something other than an access token (RFC 8725
 * §3.11) and is refused. The other structural rules are in @smsauth/jose-rules.
 */
export function isAccessTokenType(typ: unknown): boolean {
  const type = jwtType(typ);
  return type === undefined || type === 'jwt' || type === 'at+jwt';
}
