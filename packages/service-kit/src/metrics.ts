import type { RequestHandler } from 'express';
import { Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** A registry per app, so several apps in one test process never collide. */
export function createMetricsRegistry(serviceName: string): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ service: serviceName });
  collectDefaultMetrics({ register: registry });
  return registry;
}

/** Records request duration labelled by route pattern (not raw path: bounded cardinality). */
export function httpMetricsMiddleware(registry: Registry): RequestHandler {
  const histogram = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request duration in seconds, by method, route and status code',
    labelNames: ['method', 'route', 'status_code'] as const,
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  return (req, res, next) => {
    const stop = histogram.startTimer();
    res.on('finish', () => {
      const route = req.route?.path ? `${req.baseUrl}${String(req.route.path)}` : res.locals.metricsRoute ?? 'unmatched';
      stop({ method: req.method, route, status_code: String(res.statusCode) });
    });
    next();
  };
}
