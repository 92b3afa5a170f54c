import type { IncomingMessage } from 'node:http';
import type { Express, RequestHandler } from 'express';
import type { Logger } from './logger';
import { assignRequestId } from './request-id';

declare module 'http' {
  interface IncomingMessage {
    /** The request id (the caller's sane `x-request-id`, else a new UUID), echoed back. */
    id: string;
    /** A logger bound to this request's id, method and URL; made on first use. */
    log: Logger;
  }
}

export interface AccessLogOptions {
  logger: Logger;
  /** Rewrites the URL before it is logged (secrets in query strings). */
  redactUrl: (url: string) => string;
  /** Paths with no access line (probes). */
  quietPaths: readonly string[];
}

const REQUEST_LOGGER = Symbol('request logger');

function requestFields(req: IncomingMessage & { originalUrl?: string }, redactUrl: (url: string) => string) {
  // A router mounted on a path rewrites req.url; originalUrl is what the caller asked for.
  const url = req.originalUrl ?? req.url ?? '';
  return { id: req.id, method: req.method, url: redactUrl(url), remoteAddress: req.socket?.remoteAddress };
}

/**
 * Request ids, `req.log` and one access line per response. It replaces pino-http, which
 * built a child logger (serialising the request) for every request whether or not anything
 * logged through it: `req.log` is made only when a route asks for it. The line records only
 * the response status, never response headers (a redirect's Location can carry tokens).
 */
export function installAccessLog(app: Express, options: AccessLogOptions): RequestHandler {
  const { logger, redactUrl } = options;
  const quiet = new Set(options.quietPaths);
  Object.defineProperty(app.request, 'log', {
    configurable: true,
    get(this: IncomingMessage & { [REQUEST_LOGGER]?: Logger }) {
      return (this[REQUEST_LOGGER] ??= logger.child({ req: requestFields(this, redactUrl) }));
    },
  });
  return (req, res, next) => {
    req.id = assignRequestId(req, res);
    if (quiet.has(req.url)) return next();
    const startedAt = Date.now();
    const done = () => {
      res.removeListener('finish', done);
      res.removeListener('close', done);
      const aborted = !res.writableFinished;
      const status = res.statusCode;
      const level = aborted || status >= 500 ? 'error' : status >= 400 ? 'warn' : 'info';
      if (!logger.isLevelEnabled(level)) return;
      const message = aborted ? 'request aborted' : status >= 500 ? 'request errored' : 'request completed';
      logger[level](
        { req: requestFields(req, redactUrl), res: { statusCode: status }, responseTime: Date.now() - startedAt },
        message,
      );
    };
    res.on('finish', done);
    res.on('close', done);
    next();
  };
}
