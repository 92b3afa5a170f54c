import { z } from 'zod';

// Query strings of the management API's lists, as the reference product documents them:
// offset paging (`page`, `per_page`, `include_totals`), checkpoint paging (`from`, `take`)
// where it offers it, and `fields` + `include_fields` projection. A value that is not what
// the parameter takes is a 400 naming it (a repeated parameter arrives as an array: 400 too).
// Unknown parameters are ignored, as the SDKs send optional filters we do not implement.

/** The largest page any list answers. */
export const MAX_PAGE_SIZE = 100;
export const DEFAULT_PAGE_SIZE = 50;

/** A decimal integer within [min, max], from a query string. */
export function queryInt(min: number, max: number) {
  return z
    .string()
    .regex(/^\d{1,9}$/, { message: 'must be a whole number' })
    .transform(Number)
    .pipe(z.int().min(min, { message: `must be at least ${min}` }).max(max, { message: `must be at most ${max}` }))
    // Documented as what it is, an integer in range (a query string carries it as digits), so
    // the bounds are in the API document; `pattern: undefined` drops the digit pattern there.
    .meta({ type: 'integer', minimum: min, maximum: max, pattern: undefined });
}

export const queryBoolean = z.enum(['true', 'false'], { message: 'must be true or false' }).transform((v) => v === 'true');

/** Comma-separated field names; empty means every field. */
const fieldList = z
  .string()
  .max(1000)
  .transform((v) => v.split(',').map((f) => f.trim()).filter((f) => f.length > 0));

const offsetPaging = {
  /** Zero-based page index. */
  page: queryInt(0, 1_000_000).optional(),
  per_page: queryInt(1, MAX_PAGE_SIZE).optional(),
  include_totals: queryBoolean.optional(),
};

const checkpointPaging = {
  /** Opaque: the `next` of the previous answer. */
  from: z.string().min(1).max(512).optional(),
  take: queryInt(1, MAX_PAGE_SIZE).optional(),
};

const projection = {
  fields: fieldList.optional(),
  include_fields: queryBoolean.optional(),
};

/**
 * `GET /api/v2/{connections,clients,resource-servers,users}/{id}`: the lists' projection on one
 * record, as the reference product offers it there (not on client grants, where it has none).
 */
export const RecordProjectionQuerySchema = z.object(projection);
export type RecordProjectionQuery = z.output<typeof RecordProjectionQuerySchema>;

/** A value given once, repeated, or comma-separated: a list of values. */
const repeatableValue = z
  .union([z.string(), z.array(z.string())])
  .transform((v) => (Array.isArray(v) ? v : [v]).flatMap((s) => s.split(',')).map((s) => s.trim()).filter((s) => s.length > 0));

/** `GET /api/v2/clients`: offset paging, projection, `app_type` (comma-separated or repeated). */
export const ClientsListQuerySchema = z.object({ ...offsetPaging, ...projection, app_type: repeatableValue.optional() });
export type ClientsListQuery = z.output<typeof ClientsListQuerySchema>;

/** `GET /api/v2/resource-servers`: offset paging, projection, `identifiers` (repeated, at most 10; not split on commas). */
export const ResourceServersListQuerySchema = z.object({
  ...offsetPaging,
  ...projection,
  identifiers: z
    .union([z.string().min(1), z.array(z.string().min(1)).max(10, { message: 'at most 10' })])
    .transform((v) => (Array.isArray(v) ? v : [v]))
    .optional(),
});
export type ResourceServersListQuery = z.output<typeof ResourceServersListQuerySchema>;

/** `GET /api/v2/connections`: both kinds of paging, `name`, `strategy` (repeatable). */
export const ConnectionsListQuerySchema = z.object({
  ...offsetPaging,
  ...checkpointPaging,
  ...projection,
  name: z.string().optional(),
  strategy: repeatableValue.optional(),
});
export type ConnectionsListQuery = z.output<typeof ConnectionsListQuerySchema>;

/** `GET /api/v2/connections/{id}/clients`: checkpoint paging only (`from`, `take`), as the reference product pages it. */
export const ConnectionClientsQuerySchema = z.object(checkpointPaging);
export type ConnectionClientsQuery = z.output<typeof ConnectionClientsQuerySchema>;

/** `GET /api/v2/client-grants?client_id=&audience=`: both kinds of paging. */
export const ClientGrantsListQuerySchema = z.object({
  ...offsetPaging,
  ...checkpointPaging,
  client_id: z.string().optional(),
  audience: z.string().optional(),
});
export type ClientGrantsListQuery = z.output<typeof ClientGrantsListQuerySchema>;

/** User fields `sort` may name: those with an index (see migration 004). */
export const USER_SORT_FIELDS = ['created_at', 'last_login', 'phone_number', 'user_id'] as const;
export type UserSortField = (typeof USER_SORT_FIELDS)[number];

const UserSortSchema = z
  .string()
  .regex(/^[a-z_]+:-?1$/, { message: 'must be field:1 (ascending) or field:-1 (descending)' })
  // The document states the fields too (the refinement below cannot carry into it).
  .meta({ pattern: `^(${USER_SORT_FIELDS.join('|')}):-?1$` })
  .transform((v) => {
    const [field, direction] = v.split(':') as [string, string];
    return { field, descending: direction === '-1' };
  })
  .refine((s): s is { field: UserSortField; descending: boolean } => (USER_SORT_FIELDS as readonly string[]).includes(s.field), {
    message: `can sort on ${USER_SORT_FIELDS.join(', ')}`,
  });

/**
 * `GET /api/v2/users`: `q` is the Lucene subset of user search v3 (see docs/identity.md); `search_engine`
 * v1 no longer exists at the reference product either; v2 queries are answered as v3.
 */
export const UsersListQuerySchema = z.object({
  ...offsetPaging,
  ...projection,
  q: z.string().max(2000).optional(),
  search_engine: z.enum(['v2', 'v3'], { message: 'must be v3 (v1 is no longer available)' }).optional(),
  sort: UserSortSchema.optional(),
  /** Only users of this connection (the reference product's v1 filter; `q=identities.connection:"sms"` is the v3 form). */
  connection: z.string().min(1).optional(),
  primary_order: queryBoolean.optional(),
});
export type UsersListQuery = z.output<typeof UsersListQuerySchema>;

/** `include_totals=true` on an offset-paged list: `{start, limit, total, <plural>: [...]}`; users add `length`. */
export function offsetEnvelopeSchema<T extends z.ZodType>(plural: string, item: T, withLength = false) {
  return z.object({
    start: z.int().nonnegative(),
    limit: z.int().positive(),
    ...(withLength ? { length: z.int().nonnegative() } : {}),
    total: z.int().nonnegative(),
    [plural]: z.array(item),
  });
}

/** Checkpoint paging (`from`/`take`): `{<plural>: [...], next?}`; no `next` on the last page. */
export function checkpointPageSchema<T extends z.ZodType>(plural: string, item: T) {
  return z.object({ [plural]: z.array(item), next: z.string().optional() });
}
