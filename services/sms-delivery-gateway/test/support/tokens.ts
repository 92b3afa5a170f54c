import jwt from 'jsonwebtoken';
import { detachedKeyPair } from '@smsauth/test-support';
import { nowSeconds } from './gateway';

/** 40 bytes of UTF-8: comfortably over the 32-byte minimum. */
export const SECRET = 'test-gateway-secret-0123456789-abcdefghij';
export const AUDIENCE = 'urn:smsauth:sms-gateway';
export const SUBJECT = 'smsauth-identity';

export interface DeliveryClaims {
  sub?: string;
  aud?: string;
  iat?: number;
  exp?: number;
  [claim: string]: unknown;
}

/** What the identity service signs: sub, aud, iat now, exp in 5 minutes. */
export function deliveryClaims(overrides: DeliveryClaims = {}): DeliveryClaims {
  const iat = nowSeconds();
  return { sub: SUBJECT, aud: AUDIENCE, iat, exp: iat + 300, ...overrides };
}

/** jsonwebtoken adds a wall-clock iat unless told not to; the claims decide. */
export function keepIat(claims: DeliveryClaims): jwt.SignOptions {
  return claims.iat === undefined ? { noTimestamp: true } : {};
}

export function signHs256(claims: DeliveryClaims = deliveryClaims(), key: string | Buffer = SECRET): string {
  return jwt.sign(claims, key, { algorithm: 'HS256', ...keepIat(claims) });
}

export function signHs512(claims: DeliveryClaims = deliveryClaims(), key: string | Buffer = SECRET): string {
  return jwt.sign(claims, key, { algorithm: 'HS512', ...keepIat(claims) });
}

export function signRs256(claims: DeliveryClaims = deliveryClaims()): string {
  const { privateKey } = detachedKeyPair('rsa', { modulusLength: 2048 });
  return jwt.sign(claims, privateKey, { algorithm: 'RS256', ...keepIat(claims) });
}

const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** An unsigned token (`alg: none`, empty signature part). */
export function unsignedToken(claims: DeliveryClaims = deliveryClaims()): string {
  return `${b64url({ alg: 'none', typ: 'JWT' })}.${b64url(claims)}.`;
}

/** A validly signed token whose payload was then changed, signature kept. */
export function tamperedToken(): string {
  const [header, , signature] = signHs256().split('.');
  return `${header}.${b64url(deliveryClaims({ sub: 'attacker' }))}.${signature}`;
}
