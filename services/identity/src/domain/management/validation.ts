import { ErrorCodes, toErrorDetails } from '@smsauth/contracts';
import { HttpError } from '@smsauth/service-kit';
import type { z } from 'zod';

/** 400 invalid_request listing each failing field path (one entry per unknown field). */
export function validationFailed(issues: readonly z.core.$ZodIssue[]): HttpError {
  const details = toErrorDetails(issues);
  return new HttpError(400, ErrorCodes.INVALID_REQUEST, details.map((d) => `${d.path}: ${d.message}`).join('; '), { details });
}

export function invalidField(path: string, message: string): HttpError {
  return new HttpError(400, ErrorCodes.INVALID_REQUEST, `${path}: ${message}`, { details: [{ path, message }] });
}

export function parseBody<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const result = schema.safeParse(value ?? {});
  if (!result.success) throw validationFailed(result.error.issues);
  return result.data;
}

export function notFound(what: string): HttpError {
  return new HttpError(404, ErrorCodes.NOT_FOUND, `${what} not found`);
}

export function conflict(description: string): HttpError {
  return new HttpError(409, ErrorCodes.CONFLICT, description);
}

export function forbidden(description: string): HttpError {
  return new HttpError(403, ErrorCodes.FORBIDDEN, description);
}
