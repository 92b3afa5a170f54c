import { ErrorCodes } from '@smsauth/contracts';
import type { OperationResponse } from '@smsauth/service-kit';
import type { z } from 'zod';

// The answers every management operation shares: error bodies by status, paged lists and
// `fields` projections. Each operation's declaration picks from these; the OpenAPI document
// publishes what the declarations say.

type Json = Record<string, unknown>;

const schemaRef = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** An error response: the common error body with `error` limited to the codes this status carries. */
export function errorResponse(description: string, codes: readonly string[]): Json {
  return {
    description: `${description} \`error\`: ${codes.map((c) => `\`${c}\``).join(', ')}.`,
    content: { 'application/json': { schema: errorBodySchema(codes) } },
  };
}

/** The common error body with `error` one of `codes`. */
export function errorBodySchema(codes: readonly string[]): Json {
  return { allOf: [schemaRef('ErrorBody'), { type: 'object', properties: { error: { enum: [...codes] } } }] };
}

const E = ErrorCodes;
/** Answers any route can give: body problems (the kit's parsers), the database down, a bug. */
export const COMMON_ERRORS = {
  '413': errorResponse('Request body over the size limit.', [E.PAYLOAD_TOO_LARGE]),
  '415': errorResponse('Unsupported request body encoding.', [E.INVALID_REQUEST]),
  '500': errorResponse('Unexpected server error (no internals in the body).', [E.SERVER_ERROR]),
  '503': errorResponse('The database is unreachable (with `Retry-After: 5`).', [E.SERVICE_UNAVAILABLE]),
};
export const NO_BODY_ERRORS = { '500': COMMON_ERRORS['500'], '503': COMMON_ERRORS['503'] };

export const MANAGEMENT_ERRORS = {
  '400': errorResponse('Validation failed; `details` names each field.', [E.INVALID_REQUEST]),
  '401': errorResponse('Missing or invalid token (with `WWW-Authenticate`).', [E.INVALID_TOKEN]),
  '403': errorResponse('The token lacks the route\'s scope, or the record may not be changed.', [E.INSUFFICIENT_SCOPE, E.FORBIDDEN]),
  '404': errorResponse('Unknown id.', [E.NOT_FOUND]),
  '409': errorResponse('Conflict with an existing record.', [E.CONFLICT]),
};
export type ManagementErrorStatus = '400' | '403' | '404' | '409';

/**
 * A management operation's answers: its success, the refusals it names, and those every
 * management route can give (401, 403; 400 and the body errors when it takes a body).
 */
export function managementResponses(
  status: '200' | '201' | '202' | '204',
  success: Omit<OperationResponse, 'description'> | undefined,
  errors: readonly ManagementErrorStatus[],
  takesBody: boolean,
): Record<string, OperationResponse | Json> {
  const responses: Record<string, OperationResponse | Json> = {
    [status]: { description: status === '204' || status === '202' ? 'Done; no body.' : 'Success.', ...success },
    ...Object.fromEntries(errors.map((code) => [code, MANAGEMENT_ERRORS[code]])),
    '401': MANAGEMENT_ERRORS['401'],
    '403': MANAGEMENT_ERRORS['403'],
    ...(takesBody ? COMMON_ERRORS : NO_BODY_ERRORS),
  };
  if (takesBody && !errors.includes('400')) responses['400'] = MANAGEMENT_ERRORS['400'];
  return responses;
}

/** A record, published as a component. */
export const record = (component: string, schema: z.ZodType): Omit<OperationResponse, 'description'> => ({ component, schema });

/** A record, whole or (with `fields`) projected. */
const itemOf = (name: string, projected: boolean) =>
  projected ? { anyOf: [schemaRef(name), schemaRef(`${name}Projection`)] } : schemaRef(name);

/** A single-record GET that takes `fields` / `include_fields`. */
export function projectedRecord(component: string, schema: z.ZodType): Omit<OperationResponse, 'description'> {
  return { jsonSchema: itemOf(component, true), uses: [{ component, schema, projection: true }] };
}

/** A plain array of records. */
export function arrayOf(component: string, schema: z.ZodType): Omit<OperationResponse, 'description'> {
  return { jsonSchema: { type: 'array', items: schemaRef(component) }, uses: [{ component, schema }] };
}

/**
 * A management list's answers: a bare array; with include_totals=true the envelope
 * `{start, limit, total, <plural>}` (users add `length`); with from/take `{<plural>, next}`.
 * The envelopes are closed, so an answer matches exactly one branch; `projected` lists take `fields`.
 */
export function pagedList(
  component: string,
  schema: z.ZodType,
  plural: string,
  options: { checkpoint?: boolean; withLength?: boolean; projected?: boolean } = {},
): Omit<OperationResponse, 'description'> {
  const items = { type: 'array', items: itemOf(component, options.projected ?? false) };
  const count = { type: 'integer', minimum: 0 };
  const envelope = {
    type: 'object',
    description: 'include_totals=true',
    required: ['start', 'limit', 'total', plural, ...(options.withLength ? ['length'] : [])],
    additionalProperties: false,
    properties: { start: count, limit: count, ...(options.withLength ? { length: count } : {}), total: count, [plural]: items },
  };
  const checkpoint = {
    type: 'object',
    description: 'from/take (checkpoint paging); no `next` on the last page',
    required: [plural],
    additionalProperties: false,
    properties: { [plural]: items, next: { type: 'string' } },
  };
  return {
    jsonSchema: { oneOf: [items, envelope, ...(options.checkpoint ? [checkpoint] : [])] },
    uses: [{ component, schema, projection: options.projected ?? false }],
  };
}

/** `fields` / `include_fields` on a single-record GET, as on the lists. */
export const PROJECTION_DESCRIPTIONS = {
  fields: 'Comma-separated fields to keep (or drop, with include_fields=false); the record is then a projection (`<Record>Projection`: any field may be missing).',
  include_fields: 'false: drop the named fields instead of keeping only them.',
};

/** What the paging and projection parameters mean, for every list. */
export const PAGING_DESCRIPTIONS = {
  page: 'Zero-based page (offset paging).',
  per_page: 'Page size, 1-100 (default 50).',
  include_totals: 'true: answer `{start, limit, total, <plural>}` instead of a bare array.',
  from: 'Checkpoint paging: the `next` of the previous page (omit for the first).',
  take: 'Checkpoint paging: page size, 1-100 (default 50); the answer is `{<plural>, next}`.',
  fields: 'Comma-separated fields to keep (or drop, with include_fields=false); the records are then projections (`<Record>Projection`: any field may be missing).',
  include_fields: 'false: drop the named fields instead of keeping only them.',
};
