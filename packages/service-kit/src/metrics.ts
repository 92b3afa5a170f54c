import { Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** A registry per app, so several apps in one test process never collide. */
export function createMetricsRegistry(serviceName: string): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ service: serviceName });
  collectDefaultMetrics({ register: registry });
  return registry;
}

/** Observes one answered request's duration under its method, route pattern and status. */
export type HttpDurationRecorder = (method: string, route: string, statusCode: number, seconds: number) => void;

type BoundHistogram = ReturnType<Histogram<'method' | 'route' | 'status_code'>['labels']>;

/**
 * `http_request_duration_seconds` labelled by method, route pattern (not raw path: bounded
 * cardinality) and status code. Each label combination is bound once (`labels()`) and kept,
 * so a request costs three map lookups instead of building, validating and sorting a label
 * object; the combinations are as bounded as the label values.
 */
export function httpDurationRecorder(registry: Registry): HttpDurationRecorder {
  const histogram = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request duration in seconds, by method, route and status code',
    labelNames: ['method', 'route', 'status_code'] as const,
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const bound = new Map<string, Map<string, Map<number, BoundHistogram>>>();
  return (method, route, statusCode, seconds) => {
    let byMethod = bound.get(route);
    if (!byMethod) bound.set(route, (byMethod = new Map()));
    let byStatus = byMethod.get(method);
    if (!byStatus) byMethod.set(method, (byStatus = new Map()));
    let child = byStatus.get(statusCode);
    if (!child) byStatus.set(statusCode, (child = histogram.labels(method, route, String(statusCode))));
    child.observe(seconds);
  };
}
