import type { Registry } from 'prom-client';
import { z } from 'zod';
import type { Lifecycle } from './lifecycle';
import { defineOperation, type Operation } from './operation';

// The probes every service answers (createServiceApp mounts them): declared once, so that a
// service's API document lists them as they are served.

/** `GET /healthz`: the process answers. */
export const LivenessSchema = z.object({ status: z.literal('ok') });

const readinessChecks = z.record(z.string(), z.string()).describe("Each readiness check by name: `ok`, why it failed, or what the service does without the dependency (`degraded: …`, still ready).");
export const ReadySchema = z.object({ status: z.literal('ready'), checks: readinessChecks });
export const NotReadySchema = z.object({ status: z.enum(['not_ready', 'shutting_down']), checks: readinessChecks });

/** The tag the probes are listed under. */
export const PROBES_TAG = 'Operations';

/** `/healthz`, `/readyz` (the lifecycle's readiness checks) and `/metrics` (Prometheus text). */
export function probeOperations(lifecycle: Lifecycle, metrics: Registry): Operation[] {
  return [
    defineOperation({
      method: 'get',
      path: '/healthz',
      operationId: 'healthz',
      tags: [PROBES_TAG],
      summary: 'Liveness',
      responses: { '200': { description: 'Alive.', schema: LivenessSchema } },
      handle: () => ({ status: 'ok' }),
    }),
    defineOperation({
      method: 'get',
      path: '/readyz',
      operationId: 'readyz',
      tags: [PROBES_TAG],
      summary: 'Readiness (every readiness check the service registered)',
      responses: {
        '200': { description: 'Ready.', schema: ReadySchema },
        '503': { description: 'Not ready, or shutting down.', schema: NotReadySchema },
      },
      handle: async ({ res }) => {
        if (lifecycle.isShuttingDown) {
          res.status(503).json({ status: 'shutting_down', checks: {} });
          return undefined;
        }
        const { ready, checks } = await lifecycle.checkReadiness();
        if (ready) return { status: 'ready', checks };
        res.status(503).json({ status: 'not_ready', checks });
        return undefined;
      },
    }),
    defineOperation({
      method: 'get',
      path: '/metrics',
      operationId: 'metrics',
      tags: [PROBES_TAG],
      summary: 'Prometheus metrics',
      responses: { '200': { description: 'Prometheus text format.', contentType: 'text/plain', jsonSchema: { type: 'string' } } },
      handle: async ({ res }) => {
        res.setHeader('content-type', metrics.contentType);
        return metrics.metrics();
      },
    }),
  ];
}

/**
 * The probes' declarations alone, for a document built without a running service (the API
 * reference generator): no readiness checks, no metrics registry; their handlers never run.
 */
export function probeDeclarations(): Operation[] {
  return probeOperations({} as Lifecycle, {} as Registry);
}
