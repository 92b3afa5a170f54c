import { isSnsUrl, parseSnsMessage } from '../src/domain/sns-message';

describe('SNS message rules', () => {
  it('fetches certificates only over https from sns.<region>.amazonaws.com (or .com.cn), as a .pem path', () => {
    for (const url of [
      'https://sns.eu-west-1.amazonaws.com/SimpleNotificationService-9c6465fa7f48f5cacd23014631ec1136.pem',
      'https://sns.cn-north-1.amazonaws.com.cn/SimpleNotificationService-abc.pem',
    ]) {
      expect(isSnsUrl(url, { pem: true })).toBe(true);
    }
    for (const url of [
      'http://sns.eu-west-1.amazonaws.com/SimpleNotificationService-abc.pem',
      'https://sns.eu-west-1.amazonaws.com.attacker.example/SimpleNotificationService-abc.pem',
      'https://attacker.example/sns.eu-west-1.amazonaws.com/x.pem',
      'https://sns.eu-west-1.amazonaws.com:8443/SimpleNotificationService-abc.pem',
      'https://user@sns.eu-west-1.amazonaws.com/SimpleNotificationService-abc.pem',
      'https://s3.eu-west-1.amazonaws.com/SimpleNotificationService-abc.pem',
      'https://sns.eu-west-1.amazonaws.com/SimpleNotificationService-abc.txt',
      'not a url',
    ]) {
      expect(isSnsUrl(url, { pem: true })).toBe(false);
    }
  });

  it('trusts the test-only origin only when it is given', () => {
    const local = 'http://127.0.0.1:4555/SimpleNotificationService-test.pem';
    expect(isSnsUrl(local, { pem: true })).toBe(false);
    expect(isSnsUrl(local, { pem: true, testOnlyOrigin: 'http://127.0.0.1:4555' })).toBe(true);
    expect(isSnsUrl('http://127.0.0.1:4556/SimpleNotificationService-test.pem', { pem: true, testOnlyOrigin: 'http://127.0.0.1:4555' })).toBe(false);
  });

  it('reads a message only with its type’s signed fields, a known SignatureVersion and a certificate URL', () => {
    const notification = { Type: 'Notification', MessageId: 'm', TopicArn: 't', Message: '{}', Timestamp: 'now', SignatureVersion: '2', Signature: 's', SigningCertURL: 'u', Subject: null };
    const parsed = parseSnsMessage(Buffer.from(JSON.stringify(notification)));
    expect(parsed).toMatchObject({ Type: 'Notification', MessageId: 'm' });
    expect('Subject' in parsed).toBe(false);
    expect(parseSnsMessage(Buffer.from(JSON.stringify({ ...notification, SignatureVersion: '3' })))).toEqual({ problem: 'SNS SignatureVersion must be 1 or 2' });
    expect(parseSnsMessage(Buffer.from(JSON.stringify({ ...notification, Type: 'SubscriptionConfirmation' })))).toEqual({ problem: 'An SNS SubscriptionConfirmation needs SubscribeURL' });
    expect(parseSnsMessage(Buffer.from('not json'))).toEqual({ problem: 'An SNS message body must be JSON' });
  });
});
