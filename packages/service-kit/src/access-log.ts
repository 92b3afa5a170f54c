import type { IncomingMessage } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { Express, Request, Response } from 'express';
import { accessLineWriter, type Logger } from './logger';
import type { HttpDurationRecorder } from './metrics';
import { assignRequestId } from './request-id';

declare module 'http' {
  interface IncomingMessage {
    /** The request id (the caller's sane `x-request-id`, else a new UUID), echoed back. */
    id: string;
    /** A logger bound to this request's id, method and URL; made on first use. */
    log: Logger;
  }
}

export interface RequestPlumbingOptions {
  logger: Logger;
  /** Rewrites the URL before it is logged (secrets in query strings). */
  redactUrl: (url: string) => string;
  /** Paths with no access line (probes); they are still measured. */
  quietPaths: readonly string[];
  /**
   * Path prefixes whose successful reads (GET, HEAD) are logged at debug, not info (static assets,
   * pages that poll): they would drown the events. A status of 400 or more, and any other
   * method (a form posted to the same path), logs at its usual level.
   */
  debugPaths?: readonly string[];
  /** Where each answered request's duration goes (`http_request_duration_seconds`). */
  recordDuration: HttpDurationRecorder;
}

const REQUEST_LOGGER = Symbol('request logger');
const STARTED_AT = Symbol('started at');

type TimedRequest = Request & { [STARTED_AT]: number };

function requestFields(req: IncomingMessage & { originalUrl?: string }, redactUrl: (url: string) => string) {
  // A router mounted on a path rewrites req.url; originalUrl is what the caller asked for.
  const url = req.originalUrl ?? req.url ?? '';
  return { id: req.id, method: req.method, url: redactUrl(url), remoteAddress: req.socket?.remoteAddress };
}

const ROUTE = Symbol('route');
const ROUTE_BASE_URL = Symbol('route base url');

type RoutedRequest = Request & { [ROUTE]?: Request['route']; [ROUTE_BASE_URL]?: string };

/**
 * Express sets `req.route` when a route matches, while `req.baseUrl` is the path its router is
 * mounted on; an error leaving that router restores `req.baseUrl` to the parent's before the
 * error handler answers. Keeping the base URL of the moment the route matched gives the route's
 * full pattern whatever the status (`/api/v2/connections` for a 201 and for a 400 alike).
 */
function rememberRouteBaseUrl(request: Request): void {
  Object.defineProperty(request, 'route', {
    configurable: true,
    get(this: RoutedRequest) {
      return this[ROUTE];
    },
    set(this: RoutedRequest, route: Request['route']) {
      this[ROUTE] = route;
      this[ROUTE_BASE_URL] = this.baseUrl;
    },
  });
}

/** The full pattern of the route a request matched (bounded label values), else what the app named, else `unmatched`. */
function routeOf(req: RoutedRequest, res: Response): string {
  const path = req[ROUTE]?.path;
  if (path) {
    const baseUrl = req[ROUTE_BASE_URL] ?? '';
    return baseUrl === '' ? String(path) : `${baseUrl}${String(path)}`;
  }
  return (res.locals.metricsRoute as string | undefined) ?? 'unmatched';
}

/**
 * A request's shared per-request work in one call and one hook: the request id (echoed
 * in `x-request-id`), one clock reading at the start, and when the response closes (sent, or
 * abandoned by the client) the duration histogram and one access line. The hook is a single
 * function shared by every request (`this` is the response), so a request allocates no
 * closures or timers of its own; the line is built only when its level is enabled, written
 * straight as JSON text (accessLineWriter: the same line pino would write, no object per request).
 * `req.log` is made only when a route asks for it. The line records only the response status,
 * never response headers (a redirect's Location can carry tokens).
 */
export function requestPlumbing(app: Express, options: RequestPlumbingOptions): (req: Request, res: Response) => void {
  const { logger, redactUrl, recordDuration } = options;
  const quiet = new Set(options.quietPaths);
  const debugPrefixes = options.debugPaths ?? [];
  const isDebugRead = (req: Request) =>
    (req.method === 'GET' || req.method === 'HEAD') && debugPrefixes.some((prefix) => req.originalUrl.startsWith(prefix));
  const writeAccessLine = accessLineWriter(logger);
  rememberRouteBaseUrl(app.request);
  Object.defineProperty(app.request, 'log', {
    configurable: true,
    get(this: IncomingMessage & { [REQUEST_LOGGER]?: Logger }) {
      return (this[REQUEST_LOGGER] ??= logger.child({ req: requestFields(this, redactUrl) }));
    },
  });

  function onResponseClosed(this: Response): void {
    const req = this.req as TimedRequest;
    const elapsedMs = performance.now() - req[STARTED_AT];
    const status = this.statusCode;
    // 'close' follows 'finish' for an answered request; without 'finish' the client went away.
    const aborted = !this.writableFinished;
    // An abandoned request has no meaningful status or duration to chart.
    if (!aborted) recordDuration(req.method, routeOf(req, this), status, elapsedMs / 1000);
    if (quiet.has(req.originalUrl)) return;
    const level =
      aborted || status >= 500 ? 'error' : status >= 400 ? 'warn' : debugPrefixes.length > 0 && isDebugRead(req) ? 'debug' : 'info';
    if (!logger.isLevelEnabled(level)) return;
    const message = aborted ? 'request aborted' : status >= 500 ? 'request errored' : 'request completed';
    // The fields of requestFields(), in its order.
    const url = redactUrl(req.originalUrl ?? req.url ?? '');
    writeAccessLine(level, message, req.id, req.method, url, req.socket?.remoteAddress, status, Math.round(elapsedMs));
  }

  return (req, res) => {
    (req as TimedRequest)[STARTED_AT] = performance.now();
    req.id = assignRequestId(req, res);
    res.on('close', onResponseClosed);
  };
}

