import { Counter, type Registry } from 'prom-client';
import type { BackchannelLogoutMetrics } from '../domain/logout/backchannel';

/**
 * backchannel_logout_deliveries_total{outcome}: each logout_token POST by outcome (delivered,
 * failed: tried again later, abandoned: not tried again, refused: the URL policy refused the
 * address). No client label: a tenant may have many clients; the tenant logs name them.
 */
export function backchannelLogoutMetrics(registry: Registry): BackchannelLogoutMetrics {
  const deliveries = new Counter({
    name: 'backchannel_logout_deliveries_total',
    help: 'Back-channel logout token deliveries by outcome (delivered, failed, abandoned, refused)',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  return { delivery: (outcome) => deliveries.inc({ outcome }) };
}
