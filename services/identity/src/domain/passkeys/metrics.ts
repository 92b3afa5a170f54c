import { Counter, type Registry } from 'prom-client';

/**
 * Passkeys on /metrics. `passkey_logins_total{result}`: sign-ins with a passkey (success) and
 * refused assertions (refused, with the reason); `passkey_enrollments_total{result}`: passkeys
 * registered after an SMS login; `passkey_sms_saved_total`: the SMS messages not sent because a
 * returning user signed in with a passkey (one per passkey sign-in), the cost an operator avoided.
 */
export interface PasskeyMetrics {
  logins: Counter<'result' | 'reason'>;
  enrollments: Counter<'result'>;
  smsSaved: Counter;
}

export function createPasskeyMetrics(registry: Registry): PasskeyMetrics {
  return {
    logins: new Counter({
      name: 'passkey_logins_total',
      help: 'Hosted-login sign-ins with a passkey by result (success, refused) and, when refused, reason',
      labelNames: ['result', 'reason'] as const,
      registers: [registry],
    }),
    enrollments: new Counter({
      name: 'passkey_enrollments_total',
      help: 'Passkeys registered after an SMS login, by result (success, refused)',
      labelNames: ['result'] as const,
      registers: [registry],
    }),
    smsSaved: new Counter({
      name: 'passkey_sms_saved_total',
      help: 'SMS messages not sent because the user signed in with a passkey (one per passkey sign-in)',
      registers: [registry],
    }),
  };
}
