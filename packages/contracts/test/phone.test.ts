import { PhoneNumberSchema } from '../src';

describe('PhoneNumberSchema', () => {
  it.each(['+14155550123', '+1', '+123456789012345'])('accepts %s', (phone) => {
    expect(PhoneNumberSchema.parse(phone)).toBe(phone);
  });

  it.each([
    ['16 digits', '+1234567890123456'],
    ['a missing +', '14155550123'],
    ['spaces', '+1 415 555 0123'],
    ['dashes', '+1-415-555-0123'],
    ['a lone +', '+'],
    ['letters', '+1415CALLME'],
    ['a trailing newline', '+14155550123\n'],
  ])('rejects a number with %s', (_case, phone) => {
    const result = PhoneNumberSchema.safeParse(phone);
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toBe('must be an E.164 phone number like +14155550123');
  });
});
