import { createSign, randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { RecordingServer } from '@smsauth/test-support';
import { generate } from 'selfsigned';

export const AWS_ACCESS_KEY_ID = 'AKIAIOSFODNN7EXAMPLE';
export const AWS_SECRET_ACCESS_KEY = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
export const AWS_REGION = 'eu-west-1';
export const AWS_TOPIC_ARN = 'arn:aws:sns:eu-west-1:123456789012:sms-events';
export const CERTIFICATE_PATH = '/SimpleNotificationService-test.pem';

export interface AwsRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  json: Record<string, unknown>;
}

/** An exception AWS answers: HTTP status, the exception's name and its Reason. */
export interface AwsErrorAnswer {
  status: number;
  name: string;
  reason?: string;
  message?: string;
}

export interface FakeAws {
  /** The End User Messaging SMS endpoint (AWS_SMS_ENDPOINT) and the SNS origin (certificates, confirmations). */
  origin: string;
  /** SendTextMessage calls. */
  requests: AwsRequest[];
  /** Subscription confirmations (GETs of a SubscribeURL). */
  confirmations: string[];
  answerWith: AwsErrorAnswer | undefined;
  /** The PEM of the private key SNS signs with here, whose certificate is served at CERTIFICATE_PATH. */
  signingKey: string;
  close(): Promise<void>;
}

/** A self-signed RSA certificate standing in for SNS's signing certificate, valid around the tests' fixed clock. */
export async function snsTestCertificate(): Promise<{ cert: string; key: string }> {
  const generated = await generate([{ name: 'commonName', value: 'sns.eu-west-1.amazonaws.com' }], {
    keyType: 'rsa',
    keySize: 2048,
    algorithm: 'sha256',
    notBeforeDate: new Date(Date.UTC(2024, 0, 1)),
    notAfterDate: new Date(Date.UTC(2034, 0, 1)),
  });
  return { cert: generated.cert, key: generated.private };
}

/**
 * Signs an SNS message as "Verifying the signatures of Amazon SNS messages" documents, written
 * here independently of the gateway: `name\nvalue\n` for each signed field present, in the
 * documented order (Notification: Message, MessageId, Subject, Timestamp, TopicArn, Type;
 * confirmations: Message, MessageId, SubscribeURL, Timestamp, Token, TopicArn, Type), RSA with
 * SHA1 (SignatureVersion 1) or SHA256 (2), base64.
 */
export function signLikeSns(message: Record<string, string>, privateKeyPem: string, version: '1' | '2' = '2'): Record<string, string> {
  const fields =
    message.Type === 'Notification'
      ? ['Message', 'MessageId', 'Subject', 'Timestamp', 'TopicArn', 'Type']
      : ['Message', 'MessageId', 'SubscribeURL', 'Timestamp', 'Token', 'TopicArn', 'Type'];
  let text = '';
  // A message without a subject carries none, or `"Subject": null`: neither is signed.
  for (const field of fields) if (message[field] !== undefined && message[field] !== null) text += `${field}\n${message[field]}\n`;
  const signature = createSign(version === '1' ? 'RSA-SHA1' : 'RSA-SHA256').update(text, 'utf8').sign(privateKeyPem, 'base64');
  return { ...message, SignatureVersion: version, Signature: signature };
}

/**
 * A small imitation of the AWS JSON 1.0 protocol of End User Messaging SMS (`POST /` with
 * `X-Amz-Target: PinpointSMSVoiceV2.SendTextMessage`), answering as the API reference shows:
 * 400 `MissingAuthenticationTokenException` without a SigV4 `Authorization` header for this
 * access key and region's `sms-voice` scope, the exception the test chooses (`__type`, `Reason`),
 * else `{MessageId}`. It also serves SNS's side: the signing certificate and the SubscribeURL.
 */
export async function startFakeAws(): Promise<FakeAws> {
  const certificate = await snsTestCertificate();
  const requests: AwsRequest[] = [];
  const confirmations: string[] = [];
  const fake: FakeAws = { origin: '', requests, confirmations, answerWith: undefined, signingKey: certificate.key, close: async () => undefined };
  const server = await RecordingServer.start({
    responder: (req, res, recorded) => {
      const reply = (status: number, body: unknown, headers: Record<string, string> = {}) => {
        res.writeHead(status, { 'content-type': 'application/x-amz-json-1.0', ...headers });
        res.end(JSON.stringify(body));
      };
      if (recorded.method === 'GET' && recorded.path === CERTIFICATE_PATH) {
        res.writeHead(200, { 'content-type': 'application/x-pem-file' });
        res.end(certificate.cert);
        return;
      }
      if (recorded.method === 'GET' && recorded.path.startsWith('/?Action=ConfirmSubscription')) {
        confirmations.push(recorded.path);
        res.writeHead(200, { 'content-type': 'text/xml' });
        res.end('<ConfirmSubscriptionResponse><ConfirmSubscriptionResult><SubscriptionArn>arn</SubscriptionArn></ConfirmSubscriptionResult></ConfirmSubscriptionResponse>');
        return;
      }
      let json: Record<string, unknown> = {};
      try {
        json = JSON.parse(recorded.body) as Record<string, unknown>;
      } catch {
        // Recorded as {}.
      }
      requests.push({ method: recorded.method, url: recorded.path, headers: recorded.headers, json });
      if (recorded.method !== 'POST' || req.headers['x-amz-target'] !== 'PinpointSMSVoiceV2.SendTextMessage') {
        reply(400, { __type: 'UnknownOperationException' });
        return;
      }
      const scope = new RegExp(`^AWS4-HMAC-SHA256 Credential=${AWS_ACCESS_KEY_ID}/\\d{8}/${AWS_REGION}/sms-voice/aws4_request, SignedHeaders=[a-z0-9;-]+, Signature=[0-9a-f]{64}$`);
      if (!scope.test(String(req.headers.authorization ?? ''))) {
        reply(400, { __type: 'MissingAuthenticationTokenException', message: 'Missing Authentication Token' }, { 'x-amzn-errortype': 'MissingAuthenticationTokenException' });
        return;
      }
      const error = fake.answerWith;
      if (error !== undefined) {
        reply(
          error.status,
          { __type: `com.amazonaws.pinpointsmsvoicev2#${error.name}`, Message: error.message ?? error.name, ...(error.reason !== undefined ? { Reason: error.reason } : {}) },
          { 'x-amzn-errortype': error.name },
        );
        return;
      }
      reply(200, { MessageId: randomUUID() });
    },
  });
  fake.origin = server.origin;
  fake.close = () => server.close();
  return fake;
}
