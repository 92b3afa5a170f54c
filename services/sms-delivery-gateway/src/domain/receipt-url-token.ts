import { createHmac } from 'node:crypto';
import { secretsMatch } from './constant-time';

/** The query parameter of a receipt URL that carries its token (redacted in the access log). */
export const RECEIPT_TOKEN_PARAMETER = 'receipt_token';

/**
 * A receipt URL's capability token, for providers that sign nothing (Infobip's `notifyUrl`,
 * Sinch callbacks without HMAC): HMAC-SHA256 of the provider instance and the message id,
 * keyed with a credential only the gateway and that provider hold, base64url. Only the
 * provider, which was given the URL, can post a receipt for that message; a token of one
 * message is worth nothing for another, and the key cannot be recovered from it.
 */
export function receiptUrlToken(key: string, provider: string, messageId: string): string {
  return createHmac('sha256', key).update(`sms-receipt\n${provider}\n${messageId}`, 'utf8').digest('base64url');
}

/** `url` with the message's token appended as `receipt_token`. */
export function withReceiptToken(url: string, key: string, provider: string, messageId: string): string {
  const withToken = new URL(url);
  withToken.searchParams.set(RECEIPT_TOKEN_PARAMETER, receiptUrlToken(key, provider, messageId));
  return withToken.toString();
}

/**
 * Whether a receipt's URL (as the gateway received it) carries the right token for the
 * message its last path segment names: `missing` when there is none, `bad` when it is wrong.
 */
export function checkReceiptToken(url: string, key: string, provider: string): 'valid' | 'missing' | 'bad' {
  const parsed = new URL(url);
  const presented = parsed.searchParams.get(RECEIPT_TOKEN_PARAMETER);
  if (presented === null || presented === '') return 'missing';
  const segment = parsed.pathname.split('/').at(-1) ?? '';
  let messageId: string;
  try {
    messageId = decodeURIComponent(segment);
  } catch {
    return 'bad';
  }
  return secretsMatch(presented, receiptUrlToken(key, provider, messageId)) ? 'valid' : 'bad';
}
