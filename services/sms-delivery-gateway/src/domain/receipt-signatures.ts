import { createHmac } from 'node:crypto';

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
