import { DEFAULT_PAGE_SIZE, RecordProjectionQuerySchema, type RecordProjectionQuery } from '@smsauth/contracts';
import type { Checkpoint, ListSlice, ListWindow } from '../../store';
import { invalidField, parseBody } from './validation';

// The reference product's list answers: a bare array, `{start, limit, total, <plural>}` with
// include_totals=true, or `{<plural>, next}` for checkpoint paging (`from` / `take`).

export interface OffsetPaging {
  offset: number;
  limit: number;
  includeTotals: boolean;
}

export function offsetPagingOf(query: { page?: number; per_page?: number; include_totals?: boolean }): OffsetPaging {
  const limit = query.per_page ?? DEFAULT_PAGE_SIZE;
  return { offset: (query.page ?? 0) * limit, limit, includeTotals: query.include_totals ?? false };
}

export type ListPaging = ({ kind: 'offset' } & OffsetPaging) | { kind: 'checkpoint'; after: Checkpoint | undefined; limit: number };

/**
 * Checkpoint paging when `from` or `take` is given (include_totals is then ignored, as the
 * reference product does); offset paging otherwise. Both at once is a 400 naming `from`/`take`.
 */
export function listPagingOf(query: {
  page?: number;
  per_page?: number;
  include_totals?: boolean;
  from?: string;
  take?: number;
}): ListPaging {
  if (query.from === undefined && query.take === undefined) return { kind: 'offset', ...offsetPagingOf(query) };
  if (query.page !== undefined || query.per_page !== undefined) {
    throw invalidField(query.from !== undefined ? 'from' : 'take', 'cannot be combined with page or per_page');
  }
  return {
    kind: 'checkpoint',
    after: query.from === undefined ? undefined : decodeCheckpoint(query.from),
    limit: query.take ?? DEFAULT_PAGE_SIZE,
  };
}

export function windowOf(paging: ListPaging): ListWindow {
  return paging.kind === 'offset'
    ? { kind: 'offset', offset: paging.offset, limit: paging.limit }
    : { kind: 'after', after: paging.after, limit: paging.limit };
}

/** `next` / `from`: base64url of the last row's place; opaque to callers. */
export function encodeCheckpoint(checkpoint: Checkpoint): string {
  return Buffer.from(JSON.stringify([checkpoint.at, checkpoint.id])).toString('base64url');
}

const CHECKPOINT_AT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}$/;

export function decodeCheckpoint(value: string): Checkpoint {
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(value, 'base64url').toString('utf8'));
  } catch {
    decoded = undefined;
  }
  const [at, id] = Array.isArray(decoded) && decoded.length === 2 ? (decoded as unknown[]) : [];
  if (typeof at !== 'string' || !CHECKPOINT_AT.test(at) || typeof id !== 'string' || id.length === 0) {
    throw invalidField('from', 'is not a checkpoint this API issued (use the next value of the previous page)');
  }
  return { at, id };
}

/**
 * `fields=a,b` keeps only those fields (`include_fields=false`: drops them). Unknown names are
 * ignored, as the reference product does; no `fields` leaves records whole.
 */
export function projectFields<T extends object>(record: T, fields: readonly string[] | undefined, includeFields = true): Partial<T> {
  if (!fields || fields.length === 0) return record;
  const named = new Set(fields);
  return Object.fromEntries(Object.entries(record).filter(([key]) => named.has(key) === includeFields)) as Partial<T>;
}

/**
 * The projection a single-record GET asks for (`fields` / `include_fields`); a bad value is a
 * 400 naming it, checked before the record is looked up.
 */
export function recordProjectionOf(query: unknown): <T extends object>(record: T) => Partial<T> {
  return projectionOf(parseBody(RecordProjectionQuerySchema, query));
}

/** The projection a parsed `fields` / `include_fields` query asks for. */
export function projectionOf(query: RecordProjectionQuery): <T extends object>(record: T) => Partial<T> {
  return (record) => projectFields(record, query.fields, query.include_fields);
}

/** The answer to a list request: bare array, offset envelope or checkpoint page. */
export function listResponse<T>(
  plural: string,
  slice: ListSlice<T>,
  paging: ListPaging,
  total: number | undefined,
  options: { withLength?: boolean } = {},
): unknown {
  if (paging.kind === 'checkpoint') {
    return { [plural]: slice.items, ...(slice.next ? { next: encodeCheckpoint(slice.next) } : {}) };
  }
  if (!paging.includeTotals) return slice.items;
  return {
    start: paging.offset,
    limit: paging.limit,
    ...(options.withLength ? { length: slice.items.length } : {}),
    total: total ?? 0,
    [plural]: slice.items,
  };
}

/** Whether the answer needs a COUNT (only the offset envelope carries `total`). */
export function needsTotal(paging: ListPaging): boolean {
  return paging.kind === 'offset' && paging.includeTotals;
}
