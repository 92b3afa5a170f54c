import { createVerify, X509Certificate } from 'node:crypto';

// Amazon SNS's HTTP(S) messages and their signatures, as "Verifying the signatures of Amazon SNS
// messages" documents them: the signed fields of each type, in this order, each as
// `name\nvalue\n`; SignatureVersion 1 is SHA1withRSA, 2 SHA256withRSA, verified with the public
// key of the certificate at SigningCertURL.

export const SNS_MESSAGE_TYPES = ['Notification', 'SubscriptionConfirmation', 'UnsubscribeConfirmation'] as const;
export type SnsMessageType = (typeof SNS_MESSAGE_TYPES)[number];

export interface SnsMessage {
  Type: SnsMessageType;
  MessageId: string;
  TopicArn: string;
  Message: string;
  Timestamp: string;
  SignatureVersion: '1' | '2';
  Signature: string;
  SigningCertURL: string;
  Subject?: string;
  Token?: string;
  SubscribeURL?: string;
}

const SIGNED_FIELDS: Record<SnsMessageType, readonly (keyof SnsMessage)[]> = {
  Notification: ['Message', 'MessageId', 'Subject', 'Timestamp', 'TopicArn', 'Type'],
  SubscriptionConfirmation: ['Message', 'MessageId', 'SubscribeURL', 'Timestamp', 'Token', 'TopicArn', 'Type'],
  UnsubscribeConfirmation: ['Message', 'MessageId', 'SubscribeURL', 'Timestamp', 'Token', 'TopicArn', 'Type'],
};

/** An SNS message from its body, or why it is not one (SNS posts JSON as text/plain). */
export function parseSnsMessage(rawBody: Buffer): SnsMessage | { problem: string } {
  let body: unknown;
  try {
    body = JSON.parse(rawBody.toString('utf8'));
  } catch {
    return { problem: 'An SNS message body must be JSON' };
  }
  if (typeof body !== 'object' || body === null) return { problem: 'An SNS message body must be a JSON object' };
  const fields = body as Record<string, unknown>;
  const type = fields.Type;
  if (typeof type !== 'string' || !(SNS_MESSAGE_TYPES as readonly string[]).includes(type)) {
    return { problem: `SNS message Type must be one of ${SNS_MESSAGE_TYPES.join(', ')}` };
  }
  if (fields.SignatureVersion !== '1' && fields.SignatureVersion !== '2') return { problem: 'SNS SignatureVersion must be 1 or 2' };
  const required = [...SIGNED_FIELDS[type as SnsMessageType].filter((name) => name !== 'Subject'), 'Signature', 'SigningCertURL'] as const;
  for (const name of required) {
    if (typeof fields[name] !== 'string') return { problem: `An SNS ${type} needs ${name}` };
  }
  // SNS sends `"Subject": null` when a message has none; only a text Subject is signed.
  if (fields.Subject !== undefined && fields.Subject !== null && typeof fields.Subject !== 'string') return { problem: 'SNS Subject must be text' };
  const message = { ...fields } as unknown as SnsMessage;
  if (typeof fields.Subject !== 'string') delete message.Subject;
  return message;
}

/** The text SNS signed for this message. */
export function snsStringToSign(message: SnsMessage): string {
  return SIGNED_FIELDS[message.Type]
    .filter((name) => message[name] !== undefined)
    .map((name) => `${name}\n${message[name]}\n`)
    .join('');
}

/** Whether the message's Signature verifies with the certificate (PEM) and the certificate is valid at `now`. */
export function snsSignatureValid(message: SnsMessage, certificatePem: string, now: Date): boolean {
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(certificatePem);
  } catch {
    return false;
  }
  if (now < new Date(certificate.validFrom) || now > new Date(certificate.validTo)) return false;
  try {
    const verifier = createVerify(message.SignatureVersion === '1' ? 'RSA-SHA1' : 'RSA-SHA256');
    verifier.update(snsStringToSign(message), 'utf8');
    return verifier.verify(certificate.publicKey, message.Signature, 'base64');
  } catch {
    return false;
  }
}

/** Hosts SNS serves its certificates and subscription confirmations from (commercial and China partitions). */
const SNS_HOST = /^sns\.[a-z0-9-]+\.amazonaws\.com(\.cn)?$/;

/**
 * Whether `url` may be fetched for an SNS message: https on an sns.<region>.amazonaws.com host
 * (anything else would let a forged message make the gateway fetch a URL of the forger's
 * choosing, or trust the forger's certificate), or under `testOnlyOrigin`, a local imitation's
 * origin that only tests set. `pem` additionally asks for a certificate path (`.pem`).
 */
export function isSnsUrl(url: string, options: { pem: boolean; testOnlyOrigin?: string }): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (options.pem && !parsed.pathname.endsWith('.pem')) return false;
  if (options.testOnlyOrigin !== undefined && parsed.origin === new URL(options.testOnlyOrigin).origin) return true;
  return parsed.protocol === 'https:' && parsed.port === '' && parsed.username === '' && SNS_HOST.test(parsed.hostname);
}
