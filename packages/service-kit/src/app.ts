import express, { type Express, type Router } from 'express';
import type { Registry } from 'prom-client';
import { requestPlumbing } from './access-log';
import { errorHandlerWith, notFoundHandler, type ClientErrorRenderer } from './errors';
import { checkPath, checkQueryAndBody } from './input-guard';
import { Lifecycle } from './lifecycle';
import type { Logger } from './logger';
import { createMetricsRegistry, httpDurationRecorder } from './metrics';
import { mountOperations, type Operation } from './operation';
import { probeOperations } from './probes';
import { parseQueryOnce } from './query';

export interface ServiceAppOptions {
  name: string;
  logger: Logger;
  /** Mounts the service's own routes; called after the shared middleware, with the kit's declared operations (health, readiness, metrics) for the service's document. */
  routes: (app: Express, kitOperations: readonly Operation[]) => void;
  lifecycle?: Lifecycle;
  metrics?: Registry;
  /** JSON (and form) body size limit; larger bodies get 413. */
  bodyLimit?: string;
  /** Also parse application/x-www-form-urlencoded bodies (OAuth token endpoints). */
  urlencoded?: boolean;
  /** Express "trust proxy" setting: which client address counts behind proxies. */
  trustProxy?: boolean | number | string;
  /** Query parameters whose values stay out of the access log, besides token-like ones. */
  redactQueryParams?: readonly string[];
  /** Replaces the default JSON 404 (the API gateway renders its own). */
  notFound?: express.RequestHandler;
  /** Keep the exact bytes of parsed JSON bodies (rawBodyOf) for routes that check a signature over them. */
  keepRawBody?: boolean;
  /**
   * Path prefixes (static assets, pages that poll) whose successful reads (GET, HEAD) are logged at
   * debug rather than info; the API docs (`/docs`) are always among them. Errors log as usual.
   */
  debugPaths?: readonly string[];
  /** Writes client error bodies (the input guard's 400, body-parser errors, 404s) in the service's format; JSON by default. */
  renderClientError?: ClientErrorRenderer;
}

const RAW_BODY = Symbol('rawBody');

/** The exact bytes of a JSON body the shared parser read, when the app keeps them (keepRawBody). */
export function rawBodyOf(req: express.Request): Buffer | undefined {
  return (req as express.Request & { [RAW_BODY]?: Buffer })[RAW_BODY];
}

export interface ServiceApp {
  app: Express;
  /** The kit's own operations (health, readiness, metrics), declared as the service's are. */
  kitOperations: readonly Operation[];
  lifecycle: Lifecycle;
  metrics: Registry;
}

/** An Express app with the plumbing every service shares; it never listens. */
export function createServiceApp(options: ServiceAppOptions): ServiceApp {
  const lifecycle = options.lifecycle ?? new Lifecycle();
  const metrics = options.metrics ?? createMetricsRegistry(options.name);
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', options.trustProxy ?? false);
  app.set('query parser', 'simple');
  parseQueryOnce(app);

  const beginRequest = requestPlumbing(app, {
    logger: options.logger,
    redactUrl: queryRedactor(options.redactQueryParams ?? []),
    // Probes would drown the log; their failures still show up through readiness.
    quietPaths: ['/healthz', '/readyz', '/metrics', '/favicon.ico'],
    // The API reference's page and assets are static: a reader's visit is not an event.
    debugPaths: ['/docs', ...(options.debugPaths ?? [])],
    recordDuration: httpDurationRecorder(metrics),
  });

  // The kit's own answers: the probes, and the icon browsers ask every origin for (a 204 they
  // keep for a day, not a 404 per page).
  const kitRoutes = express.Router();
  kitRoutes.get('/favicon.ico', (_req, res) => {
    res.set('Cache-Control', 'public, max-age=86400').status(204).end();
  });
  const kitOperations = probeOperations(lifecycle, metrics);
  mountOperations(kitRoutes, kitOperations);
  const kitPaths = new Set(['/favicon.ico', ...kitOperations.map((operation) => operation.path)]);

  const limit = options.bodyLimit ?? '100kb';
  const bodyParsers: express.RequestHandler[] = [
    express.json({
      limit,
      ...(options.keepRawBody
        ? { verify: (req: express.Request & { [RAW_BODY]?: Buffer }, _res: unknown, buffer: Buffer) => void (req[RAW_BODY] = buffer) }
        : {}),
    }),
  ];
  if (options.urlencoded) bodyParsers.push(express.urlencoded({ limit, extended: false }));

  /** The body parsers from the `index`th on, then the input guard, then the service's routes. */
  function readInput(req: express.Request, res: express.Response, next: express.NextFunction, index = 0): void {
    const parser = bodyParsers[index];
    if (parser) {
      parser(req, res, (error?: unknown) => (error ? next(error) : readInput(req, res, next, index + 1)));
      return;
    }
    try {
      checkQueryAndBody(req);
    } catch (error) {
      return next(error);
    }
    next();
  }

  // Everything the kit does before a service's routes is one layer: Express matches each layer's
  // path and calls its handler for every request, so ten small middlewares cost more than the work
  // they do (BENCHMARKS.md, issue 35). In order: the request id, clock and access line; the path
  // guard (no handler ever sees a path, query or body text the database cannot hold); the kit's
  // own routes, entered only for their exact paths; the body parsers, only for a request that has
  // a body (the parsers' own test, type-is's hasBody); the query and body guard.
  const serviceKit: express.RequestHandler = (req, res, next) => {
    beginRequest(req, res);
    const path = req.path;
    checkPath(path);
    if (kitPaths.has(path)) {
      kitRoutes(req, res, (error?: unknown) => (error ? next(error) : readInput(req, res, next)));
      return;
    }
    if (hasBody(req)) {
      readInput(req, res, next);
      return;
    }
    checkQueryAndBody(req);
    next();
  };
  // The kit's routes stay visible to whatever walks the app's routers (a router's `stack`), as routes mounted on the app were.
  app.use(Object.assign(serviceKit, { stack: kitRoutes.stack }));

  options.routes(app, kitOperations);

  app.use(options.notFound ?? notFoundHandler);
  app.use(errorHandlerWith(options.renderClientError));
  return { app, kitOperations, lifecycle, metrics };
}

/** Whether a request carries a body, as the body parsers judge it (type-is's hasBody): a Transfer-Encoding, or a numeric Content-Length (0 included). */
function hasBody(req: express.Request): boolean {
  return req.headers['transfer-encoding'] !== undefined || !Number.isNaN(Number(req.headers['content-length']));
}

const SECRET_QUERY_PARAMS = ['access_token', 'id_token', 'code', 'otp', 'password', 'client_secret', 'token'];

/**
 * Tokens can arrive in query strings (the API gateway accepts `access_token`), and services
 * name more (a phone number in a filter): their values never reach the access log.
 */
export function queryRedactor(extraParams: readonly string[]): (url: string) => string {
  const names = [...SECRET_QUERY_PARAMS, ...extraParams].map((n) => n.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  const pattern = new RegExp(`([?&](?:${names.join('|')})=)[^&]*`, 'gi');
  return (url) => url.replace(pattern, '$1[REDACTED]');
}

export type { Router };
