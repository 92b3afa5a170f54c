import { createHash, createHmac, createPublicKey, verify, type KeyObject } from 'node:crypto';

/**
 * Twilio's request signature (X-Twilio-Signature), as Twilio documents it: the full URL,
 * then each POST parameter's name and value appended, names sorted, HMAC-SHA1 with the auth
 * token, base64. A repeated parameter contributes each value, in order.
 */
export function twilioSignature(authToken: string, url: string, params: ReadonlyArray<readonly [string, string]>): string {
  const sorted = [...params].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const data = url + sorted.map(([name, value]) => name + value).join('');
  return createHmac('sha1', authToken).update(data, 'utf8').digest('base64');
}

/** `sha256=<hex HMAC-SHA256 of the raw body>`: the webhook provider's receipt signature. */
export function webhookSignature(secret: string, rawBody: Buffer): string {
  return `sha256=${createHmac('sha256', secret).update(rawBody).digest('hex')}`;
}

/** The signing methods a Vonage account can choose for its SMS API signature secret. */
export const VONAGE_SIGNATURE_METHODS = ['md5hash', 'md5hmac', 'sha1hmac', 'sha256hmac', 'sha512hmac'] as const;
export type VonageSignatureMethod = (typeof VONAGE_SIGNATURE_METHODS)[number];

/**
 * Vonage's SMS API signature (`sig`), as its "Signing Messages" guide describes it: every
 * parameter but `sig`, sorted by name, as `&name=value` with `&` and `=` in values replaced
 * by `_`; `md5hash` is the MD5 of that string followed by the signature secret, the other
 * methods the HMAC of the string keyed with the secret. Lower-case hex (Vonage compares
 * without regard to case).
 */
export function vonageSignature(params: Readonly<Record<string, string>>, secret: string, method: VonageSignatureMethod): string {
  const signed = Object.keys(params)
    .filter((name) => name !== 'sig')
    .sort()
    .map((name) => `&${name}=${params[name]!.replace(/[&=]/g, '_')}`)
    .join('');
  if (method === 'md5hash') return createHash('md5').update(signed + secret, 'utf8').digest('hex');
  const algorithm = { md5hmac: 'md5', sha1hmac: 'sha1', sha256hmac: 'sha256', sha512hmac: 'sha512' }[method];
  return createHmac(algorithm, secret).update(signed, 'utf8').digest('hex');
}

/** An Ed25519 public key from its raw 32 bytes, base64 (as Telnyx's portal shows it); undefined when it is not one. */
export function ed25519PublicKey(base64: string): KeyObject | undefined {
  if (!/^[A-Za-z0-9+/]{42,43}=?$/.test(base64)) return undefined;
  const raw = Buffer.from(base64, 'base64');
  if (raw.length !== 32) return undefined;
  try {
    return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: raw.toString('base64url') }, format: 'jwk' });
  } catch {
    return undefined;
  }
}

/**
 * Telnyx's webhook signature: `telnyx-signature-ed25519` is the base64 Ed25519 signature of
 * `{telnyx-timestamp}|{raw body}`, made with the account's key pair; verified with its public key.
 */
export function telnyxSignatureValid(publicKey: KeyObject, timestamp: string, rawBody: Buffer, signatureBase64: string): boolean {
  const signature = Buffer.from(signatureBase64, 'base64');
  if (signature.length !== 64) return false;
  try {
    return verify(null, Buffer.concat([Buffer.from(`${timestamp}|`, 'utf8'), rawBody]), publicKey, signature);
  } catch {
    return false;
  }
}

/**
 * Bird's webhook signature (`messagebird-signature`), as "Verifying a webhook subscription"
 * documents it: base64 of the HMAC-SHA256, keyed with the subscription's signing key, of
 * `{messagebird-request-timestamp}\n{the URL it was sent to}\n` followed by the raw SHA-256
 * digest (bytes, not hex) of the body.
 */
export function birdSignature(signingKey: string, timestamp: string, url: string, rawBody: Buffer): string {
  const bodyDigest = createHash('sha256').update(rawBody).digest();
  return createHmac('sha256', signingKey)
    .update(Buffer.concat([Buffer.from(`${timestamp}\n${url}\n`, 'utf8'), bodyDigest]))
    .digest('base64');
}
