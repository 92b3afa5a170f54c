import { Counter, type Registry } from 'prom-client';

/**
 * The web login on /metrics: sign-ins answered by /authorize, by how (`sms`: the hosted login's
 * SMS step; `passkey`: a passkey on the phone page; `session`: single sign-on from the login session; `silent`: prompt=none from the
 * session; `login_required`: prompt=none without a usable session) and flow (`code`, `implicit`);
 * and authorization code exchanges by result (`success`, `refused`, `replayed`).
 */
export interface WebLoginMetrics {
  signIns: Counter<'via' | 'flow'>;
  codeExchanges: Counter<'result'>;
}

export function createWebLoginMetrics(registry: Registry): WebLoginMetrics {
  return {
    signIns: new Counter({
      name: 'authorize_sign_ins_total',
      help: 'Authorization responses of /authorize by how the user was signed in (sms, passkey, session, silent, login_required) and flow (code, implicit)',
      labelNames: ['via', 'flow'] as const,
      registers: [registry],
    }),
    codeExchanges: new Counter({
      name: 'authorization_code_exchanges_total',
      help: 'grant_type=authorization_code requests by result (success, refused, replayed)',
      labelNames: ['result'] as const,
      registers: [registry],
    }),
  };
}
