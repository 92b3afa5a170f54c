import { MESSAGE_ID_HEADER } from '@smsauth/contracts';
import type { RecordingServer } from '@smsauth/test-support';
import request from 'supertest';
import { AWS_SMS_ERRORS } from '../src/providers/aws-sms';
import { problemsOf } from './support/config';
import {
  AWS_ACCESS_KEY_ID,
  AWS_REGION,
  AWS_SECRET_ACCESS_KEY,
  AWS_TOPIC_ARN,
  CERTIFICATE_PATH,
  signLikeSns,
  snsTestCertificate,
  startFakeAws,
  type FakeAws,
} from './support/fake-aws';
import { VONAGE_KEY, VONAGE_SECRET, startFakeVonage } from './support/fake-vonage';
import { buildGateway, deliveryBody, metricValue } from './support/gateway';
import { withFakeAndBackup } from './support/provider-suite';
import { hang, startProvider } from './support/providers';

const PUBLIC_URL = 'https://sms-gateway.example.com';

describe('aws-sms provider', () => {
  let aws: FakeAws;
  let backup: RecordingServer;
  withFakeAndBackup(startFakeAws, (fake, server) => {
    [aws, backup] = [fake, server];
  });

  const awsEnv = (overrides: Record<string, string> = {}) => ({
    SMS_PROVIDER: 'aws-sms',
    AWS_SMS_REGION: AWS_REGION,
    AWS_SMS_ACCESS_KEY_ID: AWS_ACCESS_KEY_ID,
    AWS_SMS_SECRET_ACCESS_KEY: AWS_SECRET_ACCESS_KEY,
    AWS_SMS_ORIGINATION_IDENTITY: 'AcmeInc',
    AWS_SMS_CONFIGURATION_SET: 'otp-events',
    AWS_SMS_ENDPOINT: aws.origin,
    ...overrides,
  });

  it('sends SendTextMessage through the AWS SDK, SigV4-signed, as a transactional message carrying the gateway’s id', async () => {
    const { app, metrics, logs } = buildGateway(awsEnv());
    const res = await request(app).post('/sms').send(deliveryBody({ sender: '+19995550000' }));
    expect(res.status).toBe(200);
    expect(aws.requests).toHaveLength(1);
    const [sent] = aws.requests;
    expect(sent?.method).toBe('POST');
    expect(sent?.url).toBe('/');
    expect(sent?.headers['x-amz-target']).toBe('PinpointSMSVoiceV2.SendTextMessage');
    expect(sent?.headers['content-type']).toBe('application/x-amz-json-1.0');
    expect(sent?.headers.authorization).toMatch(new RegExp(`^AWS4-HMAC-SHA256 Credential=${AWS_ACCESS_KEY_ID}/\\d{8}/${AWS_REGION}/sms-voice/aws4_request, `));
    expect(sent?.headers['x-amz-date']).toMatch(/^\d{8}T\d{6}Z$/);
    expect(sent?.json).toEqual({
      DestinationPhoneNumber: '+14155550123',
      MessageBody: 'Your verification code is 482913',
      MessageType: 'TRANSACTIONAL',
      OriginationIdentity: 'AcmeInc',
      ConfigurationSetName: 'otp-events',
      Context: { gateway_message_id: res.headers[MESSAGE_ID_HEADER.toLowerCase()] },
    });
    expect(await metricValue(metrics, 'sms_deliveries_total', { provider: 'aws-sms', outcome: 'delivered' })).toBe(1);
    expect(logs.entries().find((entry) => entry.msg === 'sms delivered')?.providerMessageId).toMatch(/^[0-9a-f-]{36}$/);
    expect(logs.text()).not.toContain(AWS_SECRET_ACCESS_KEY);
    expect(logs.text()).not.toContain('482913');
  });

  it('sends text outside GSM-7 intact (AWS picks UCS-2 itself), and a route’s sender as the origination identity', async () => {
    const { app } = buildGateway(awsEnv({ SMS_ROUTES: JSON.stringify({ '+1': { providers: ['aws-sms'], sender: '+12065550152' } }) }));
    expect((await request(app).post('/sms').send(deliveryBody({ body: 'Код 123456 — 🔐' }))).status).toBe(200);
    expect(aws.requests[0]?.json).toMatchObject({ MessageBody: 'Код 123456 — 🔐', OriginationIdentity: '+12065550152' });
  });

  it('names the refusal but no credential when AWS denies access', async () => {
    aws.answerWith = { status: 403, name: 'AccessDeniedException', reason: 'ACCOUNT_DISABLED', message: 'Account is disabled' };
    const { app, logs } = buildGateway(awsEnv());
    const res = await request(app).post('/sms').send(deliveryBody());
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ error: 'provider_error', error_description: 'AWS AccessDeniedException (ACCOUNT_DISABLED) (HTTP 403): Account is disabled' });
    expect(JSON.stringify(res.body) + logs.text()).not.toContain(AWS_SECRET_ACCESS_KEY);
  });

  describe('error mapping: each AWS exception (and reason) decides between failing over and refusing the message', () => {
    // SendTextMessage's exceptions, read as: may another provider deliver it?
    const table: Array<[name: string, reason: string | undefined, httpStatus: number, failsOver: boolean]> = [
      ['ThrottlingException', undefined, 400, true],
      ['InternalServerException', undefined, 500, true],
      ['ServiceQuotaExceededException', 'MONTHLY_SPEND_LIMIT_REACHED_FOR_TEXT', 402, true],
      ['AccessDeniedException', 'INSUFFICIENT_ACCOUNT_REPUTATION', 403, true],
      ['ResourceNotFoundException', undefined, 404, true],
      ['ConflictException', 'NO_ORIGINATION_IDENTITIES_FOUND', 409, true],
      ['ConflictException', 'DESTINATION_PHONE_NUMBER_OPTED_OUT', 409, false],
      ['ConflictException', 'DESTINATION_COUNTRY_BLOCKED_BY_PROTECT_CONFIGURATION', 409, false],
      ['ConflictException', 'DESTINATION_PHONE_NUMBER_BLOCKED_BY_PROTECT_NUMBER_OVERRIDE', 409, false],
      ['ValidationException', 'INVALID_PARAMETER', 400, false],
      ['ValidationException', 'CANNOT_PARSE', 400, false],
      ['ValidationException', 'MAXIMUM_SIZE_EXCEEDED', 400, false],
      ['ValidationException', 'DESTINATION_COUNTRY_BLOCKED', 400, true],
      ['ValidationException', 'COUNTRY_NOT_ENABLED', 400, true],
      ['ValidationException', 'INTERNATIONAL_SENDING_NOT_SUPPORTED', 400, true],
      ['ValidationException', 'INVALID_IDENTITY_FOR_DESTINATION_COUNTRY', 400, true],
      ['ValidationException', 'SENDER_ID_NOT_REGISTERED', 400, true],
      ['ValidationException', 'SENDER_ID_NOT_SUPPORTED', 400, true],
      ['ValidationException', 'SENDER_ID_REQUIRES_REGISTRATION', 400, true],
      ['ValidationException', 'PRICE_OVER_THRESHOLD', 400, true],
      ['ValidationException', 'INVALID_ARN', 400, true],
      ['ValidationException', 'RESOURCE_NOT_ACCESSIBLE', 400, true],
      ['ValidationException', 'CHANNEL_NOT_ENABLED', 400, true],
      // Not in the table: the HTTP status decides.
      ['SomeFutureException', undefined, 400, false],
      ['SomeFutureServerException', undefined, 503, true],
    ];

    it('covers every entry of the provider table', () => {
      const covered = new Set(table.flatMap(([name, reason]) => (reason !== undefined ? [name, `${name}:${reason}`] : [name])));
      for (const key of Object.keys(AWS_SMS_ERRORS)) expect(covered).toContain(key);
    });

    it.each(table)('%s (%s, HTTP %d): fails over to the next provider = %s', async (name, reason, httpStatus, failsOver) => {
      aws.answerWith = { status: httpStatus, name, ...(reason !== undefined ? { reason } : {}), message: 'refused' };
      const { app, metrics } = buildGateway({
        SMS_PROVIDER_INSTANCES: JSON.stringify({ backup: { provider: 'webhook', WEBHOOK_URL: backup.url() } }),
        SMS_ROUTES: JSON.stringify({ default: ['aws-sms', 'backup'] }),
        ...awsEnv(),
      });
      const res = await request(app).post('/sms').send(deliveryBody());
      expect(aws.requests).toHaveLength(1);
      if (failsOver) {
        expect(res.status).toBe(200);
        expect(backup.requests).toHaveLength(1);
        expect(await metricValue(metrics, 'sms_failovers_total', { from: 'aws-sms', to: 'backup' })).toBe(1);
      } else {
        expect(res.status).toBe(500);
        expect(res.body).toEqual({ error: 'provider_error', error_description: `AWS ${name}${reason !== undefined ? ` (${reason})` : ''} (HTTP ${httpStatus}): refused` });
        expect(backup.requests).toHaveLength(0);
      }
    });
  });

  it('fails over to a Vonage instance when AWS cannot be reached', async () => {
    const [gone, vonage] = await Promise.all([startProvider(), startFakeVonage()]);
    const unreachable = gone.origin;
    await gone.close();
    try {
      const { app, logs, metrics } = buildGateway({
        SMS_PROVIDER_INSTANCES: JSON.stringify({
          'vonage-eu': { provider: 'vonage', VONAGE_API_KEY: VONAGE_KEY, VONAGE_API_SECRET: VONAGE_SECRET, VONAGE_FROM: 'AcmeInc', VONAGE_API_BASE_URL: vonage.baseUrl },
        }),
        SMS_ROUTES: JSON.stringify({ default: ['aws-sms', 'vonage-eu'] }),
        ...awsEnv({ AWS_SMS_ENDPOINT: unreachable }),
      });
      expect((await request(app).post('/sms').send(deliveryBody())).status).toBe(200);
      expect(vonage.requests).toHaveLength(1);
      expect(await metricValue(metrics, 'sms_failovers_total', { from: 'aws-sms', to: 'vonage-eu' })).toBe(1);
      expect(logs.entries().find((entry) => entry.msg === 'sms delivered')?.attempts).toEqual([
        { provider: 'aws-sms', outcome: 'failed' },
        { provider: 'vonage-eu', outcome: 'accepted' },
      ]);
    } finally {
      await vonage.close();
    }
  });

  it('gives up on an AWS endpoint that does not answer within AWS_SMS_TIMEOUT_MS, saying so', async () => {
    const silent = await startProvider(hang);
    try {
      const { app } = buildGateway(awsEnv({ AWS_SMS_ENDPOINT: silent.origin, AWS_SMS_TIMEOUT_MS: '300' }));
      const started = Date.now();
      const res = await request(app).post('/sms').send(deliveryBody());
      expect(res.status).toBe(500);
      expect(res.body.error_description).toBe('AWS End User Messaging request failed: no answer within 300 ms');
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(silent.requests).toHaveLength(1);
    } finally {
      await silent.close();
    }
  });

  it('refuses WhatsApp and voice deliveries (SMS only)', async () => {
    const { app } = buildGateway(awsEnv());
    const res = await request(app).post('/sms').send(deliveryBody({ channel: 'voice' }));
    expect(res.status).toBe(500);
    expect(res.body.error_description).toBe('AWS End User Messaging sends SMS only here, not voice');
    expect(aws.requests).toHaveLength(0);
  });
});

describe('aws-sms settings', () => {
  it('names the missing region when aws-sms is selected, and takes credentials from the AWS chain when no keys are set', () => {
    expect(problemsOf({ SMS_PROVIDER: 'aws-sms' })).toEqual(['AWS_SMS_REGION: is required when SMS_PROVIDER is aws-sms']);
    expect(problemsOf({ SMS_PROVIDER: 'aws-sms', AWS_SMS_REGION: 'us-east-1', NODE_ENV: 'production' })).toEqual([]);
  });

  it('refuses half a key pair, a session token alone, a bad region, sender, configuration set or topic', () => {
    const base = { SMS_PROVIDER: 'aws-sms', AWS_SMS_REGION: AWS_REGION };
    expect(problemsOf({ ...base, AWS_SMS_ACCESS_KEY_ID: AWS_ACCESS_KEY_ID })).toEqual([expect.stringMatching(/^AWS_SMS_SECRET_ACCESS_KEY: AWS_SMS_ACCESS_KEY_ID and AWS_SMS_SECRET_ACCESS_KEY go together/)]);
    expect(problemsOf({ ...base, AWS_SMS_SESSION_TOKEN: 'token' })).toEqual(['AWS_SMS_SESSION_TOKEN: needs AWS_SMS_ACCESS_KEY_ID and AWS_SMS_SECRET_ACCESS_KEY']);
    expect(problemsOf({ ...base, AWS_SMS_REGION: 'Ireland' })).toEqual([expect.stringMatching(/^AWS_SMS_REGION: must be an AWS region/)]);
    expect(problemsOf({ ...base, AWS_SMS_ACCESS_KEY_ID: 'not-a-key', AWS_SMS_SECRET_ACCESS_KEY: AWS_SECRET_ACCESS_KEY })).toEqual([expect.stringMatching(/^AWS_SMS_ACCESS_KEY_ID: must be an AWS access key id/)]);
    expect(problemsOf({ ...base, AWS_SMS_ORIGINATION_IDENTITY: 'Acme Corporation' })).toEqual([expect.stringMatching(/^AWS_SMS_ORIGINATION_IDENTITY: must be an E.164 number/)]);
    for (const identity of ['+12065550152', 'Acme', 'pool-2f4a6e1c8e0b4b6d9f0a1b2c3d4e5f60', 'arn:aws:sms-voice:eu-west-1:123456789012:phone-number/phone-abc']) {
      expect(problemsOf({ ...base, AWS_SMS_ORIGINATION_IDENTITY: identity })).toEqual([]);
    }
    expect(problemsOf({ ...base, AWS_SMS_CONFIGURATION_SET: 'otp events' })).toEqual([expect.stringMatching(/^AWS_SMS_CONFIGURATION_SET: must be a configuration set name/)]);
    expect(problemsOf({ ...base, AWS_SMS_CONFIGURATION_SET: 'otp-events', AWS_SMS_SNS_TOPIC_ARN: 'sms-events' })).toEqual([expect.stringMatching(/^AWS_SMS_SNS_TOPIC_ARN: must be an SNS topic ARN/)]);
    expect(problemsOf({ ...base, AWS_SMS_SNS_TOPIC_ARN: AWS_TOPIC_ARN })).toEqual([expect.stringMatching(/^AWS_SMS_SNS_TOPIC_ARN: delivery events come from a configuration set/)]);
  });

  it('refuses the test-only SNS origin in production', () => {
    expect(problemsOf({ SMS_PROVIDER: 'aws-sms', AWS_SMS_REGION: AWS_REGION, NODE_ENV: 'production', AWS_SMS_TEST_ONLY_SNS_ORIGIN: 'http://127.0.0.1:9' })).toEqual([
      'AWS_SMS_TEST_ONLY_SNS_ORIGIN: is for tests only and is refused in production: it trusts SNS certificates from another origin',
    ]);
  });
});

describe('AWS delivery receipts (End User Messaging events through an SNS HTTPS subscription)', () => {
  let aws: FakeAws;
  beforeAll(async () => {
    aws = await startFakeAws();
  });
  afterAll(() => aws.close());
  beforeEach(() => {
    aws.confirmations.length = 0;
  });

  const gateway = (overrides: Record<string, string> = {}) =>
    buildGateway({
      SMS_PROVIDER: 'aws-sms',
      AWS_SMS_REGION: AWS_REGION,
      AWS_SMS_ACCESS_KEY_ID: AWS_ACCESS_KEY_ID,
      AWS_SMS_SECRET_ACCESS_KEY: AWS_SECRET_ACCESS_KEY,
      AWS_SMS_CONFIGURATION_SET: 'otp-events',
      AWS_SMS_ENDPOINT: aws.origin,
      AWS_SMS_SNS_TOPIC_ARN: AWS_TOPIC_ARN,
      AWS_SMS_TEST_ONLY_SNS_ORIGIN: aws.origin,
      GATEWAY_PUBLIC_URL: PUBLIC_URL,
      ...overrides,
    });
  type App = ReturnType<typeof gateway>['app'];

  async function sendOne(app: App) {
    const res = await request(app).post('/sms').send(deliveryBody());
    expect(res.status).toBe(200);
    const id = res.headers[MESSAGE_ID_HEADER.toLowerCase()] as string;
    const status = await request(app).get(`/messages/${id}`);
    return { id, awsId: (status.body as { provider_message_id: string }).provider_message_id };
  }
  const statusOf = async (app: App, id: string) => (await request(app).get(`/messages/${id}`)).body as unknown;

  /** An SNS Notification carrying an SMS event as End User Messaging documents it. */
  const notification = (event: Record<string, unknown>, certUrl = `${aws.origin}${CERTIFICATE_PATH}`) => ({
    Type: 'Notification',
    MessageId: '22b80b92-fdea-4c2c-8f9d-bdfb0c7bf324',
    TopicArn: AWS_TOPIC_ARN,
    Message: JSON.stringify({
      eventVersion: '1.0',
      eventTimestamp: 1736942401000,
      originationPhoneNumber: '+12065550152',
      destinationPhoneNumber: '+14155550123',
      isoCountryCode: 'US',
      messageRequestTimestamp: 1736942400000,
      messageEncoding: 'GSM',
      messageType: 'TRANSACTIONAL',
      totalMessageParts: 1,
      ...event,
    }),
    Timestamp: '2025-01-15T12:00:01.000Z',
    SigningCertURL: certUrl,
    UnsubscribeURL: `${aws.origin}/?Action=Unsubscribe&SubscriptionArn=x`,
  });
  const smsEvent = (id: string, awsId: string, eventType: string, messageStatus: string, isFinal = true) => ({
    eventType,
    isFinal,
    messageId: awsId,
    messageStatus,
    messageStatusDescription: 'as the carrier said',
    context: { gateway_message_id: id },
  });
  const post = (app: App, body: unknown, type = 'Notification') =>
    request(app)
      .post('/receipts/aws-sms')
      .set('content-type', 'text/plain; charset=UTF-8')
      .set('x-amz-sns-message-type', type)
      .send(JSON.stringify(body));

  it('confirms the SNS subscription of its topic, signed with SignatureVersion 1', async () => {
    const { app } = gateway();
    const subscribeUrl = `${aws.origin}/?Action=ConfirmSubscription&TopicArn=${AWS_TOPIC_ARN}&Token=2336412f37fb687f5d51e6e2425f004aed`;
    const confirmation = signLikeSns(
      {
        Type: 'SubscriptionConfirmation',
        MessageId: '165545c9-2a5c-472c-8df2-7ff2be2b3b1b',
        Token: '2336412f37fb687f5d51e6e2425f004aed',
        TopicArn: AWS_TOPIC_ARN,
        Message: `You have chosen to subscribe to the topic ${AWS_TOPIC_ARN}.`,
        SubscribeURL: subscribeUrl,
        Timestamp: '2025-01-15T12:00:00.000Z',
        SigningCertURL: `${aws.origin}${CERTIFICATE_PATH}`,
      },
      aws.signingKey,
      '1',
    );
    expect((await post(app, confirmation, 'SubscriptionConfirmation')).status).toBe(204);
    expect(aws.confirmations).toEqual([subscribeUrl.slice(aws.origin.length)]);
  });

  it('does not confirm a subscription to another topic, nor one whose SubscribeURL is not an SNS URL', async () => {
    const { app } = gateway();
    const base = {
      Type: 'SubscriptionConfirmation',
      MessageId: '165545c9-2a5c-472c-8df2-7ff2be2b3b1b',
      Token: 'token',
      Message: 'subscribe',
      Timestamp: '2025-01-15T12:00:00.000Z',
      SigningCertURL: `${aws.origin}${CERTIFICATE_PATH}`,
    };
    const otherTopic = 'arn:aws:sns:eu-west-1:999999999999:someone-elses-topic';
    const foreign = signLikeSns({ ...base, TopicArn: otherTopic, SubscribeURL: `${aws.origin}/?Action=ConfirmSubscription&TopicArn=${otherTopic}` }, aws.signingKey);
    expect((await post(app, foreign, 'SubscriptionConfirmation')).status).toBe(400);
    const elsewhere = signLikeSns({ ...base, TopicArn: AWS_TOPIC_ARN, SubscribeURL: 'https://attacker.example/?Action=ConfirmSubscription' }, aws.signingKey);
    expect((await post(app, elsewhere, 'SubscriptionConfirmation')).status).toBe(400);
    expect(aws.confirmations).toEqual([]);
  });

  it('records a signed TEXT_DELIVERED event as delivered, and TEXT_CARRIER_UNREACHABLE as undelivered with its status', async () => {
    const { app } = gateway();
    const first = await sendOne(app);
    expect((await post(app, signLikeSns(notification(smsEvent(first.id, first.awsId, 'TEXT_SUCCESSFUL', 'SUCCESSFUL', false)), aws.signingKey))).status).toBe(204);
    expect(await statusOf(app, first.id)).toMatchObject({ status: 'sent' });
    expect((await post(app, signLikeSns(notification(smsEvent(first.id, first.awsId, 'TEXT_DELIVERED', 'DELIVERED')), aws.signingKey))).status).toBe(204);
    expect(await statusOf(app, first.id)).toMatchObject({ status: 'delivered', error_code: null });

    const second = await sendOne(app);
    // With a Subject, which SNS signs too.
    const unreachable = { ...notification(smsEvent(second.id, second.awsId, 'TEXT_CARRIER_UNREACHABLE', 'CARRIER_UNREACHABLE')), Subject: 'Amazon SMS event' };
    expect((await post(app, signLikeSns(unreachable, aws.signingKey, '1'))).status).toBe(204);
    expect(await statusOf(app, second.id)).toMatchObject({ status: 'undelivered', error_code: 'CARRIER_UNREACHABLE' });
  });

  it('acknowledges, recording nothing, signed events of messages it did not send and events that move no status', async () => {
    const { app, metrics } = gateway();
    const { id, awsId } = await sendOne(app);
    const { context: _context, ...foreign } = smsEvent(id, awsId, 'TEXT_DELIVERED', 'DELIVERED');
    expect((await post(app, signLikeSns(notification(foreign), aws.signingKey))).status).toBe(204);
    const voice = signLikeSns({ ...notification(smsEvent(id, awsId, 'VOICE_COMPLETED', 'COMPLETED')), Subject: null } as unknown as Record<string, string>, aws.signingKey);
    expect((await post(app, voice)).status).toBe(204);
    expect(await statusOf(app, id)).toMatchObject({ status: 'accepted' });
    expect(await metricValue(metrics, 'sms_delivery_status_total', { provider: 'aws-sms', status: 'delivered' })).toBeUndefined();
  });

  it('refuses an unsigned, a forged, a tampered event and one whose certificate is not on an SNS host with 403, changing nothing', async () => {
    const { app } = gateway();
    const { id, awsId } = await sendOne(app);
    const genuine = notification(smsEvent(id, awsId, 'TEXT_DELIVERED', 'DELIVERED'));
    const forger = await snsTestCertificate();
    const tampered = { ...signLikeSns(notification(smsEvent(id, awsId, 'TEXT_BLOCKED', 'BLOCKED')), aws.signingKey), Message: genuine.Message };
    const offHost = signLikeSns(notification(smsEvent(id, awsId, 'TEXT_DELIVERED', 'DELIVERED'), 'https://attacker.example/SimpleNotificationService-x.pem'), aws.signingKey);
    for (const body of [genuine, signLikeSns(genuine, forger.key), tampered, offHost]) expect((await post(app, body)).status).toBe(403);
    expect(await statusOf(app, id)).toMatchObject({ status: 'accepted' });
  });

  it('trusts no local certificate without the test-only origin: only https://sns.<region>.amazonaws.com', async () => {
    const { app } = gateway({ AWS_SMS_TEST_ONLY_SNS_ORIGIN: '' });
    const { id, awsId } = await sendOne(app);
    expect((await post(app, signLikeSns(notification(smsEvent(id, awsId, 'TEXT_DELIVERED', 'DELIVERED')), aws.signingKey))).status).toBe(403);
    expect(await statusOf(app, id)).toMatchObject({ status: 'accepted' });
  });

  it('refuses a genuine event whose AWS message id is not the one of the message it names (404)', async () => {
    const { app } = gateway();
    const first = await sendOne(app);
    const second = await sendOne(app);
    const crossed = signLikeSns(notification(smsEvent(second.id, first.awsId, 'TEXT_DELIVERED', 'DELIVERED')), aws.signingKey);
    expect((await post(app, crossed)).status).toBe(404);
    expect(await statusOf(app, second.id)).toMatchObject({ status: 'accepted' });
  });

  it('takes no events without AWS_SMS_SNS_TOPIC_ARN (404)', async () => {
    const { app } = gateway({ AWS_SMS_SNS_TOPIC_ARN: '' });
    const { id, awsId } = await sendOne(app);
    expect((await post(app, signLikeSns(notification(smsEvent(id, awsId, 'TEXT_DELIVERED', 'DELIVERED')), aws.signingKey))).status).toBe(404);
  });
});
