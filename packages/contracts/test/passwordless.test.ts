import {
  StartRequestSchema,
  StartResponseSchema,
  classifyStartRequestIssue,
  startRequestErrorCode,
} from '../src';
import { startRequestExample, startResponseExample } from './examples';

function issuesOf(body: unknown) {
  return StartRequestSchema.safeParse(body).error?.issues ?? [];
}

describe('StartRequestSchema', () => {
  it('accepts the start request the spec shows', () => {
    expect(StartRequestSchema.parse(startRequestExample)).toEqual(startRequestExample);
  });

  it('defaults send to code', () => {
    const { send: _send, ...withoutSend } = startRequestExample;
    expect(StartRequestSchema.parse(withoutSend).send).toBe('code');
  });

  it('keeps extra authParams such as nonce and audience', () => {
    const authParams = { scope: 'openid', state: 's', nonce: 'n', audience: 'https://api' };
    expect(StartRequestSchema.parse({ ...startRequestExample, authParams }).authParams).toEqual(authParams);
  });

  it('leaves the E.164 check of phone_number to the identity service', () => {
    expect(StartRequestSchema.safeParse({ ...startRequestExample, phone_number: '555 0123' }).success).toBe(true);
  });
});

describe('classifyStartRequestIssue', () => {
  it.each([
    ['a missing client_id', { ...startRequestExample, client_id: undefined }, 'bad.client_id'],
    ['a missing connection', { ...startRequestExample, connection: undefined }, 'bad.connection'],
    ['a numeric phone_number', { ...startRequestExample, phone_number: 14155550123 }, 'bad.phone_number'],
    ['authParams that are not an object', { ...startRequestExample, authParams: 'openid' }, 'bad.authParams'],
    ['an authParams.state that is not a string', { ...startRequestExample, authParams: { state: 1 } }, 'bad.authParams'],
    ['an unknown property', { ...startRequestExample, email: 'a@example.com' }, 'bad.request'],
    ['send "link"', { ...startRequestExample, send: 'link' }, 'bad.request'],
    ['a body that is not an object', 'phone=+14155550123', 'bad.request'],
  ])('maps %s to its error code', (_case, body, code) => {
    const issues = issuesOf(body);
    expect(issues).toHaveLength(1);
    expect(classifyStartRequestIssue(issues[0]!)).toBe(code);
  });

  it('answers the earliest code in validation order when several fields are wrong', () => {
    const body = { connection: 7, phone_number: 1, extra: true };
    expect(startRequestErrorCode(issuesOf(body))).toBe('bad.client_id');
    expect(startRequestErrorCode(issuesOf({ ...startRequestExample, phone_number: 1, extra: true }))).toBe(
      'bad.phone_number',
    );
  });
});

describe('StartResponseSchema', () => {
  it('accepts the start response the spec shows', () => {
    expect(StartResponseSchema.parse(startResponseExample)).toEqual(startResponseExample);
  });

  it('rejects a response without phone_verified', () => {
    const { phone_verified: _verified, ...rest } = startResponseExample;
    expect(StartResponseSchema.safeParse(rest).success).toBe(false);
  });
});
