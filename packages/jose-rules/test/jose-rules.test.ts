import { duplicateMemberName, isCanonicalBase64url, isNumericDate, MAX_NUMERIC_DATE } from '../src';

describe('duplicateMemberName', () => {
  it.each([
    ['{"alg":"RS256","alg":"none"}', 'alg'],
    ['{"alg":"RS256","\\u0061lg":"none"}', 'alg'],
    ['{"a":{"k":1,"k":2}}', 'k'],
    ['{"a":[{"k":1},{"x":1,"x":2}]}', 'x'],
  ])('finds the repeated name in %s', (text, name) => {
    expect(duplicateMemberName(text)).toBe(name);
  });

  it.each([
    '{"alg":"RS256","kid":"alg"}',
    '{"a":{"k":1},"b":{"k":2}}',
    '{"a":["k","k"],"k":"a\\"k\\":1,\\"k"}',
    '{ "a" : 1 , "b" : [ { "a" : 2 } ] }',
    '[]',
  ])('finds none in %s', (text) => {
    expect(duplicateMemberName(text)).toBeUndefined();
  });
});

describe('isCanonicalBase64url', () => {
  it('accepts what Node encodes and refuses padding, the standard alphabet and set pad bits', () => {
    expect(isCanonicalBase64url(Buffer.from('a?>').toString('base64url'))).toBe(true);
    expect(isCanonicalBase64url('')).toBe(true);
    expect(isCanonicalBase64url('YQ==')).toBe(false);
    expect(isCanonicalBase64url('Pz8/')).toBe(false);
    expect(isCanonicalBase64url('YR')).toBe(false);
    expect(isCanonicalBase64url('Y')).toBe(false);
  });
});

describe('isNumericDate', () => {
  it('takes finite seconds from 0 up to the largest Date, fractions included', () => {
    expect([0, 1.5, 1_900_000_000, MAX_NUMERIC_DATE].every(isNumericDate)).toBe(true);
    expect([-1, MAX_NUMERIC_DATE + 1, Number.MAX_SAFE_INTEGER + 1, 1e308, Infinity, NaN, '1', null].some(isNumericDate)).toBe(false);
  });
});
