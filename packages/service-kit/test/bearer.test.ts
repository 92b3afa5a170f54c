import { bearerToken } from '../src';

describe('bearerToken', () => {
  it('returns the token of a Bearer header whatever the scheme case and surrounding whitespace', () => {
    expect(bearerToken('Bearer abc.def-ghi_~+/==')).toBe('abc.def-ghi_~+/==');
    expect(bearerToken('bearer abc')).toBe('abc');
    expect(bearerToken('BEARER   abc  ')).toBe('abc');
  });

  it('finds no token in a missing, empty, other-scheme or malformed header', () => {
    for (const header of [undefined, '', 'Bearer', 'Bearer ', 'Basic abc', 'Bearer a b', 'Bearer a=b', 'Bearerabc', 'Bearer ä']) {
      expect(bearerToken(header)).toBeUndefined();
    }
  });
});
