import type { Request } from 'express';
import { HttpError } from './errors';

/**
 * Text no service accepts anywhere: NUL (PostgreSQL's text types cannot hold it, so it would
 * surface as a 500 from the database) and UTF-16 surrogates without their pair (not Unicode
 * characters: they cannot be encoded as UTF-8, so they would be stored as U+FFFD, altered).
 */
// eslint-disable-next-line no-control-regex -- finding NUL is the point
const UNACCEPTABLE_TEXT = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Why `text` is refused, or undefined when it is acceptable. */
export function unacceptableTextProblem(text: string): string | undefined {
  const match = UNACCEPTABLE_TEXT.exec(text);
  if (!match) return undefined;
  return match[0] === '\u0000' ? 'contains a NUL character' : 'contains an unpaired UTF-16 surrogate';
}

/** 400 naming where the text was (`where`, for people) and its field path (`field`, for details). */
function refused(where: string, field: string, problem: string): HttpError {
  return new HttpError(400, 'invalid_request', `${where} ${problem}`, { details: [{ path: field, message: problem }] });
}

/**
 * Every path segment must be valid percent-encoding of UTF-8 (RFC 3986 §2.1) and decode to
 * acceptable text. Express decodes route parameters lazily and fails a malformed escape with a
 * URIError deep in its router; checking here answers a 400 for every route of every service.
 * Throws the 400.
 */
export function checkPath(path: string): void {
  // Most paths have no escape at all: no split, no array, on every request.
  if (!path.includes('%')) return;
  for (const segment of path.split('/')) {
    if (!segment.includes('%')) continue;
    let decoded: string;
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      throw refused('The path', '', 'is not valid percent-encoding of UTF-8');
    }
    const problem = unacceptableTextProblem(decoded);
    if (problem) throw refused('The path', '', problem);
  }
}

/** The first unacceptable string in a parsed query or body, as a field path and the problem; keys count too. */
function findUnacceptable(value: unknown, path: string, depth = 0): { path: string; problem: string } | undefined {
  if (typeof value === 'string') {
    const problem = unacceptableTextProblem(value);
    return problem ? { path, problem } : undefined;
  }
  // Parsed bodies are bounded by the size limit; the depth bound only keeps the recursion shallow.
  if (typeof value !== 'object' || value === null || depth > 64) return undefined;
  for (const [key, child] of Object.entries(value)) {
    // The name is not echoed back: the error names the object holding it.
    const keyProblem = unacceptableTextProblem(key);
    if (keyProblem) return { path, problem: `has a field name that ${keyProblem}` };
    const childPath = path ? `${path}.${key}` : key;
    const found = findUnacceptable(child, childPath, depth + 1);
    if (found) return found;
  }
  return undefined;
}

/** Query parameters and parsed bodies (JSON, form) must hold acceptable text only. Throws the 400. */
export function checkQueryAndBody(req: Request): void {
  const inQuery = findUnacceptable(req.query, '');
  if (inQuery) throw refused(inQuery.path ? `Query parameter ${inQuery.path}` : 'The query', inQuery.path, inQuery.problem);
  const inBody = findUnacceptable(req.body, '');
  if (inBody) throw refused(inBody.path ? `Body field ${inBody.path}` : 'The body', inBody.path, inBody.problem);
}

type Json = Record<string, unknown>;

/** What the guard's 400 means, for API documents. */
export const INPUT_GUARD_REFUSAL =
  'Text no service accepts, refused before the operation runs: a NUL character or an unpaired UTF-16 surrogate in the path, the query or the body, or a path segment that is not valid percent-encoding of UTF-8; `details` names the field.';

/**
 * The guard answers every route, so every operation of a document can answer its 400: added
 * where an operation lists no 400, and as JSON beside a 400 that lists only another type (an HTML page).
 * `schema` is the service's error body.
 */
export function withInputGuardRefusals(paths: Record<string, unknown>, schema: Json): Record<string, unknown> {
  const methods = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
  return Object.fromEntries(
    Object.entries(paths).map(([path, item]) => [
      path,
      Object.fromEntries(
        Object.entries(item as Json).map(([method, operation]) => {
          if (!methods.includes(method)) return [method, operation];
          const responses = ((operation as Json).responses ?? {}) as Record<string, Json>;
          const existing = responses['400'];
          const content = (existing?.content ?? {}) as Json;
          if (existing && content['application/json']) return [method, operation];
          const refusal = existing
            ? { ...existing, description: `${String(existing.description)} ${INPUT_GUARD_REFUSAL}`, content: { ...content, 'application/json': { schema } } }
            : { description: INPUT_GUARD_REFUSAL, content: { 'application/json': { schema } } };
          return [method, { ...(operation as Json), responses: { ...responses, '400': refusal } }];
        }),
      ),
    ]),
  );
}
