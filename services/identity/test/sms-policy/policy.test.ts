import { SmsFraudGuardSchema } from '@smsauth/contracts';
import { looksPumped, smsNumberFacts, smsPolicyOf, staticRefusal } from '../../src/domain/sms-policy/policy';
import { connectionBody } from '../helpers';

/* The policy's pure rules: what a number's country, type and prefix are, and when a prefix looks pumped. */

const options = (extra: Record<string, unknown> = {}) => ({ ...(connectionBody(extra).options as object), totp: { time_step: 300, length: 6 } }) as never;

describe('smsNumberFacts', () => {
  it('reads country, type and the prefix of calling code plus N digits', () => {
    expect(smsNumberFacts('+447400123456', 4)).toEqual({ country: 'GB', type: 'MOBILE', prefix: '+447400' });
    expect(smsNumberFacts('+19005550100', 3)).toEqual({ country: 'US', type: 'PREMIUM_RATE', prefix: '+1900' });
    expect(smsNumberFacts('+33612345678', 2)).toEqual({ country: 'FR', type: 'MOBILE', prefix: '+3361' });
  });

  it('still gives an invalid number a prefix (calling code and N digits) but no country or type', () => {
    expect(smsNumberFacts('+15555550100', 4)).toEqual({ country: undefined, type: undefined, prefix: '+15555' });
  });
});

describe('staticRefusal', () => {
  it('lets anything through for a connection without policy fields (created before the policy)', () => {
    const policy = smsPolicyOf(options());
    expect(staticRefusal(policy, smsNumberFacts('+19005550100', 4))).toBeNull();
    expect(policy.fraudGuard.mode).toBe('monitor');
  });

  it('refuses a valid number of an unlisted type, UNKNOWN included, but leaves invalid numbers to canonical numbers', () => {
    const policy = smsPolicyOf(options({ allowed_number_types: ['MOBILE'] }));
    expect(staticRefusal(policy, { country: 'XK', type: 'UNKNOWN', prefix: '+383' })?.reason).toBe('number_type');
    expect(staticRefusal(policy, smsNumberFacts('+15555550100', 4))).toBeNull();
  });

  it('with an allow list, refuses a number whose country cannot be read', () => {
    const policy = smsPolicyOf(options({ allowed_countries: ['US'] }));
    expect(staticRefusal(policy, smsNumberFacts('+15555550100', 4))?.reason).toBe('country');
  });
});

describe('looksPumped', () => {
  const guard = SmsFraudGuardSchema.parse({ min_sends: 10, min_conversion: 0.2 });

  it('judges only once min_sends earlier sends were counted (the send being decided is not one of them)', () => {
    expect(looksPumped(guard, { sends: 10, verified: 0 })).toBe(false);
    expect(looksPumped(guard, { sends: 11, verified: 0 })).toBe(true);
  });

  it('blocks below min_conversion and not at it', () => {
    expect(looksPumped(guard, { sends: 11, verified: 1 })).toBe(true);
    expect(looksPumped(guard, { sends: 11, verified: 2 })).toBe(false);
  });
});
