import { canonicalPhoneNumber, isKnownCountry } from '../../src/domain/phone/canonical-number';

describe('canonicalPhoneNumber', () => {
  it.each([
    ['+14155552671', undefined, '+14155552671'],
    ['+1 (415) 555-2671', undefined, '+14155552671'],
    ['(415) 555-2671', 'US', '+14155552671'],
    ['07911 123456', 'GB', '+447911123456'],
    ['+44 7911 123456', 'FR', '+447911123456'],
  ])('reads %s (country %s) as %s', (input, country, e164) => {
    const result = canonicalPhoneNumber(input, country);
    expect(result).toEqual({ ok: true, number: expect.objectContaining({ e164 }) });
  });

  it('tells the country, calling code and type of a UK mobile number', () => {
    expect(canonicalPhoneNumber('+447400123456')).toEqual({
      ok: true,
      number: { e164: '+447400123456', country: 'GB', callingCode: '44', type: 'MOBILE' },
    });
  });

  it('types a UK premium-rate number as PREMIUM_RATE', () => {
    const result = canonicalPhoneNumber('+449098790000');
    expect(result.ok && result.number.type).toBe('PREMIUM_RATE');
  });

  it.each([
    ['+4479', 'too_short', 'phone_number is too short'],
    ['+44791112345678999', 'too_long', 'phone_number is too long'],
    ['+999123456789', 'invalid_country', expect.stringContaining('unknown country code')],
    ['07911 123456', 'invalid_country', expect.stringContaining('unknown country code')],
    ['not a number', 'not_a_number', 'phone_number is not a phone number'],
    ['+44 1012 345678', 'not_valid_for_country', 'phone_number is not a valid number for +44'],
  ])('refuses %s as %s', (input, problem, description) => {
    expect(canonicalPhoneNumber(input)).toEqual({ ok: false, problem, description });
  });

  it('names the country the number was read for when it is not valid there', () => {
    expect(canonicalPhoneNumber('01012 345678', 'GB')).toEqual({
      ok: false,
      problem: 'not_valid_for_country',
      description: 'phone_number is not a valid number for GB',
    });
  });

  it('knows ISO country codes libphonenumber has metadata for, in upper case only', () => {
    expect(isKnownCountry('GB')).toBe(true);
    expect(isKnownCountry('gb')).toBe(false);
    expect(isKnownCountry('XX')).toBe(false);
  });
});
