import { createHmac, randomBytes } from 'node:crypto';

/**
 * A stream's signing secret: `lss_` + 32 random bytes (base64url). Shown once at creation;
 * the receiver keeps it to check deliveries.
 */
export function newSigningSecret(): string {
  return `lss_${randomBytes(32).toString('base64url')}`;
}

/**
 * The X-Smsauth-Signature value of one delivery: `t=<unix seconds>,v1=<hex>`, where v1 is
 * HMAC-SHA256, keyed with the signing secret (its UTF-8 bytes, prefix included), of
 * `<t>.<body>` (the exact body bytes sent). The timestamp inside the MAC lets a receiver
 * refuse old deliveries replayed at it.
 */
export function logStreamSignature(signingSecret: string, body: string, unixSeconds: number): string {
  const mac = createHmac('sha256', signingSecret).update(`${unixSeconds}.`).update(body).digest('hex');
  return `t=${unixSeconds},v1=${mac}`;
}
