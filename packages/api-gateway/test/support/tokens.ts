import { createHmac, sign as cryptoSign, type KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';
import type { TestKey } from './keys';

export const b64url = (value: string | Buffer | object): string =>
  Buffer.from(typeof value === 'string' || Buffer.isBuffer(value) ? value : JSON.stringify(value)).toString('base64url');

export interface SignOptions {
  algorithm?: jwt.Algorithm;
  /** Header kid; `null` leaves it out. Defaults to the key's kid. */
  kid?: string | null;
  header?: Record<string, unknown>;
}

/** A real token signed by a test key; the claims carry the test clock's iat/exp (jsonwebtoken keeps a given iat). */
export function signToken(key: TestKey, claims: Record<string, unknown>, options: SignOptions = {}): string {
  const kid = options.kid === undefined ? key.kid : options.kid;
  return jwt.sign(claims, key.privateKey, {
    algorithm: options.algorithm ?? 'RS256',
    ...(kid === null ? {} : { keyid: kid }),
    header: { alg: options.algorithm ?? 'RS256', ...(options.header ?? {}) } as jwt.JwtHeader,
  });
}

/** Hand-built token: any header, any payload, signature from `signer` over `header.payload`. */
export function craftToken(
  header: Record<string, unknown>,
  payload: Record<string, unknown> | string,
  signer?: (signingInput: string) => Buffer | string,
): string {
  const signingInput = `${b64url(header)}.${typeof payload === 'string' ? b64url(payload) : b64url(payload)}`;
  const signature = signer ? signer(signingInput) : '';
  return `${signingInput}.${typeof signature === 'string' ? signature : signature.toString('base64url')}`;
}

export const hmacSigner = (secret: string | Buffer) => (input: string) => createHmac('sha256', secret).update(input).digest();
export const rsaSigner = (privateKey: KeyObject) => (input: string) => cryptoSign('sha256', Buffer.from(input), privateKey);

/** Replaces the payload segment, keeping header and signature: a tampered token. */
export function withPayload(token: string, payload: Record<string, unknown>): string {
  const [header, , signature] = token.split('.');
  return `${header}.${b64url(payload)}.${signature}`;
}
