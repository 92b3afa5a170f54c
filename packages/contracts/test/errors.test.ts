import { z } from 'zod';
import {
  ErrorCodes,
  OAuthErrorBodySchema,
  SmsProviderErrorDescriptions,
  WRONG_CODE_DESCRIPTION,
  toErrorDetails,
} from '../src';

describe('OAuthErrorBodySchema', () => {
  it('accepts an error body with validation details', () => {
    const body = {
      error: ErrorCodes.BAD_REQUEST,
      error_description: 'Invalid request body',
      details: [{ path: 'options.totp.length', message: 'Too small' }],
    };
    expect(OAuthErrorBodySchema.parse(body)).toEqual(body);
  });

  it('rejects a body without error_description', () => {
    expect(OAuthErrorBodySchema.safeParse({ error: 'invalid_request' }).success).toBe(false);
  });
});

describe('error descriptions', () => {
  it('words SMS gateway failures as the reference product does', () => {
    expect(SmsProviderErrorDescriptions.unexpectedGatewayResponse(500)).toBe(
      'Unexpected response while calling the SMS gateway: 500',
    );
    expect(SmsProviderErrorDescriptions.GATEWAY_AUTH_FAILED).toBe(
      'Authentication failed while calling the SMS gateway: 401',
    );
    expect(SmsProviderErrorDescriptions.GATEWAY_TIMEOUT).toBe('Timeout while calling the SMS gateway');
    expect(WRONG_CODE_DESCRIPTION).toBe('Wrong phone number or verification code.');
  });

  it('lists each error code once', () => {
    const codes = Object.values(ErrorCodes);
    expect(new Set(codes).size).toBe(codes.length);
    expect(codes).toHaveLength(25);
  });
});

describe('toErrorDetails', () => {
  it('gives each issue a dotted path and splits unknown keys into one entry per key', () => {
    const schema = z.strictObject({ options: z.strictObject({ totp: z.object({ length: z.int() }) }) });
    const result = schema.safeParse({ options: { totp: { length: 'six' }, tmeplate: 'x', form: 'y' } });
    expect(toErrorDetails(result.error?.issues ?? [])).toEqual([
      { path: 'options.totp.length', message: expect.any(String) },
      { path: 'options.tmeplate', message: 'unknown field' },
      { path: 'options.form', message: 'unknown field' },
    ]);
  });
});
