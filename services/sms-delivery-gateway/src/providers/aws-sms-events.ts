import type { MessageStatusValue } from '@smsauth/contracts';
import type { AxiosInstance } from 'axios';
import type { SnsCertificates } from './sns-certificates';
import { isSnsUrl, parseSnsMessage, snsSignatureValid } from '../domain/sns-message';
import type { Receipt, ReceiptReading, ReceiptRequest } from '../domain/sms-provider';

// The aws-sms provider's delivery receipts: End User Messaging SMS events, published by the
// configuration set's event destination to an SNS topic, which posts them to the gateway.

export interface SnsCheck {
  /** AWS_SMS_SNS_TOPIC_ARN: the only topic whose messages are taken. */
  topicArn: string;
  certificates: SnsCertificates;
  http: AxiosInstance;
  now: Date;
  /** The Context key the sender put the gateway's message id under. */
  contextKey: string;
  testOnlyOrigin?: string;
}

/**
 * An SNS message of the event destination's topic: its signature is checked with the SNS
 * certificate (fetched only from an SNS host), then its topic. A SubscriptionConfirmation is
 * confirmed by fetching its SubscribeURL (also only on an SNS host); a Notification carries one
 * End User Messaging SMS event, which names the gateway's message in its `context`.
 */
export async function readSnsEvent(request: ReceiptRequest, check: SnsCheck): Promise<ReceiptReading> {
  const message = parseSnsMessage(request.rawBody);
  if ('problem' in message) return { kind: 'unsigned' };
  const allowed = check.testOnlyOrigin !== undefined ? { testOnlyOrigin: check.testOnlyOrigin } : {};
  if (!isSnsUrl(message.SigningCertURL, { pem: true, ...allowed })) return { kind: 'bad_signature' };
  const certificate = await check.certificates.get(message.SigningCertURL);
  if (certificate === undefined || !snsSignatureValid(message, certificate, check.now)) return { kind: 'bad_signature' };
  if (message.TopicArn !== check.topicArn) return { kind: 'invalid', description: 'The SNS message is from another topic than AWS_SMS_SNS_TOPIC_ARN' };

  if (message.Type === 'UnsubscribeConfirmation') return { kind: 'acknowledged', description: `SNS unsubscribed this URL from ${message.TopicArn}` };
  if (message.Type === 'SubscriptionConfirmation') {
    const subscribeUrl = message.SubscribeURL ?? '';
    if (!isSnsUrl(subscribeUrl, { pem: false, ...allowed })) return { kind: 'invalid', description: 'The SubscribeURL is not an SNS URL' };
    try {
      await check.http.get(subscribeUrl, { timeout: 10_000, maxRedirects: 0, validateStatus: (status) => status === 200 });
    } catch {
      return { kind: 'invalid', description: 'The SNS subscription could not be confirmed (SubscribeURL did not answer 200); SNS sends the confirmation again' };
    }
    return { kind: 'acknowledged', description: `SNS subscription to ${message.TopicArn} confirmed` };
  }
  return readSmsEvent(message.Message, check.contextKey);
}

interface SmsEvent {
  eventType?: unknown;
  isFinal?: unknown;
  messageId?: unknown;
  messageStatus?: unknown;
  context?: Record<string, unknown> | null;
}

/** One End User Messaging SMS event (the SNS Notification's Message) as a receipt. */
function readSmsEvent(text: string, contextKey: string): ReceiptReading {
  let event: SmsEvent;
  try {
    event = JSON.parse(text) as SmsEvent;
  } catch {
    return { kind: 'invalid', description: 'The SNS Notification does not carry an End User Messaging SMS event (JSON)' };
  }
  if (typeof event !== 'object' || event === null || typeof event.eventType !== 'string') {
    return { kind: 'invalid', description: 'The SNS Notification does not carry an End User Messaging SMS event (eventType)' };
  }
  const status = statusFromAwsSmsEvent(event.eventType, event.isFinal === true);
  if (status === undefined) return { kind: 'acknowledged', description: `event ${event.eventType} moves no message status` };
  const messageId = event.context?.[contextKey];
  // A configuration set may be shared with other senders: their events are not refused (SNS would resend them), only not recorded.
  if (typeof messageId !== 'string') return { kind: 'acknowledged', description: `event of a message not sent by this gateway (no context.${contextKey})` };
  if (typeof event.messageId !== 'string') return { kind: 'invalid', description: 'An SMS event needs messageId' };
  const receipt: Receipt = { status, messageId, providerMessageId: event.messageId };
  if (status !== 'delivered' && status !== 'accepted' && status !== 'sent' && typeof event.messageStatus === 'string') receipt.errorCode = event.messageStatus;
  return { kind: 'receipt', receipt };
}

/**
 * End User Messaging SMS event types ("Event types for SMS, MMS, and voice") in the gateway's
 * terms. TEXT_SUCCESSFUL is the carrier's acceptance, which in countries without handset
 * receipts is final and used as TEXT_DELIVERED is ("may be used interchangeably"): delivered
 * when the event says it is final, sent otherwise. Blocked, spam and invalid never went out
 * (failed); unreachable and expired reached no handset (undelivered). Queued, pending and
 * unknown change nothing (accepted). Other types (voice, MMS) are not SMS statuses.
 */
export function statusFromAwsSmsEvent(eventType: string, isFinal: boolean): MessageStatusValue | undefined {
  switch (eventType) {
    case 'TEXT_QUEUED':
    case 'TEXT_PENDING':
    case 'TEXT_UNKNOWN':
      return 'accepted';
    case 'TEXT_SUCCESSFUL':
      return isFinal ? 'delivered' : 'sent';
    case 'TEXT_DELIVERED':
      return 'delivered';
    case 'TEXT_TTL_EXPIRED':
    case 'TEXT_UNREACHABLE':
    case 'TEXT_CARRIER_UNREACHABLE':
      return 'undelivered';
    case 'TEXT_BLOCKED':
    case 'TEXT_CARRIER_BLOCKED':
    case 'TEXT_SPAM':
    case 'TEXT_INVALID':
    case 'TEXT_INVALID_MESSAGE':
    case 'TEXT_PROTECT_BLOCKED':
      return 'failed';
    default:
      return undefined;
  }
}
