import { type ErrorDetail, toErrorDetails } from '@smsauth/contracts';
import type { ErrorRequestHandler, RequestHandler, Response } from 'express';
import { z } from 'zod';

/**
 * An error meant for the client: `status`, a public `error` code and `error_description`.
 * `body` replaces the default `{error, error_description}` rendering for services whose
 * wire format differs (the API gateway's google.rpc.Status, for one).
 */
export class HttpError extends Error {
  constructor(
    public readonly status: number,
    public readonly error: string,
    public readonly errorDescription: string,
    public readonly options: {
      headers?: Record<string, string>;
      details?: ErrorDetail[];
      body?: unknown;
    } = {},
  ) {
    super(`${error}: ${errorDescription}`);
    this.name = 'HttpError';
  }

  toBody(): unknown {
    if (this.options.body !== undefined) return this.options.body;
    return {
      error: this.error,
      error_description: this.errorDescription,
      ...(this.options.details ? { details: this.options.details } : {}),
    };
  }
}

/** 400 invalid_request listing every failing field path. */
export function validationError(error: z.ZodError, code = 'invalid_request'): HttpError {
  const details = toErrorDetails(error.issues);
  const description = details.map((d) => (d.path ? `${d.path}: ${d.message}` : d.message)).join('; ');
  return new HttpError(400, code, description, { details });
}

/** Parses a value with a schema, throwing a 400 that names the failing fields. */
export function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown, code?: string): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw validationError(result.error, code);
  return result.data;
}

/**
 * Middleware form: validates `req.body` and/or `req.query` and stores the typed values in
 * `res.locals.body` / `res.locals.query` (Express 5's `req.query` is read-only).
 */
export function validate(schemas: { body?: z.ZodType; query?: z.ZodType }): RequestHandler {
  return (req, res, next) => {
    if (schemas.body) res.locals.body = parseOrThrow(schemas.body, req.body ?? {});
    if (schemas.query) res.locals.query = parseOrThrow(schemas.query, req.query);
    next();
  };
}

interface BodyParserError {
  type?: string;
  status?: number;
  expose?: boolean;
}

/** Maps errors raised by express.json/urlencoded into client errors. */
function fromBodyParser(err: unknown): HttpError | undefined {
  const parserError = err as BodyParserError;
  switch (parserError?.type) {
    case 'entity.too.large':
      return new HttpError(413, 'payload_too_large', 'Request body exceeds the size limit');
    case 'entity.parse.failed':
      return new HttpError(400, 'invalid_request', 'Request body is not valid JSON (an object or array is required)');
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new HttpError(415, 'invalid_request', 'Unsupported request body encoding');
    case 'request.aborted':
      return new HttpError(400, 'invalid_request', 'Request body was aborted');
    default:
      return undefined;
  }
}

export function toHttpError(err: unknown): HttpError | undefined {
  if (err instanceof HttpError) return err;
  if (err instanceof z.ZodError) return validationError(err);
  return fromBodyParser(err);
}

export const notFoundHandler: RequestHandler = (req, _res, next) => {
  next(new HttpError(404, 'not_found', `No route for ${req.method} ${req.path}`));
};

/** How a service writes a client error (4xx) body; the default is the JSON `{error, error_description}`. */
export type ClientErrorRenderer = (res: Response, error: HttpError) => void;

const jsonClientError: ClientErrorRenderer = (res, error) => {
  res.json(error.toBody());
};

/**
 * The one error renderer: client errors as they are (in the service's format: the airport API
 * answers text, as its document says), anything else a generic 500.
 */
export function errorHandlerWith(renderClientError: ClientErrorRenderer = jsonClientError): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const httpError = toHttpError(err);
    if (res.headersSent) {
      req.log?.error({ err }, 'error after response started');
      res.destroy();
      return;
    }
    if (httpError && httpError.status < 500) {
      for (const [name, value] of Object.entries(httpError.options.headers ?? {})) res.setHeader(name, value);
      renderClientError(res.status(httpError.status), httpError);
      return;
    }
    if (httpError) {
      // A deliberate 5xx (503 while a dependency is down): public text, no internals.
      req.log?.warn({ err }, 'request failed with a server-side error');
      for (const [name, value] of Object.entries(httpError.options.headers ?? {})) res.setHeader(name, value);
      res.status(httpError.status).json(httpError.toBody());
      return;
    }
    req.log?.error({ err }, 'unhandled error');
    res.status(500).json({ error: 'server_error', error_description: 'Internal server error' });
  };
}

export const errorHandler: ErrorRequestHandler = errorHandlerWith();
