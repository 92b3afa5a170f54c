import type { Registry } from 'prom-client';
import type { Lifecycle } from './lifecycle';
import { defineOperation, textResponse, type Operation } from './operation';

// The routes every service gets from the kit, declared as services declare theirs: a service's
// OpenAPI document publishes them from here (tag Operations).

type Json = Record<string, unknown>;

/** `{status, checks?}`: the probes' answer, `status` one of `values`. */
const statusBody = (values: string[]): Json => ({
  type: 'object',
  required: ['status'],
  additionalProperties: false,
  properties: { status: { enum: values }, checks: { type: 'object', additionalProperties: { type: 'string' } } },
});

/** `/healthz`, `/readyz` and `/metrics`. */
export function serviceKitOperations(deps: { lifecycle: Lifecycle; metrics: Registry }): Operation[] {
  const tags = ['Operations'];
  return [
    defineOperation({
      method: 'get',
      path: '/healthz',
      operationId: 'healthz',
      summary: 'Liveness',
      tags,
      responses: { '200': { description: 'Alive.', jsonSchema: statusBody(['ok']) } },
      handle: () => ({ status: 'ok' }),
    }),
    defineOperation({
      method: 'get',
      path: '/readyz',
      operationId: 'readyz',
      summary: 'Readiness (the database check)',
      tags,
      responses: {
        '200': { description: 'Ready.', jsonSchema: statusBody(['ready']) },
        '503': { description: 'Not ready or shutting down.', jsonSchema: statusBody(['not_ready', 'shutting_down']) },
      },
      handle: async ({ res }) => {
        if (deps.lifecycle.isShuttingDown) {
          res.status(503).json({ status: 'shutting_down', checks: {} });
          return;
        }
        const { ready, checks } = await deps.lifecycle.checkReadiness();
        res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'not_ready', checks });
      },
    }),
    defineOperation({
      method: 'get',
      path: '/metrics',
      operationId: 'metrics',
      summary: 'Prometheus metrics',
      tags,
      responses: { '200': textResponse('Prometheus text format.', 'text/plain') },
      handle: async ({ res }) => {
        res.setHeader('content-type', deps.metrics.contentType);
        res.send(await deps.metrics.metrics());
      },
    }),
  ];
}
