import { jwtType } from '@smsauth/jose-rules';

/**
 * `typ` of a delivery token: absent or `JWT`, as the identity service (jsonwebtoken) writes
 * it. `at+jwt` and other explicit types name another kind of token (RFC 8725 §3.11) and are
 * refused. The other structural rules are in @smsauth/jose-rules.
 */
export function isDeliveryTokenType(typ: unknown): boolean {
  const type = jwtType(typ);
  return type === undefined || type === 'jwt';
}
