import { completeTimeline, countryOfNumber, deviceOf } from '../src/screens/user-data';
import type { TenantLog } from '../src/screens/timeline';
import { timeTexts } from '../src/time';

const log = (log_id: string, date: string, type: string): TenantLog => ({ log_id, date, type, description: type, details: {} });

describe('a user\'s page', () => {
  it('names a device by browser, system and kind, and keeps a user agent it cannot read', () => {
    expect(deviceOf('Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36')).toBe(
      'Chrome 131 on macOS 10.15.7 (desktop)',
    );
    expect(deviceOf('Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1')).toBe(
      'Safari 17 on iOS 17.5 (mobile)',
    );
    expect(deviceOf('curl/8.5.0')).toBe('curl/8.5.0');
    expect(deviceOf(undefined)).toBeUndefined();
  });

  it('reads the country from the number\'s calling code and prefix', () => {
    expect(countryOfNumber('+447400123456', 'en')).toEqual({ code: 'GB', name: 'United Kingdom' });
    expect(countryOfNumber('+14155550100', 'en')).toEqual({ code: 'US', name: 'United States' });
    expect(countryOfNumber('+16135550100', 'en')).toEqual({ code: 'CA', name: 'Canada' });
    expect(countryOfNumber('not a number')).toBeUndefined();
    expect(countryOfNumber(undefined)).toBeUndefined();
  });

  it('shows the number\'s records before sign-up with the user\'s own, each once, oldest first', () => {
    const sentBeforeSignup = log('1', '2026-01-01T10:00:00.000Z', 'cs');
    const signup = log('2', '2026-01-01T10:01:00.000Z', 'ss');
    const blocked = log('3', '2026-01-02T08:00:00.000Z', 'sapi');
    expect(completeTimeline([blocked, signup], [signup, sentBeforeSignup]).map((l) => l.log_id)).toEqual(['1', '2', '3']);
  });

  it('writes a time in the operator\'s zone and the same time in UTC for the hover', () => {
    expect(timeTexts('2026-03-04T05:06:07.891Z', 'Asia/Tokyo', 'en-GB')).toEqual({ local: '4 Mar 2026, 14:06:07 GMT+9', utc: '2026-03-04 05:06:07 UTC' });
    expect(timeTexts('not a date')).toBeUndefined();
  });
});
