import { createSecretKey } from 'node:crypto';
import jwt from 'jsonwebtoken';

/**
 * The bearer token on each delivery request when a connection has `gateway_authentication`:
 * HS256 JWT {sub: subject, aud: audience, iat, exp: iat + 5 min}, as the reference product
 * sends it. Short-lived so a token captured from a gateway log is soon useless.
 */
export const GATEWAY_TOKEN_LIFETIME_SECONDS = 300;

export interface GatewayAuthenticationSettings {
  subject: string;
  audience: string;
  secret: string;
  /** The secret is base64url (standard base64 also accepted) and is decoded to bytes first. */
  secret_base64_encoded?: boolean;
}

export class GatewayTokenError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GatewayTokenError';
  }
}

/** The HMAC key: the secret's UTF-8 bytes, or its base64url-decoded bytes. */
export function gatewaySigningKey(settings: Pick<GatewayAuthenticationSettings, 'secret' | 'secret_base64_encoded'>): Buffer {
  const key = settings.secret_base64_encoded
    ? Buffer.from(settings.secret, 'base64url')
    : Buffer.from(settings.secret, 'utf8');
  if (key.length === 0) throw new GatewayTokenError('gateway_authentication.secret decodes to an empty key');
  return key;
}

export function signGatewayToken(settings: GatewayAuthenticationSettings, now: Date = new Date()): string {
  const iat = Math.floor(now.getTime() / 1000);
  return jwt.sign(
    { sub: settings.subject, aud: settings.audience, iat, exp: iat + GATEWAY_TOKEN_LIFETIME_SECONDS },
    // A KeyObject: given bytes, jsonwebtoken first tries to parse them as a PEM private key,
    // a failed attempt that costs far more than the signature itself.
    createSecretKey(gatewaySigningKey(settings)),
    { algorithm: 'HS256' },
  );
}
