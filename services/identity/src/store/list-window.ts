/**
 * Which slice of a list to read. Lists are ordered by (created_at, unique id), so every row has
 * one place and a page boundary never skips or repeats one.
 */
export type ListWindow =
  /** `page` / `per_page`. */
  | { kind: 'offset'; offset: number; limit: number }
  /** `from` / `take`: rows strictly after `after` (from the start without it). */
  | { kind: 'after'; after: Checkpoint | undefined; limit: number };

/** A row's place in its list: created_at as UTC text with microseconds (a JS Date would drop them), and its id. */
export interface Checkpoint {
  at: string;
  id: string;
}

export interface ListSlice<T> {
  items: T[];
  /** Checkpoint windows only: where the next slice starts, when there is one. */
  next?: Checkpoint;
}

/** Selects a row's checkpoint text; `alias.created_at` must be a timestamptz. */
export const checkpointColumn = (alias: string) =>
  `to_char(${alias}.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US') AS checkpoint_at`;

/**
 * The WHERE condition (keyset) and the ORDER/LIMIT/OFFSET tail of a window over rows ordered
 * by (`alias`.created_at, `idColumn`). Values are appended to `params` and bound, never inlined;
 * a checkpoint window reads one row more than it returns, to know whether a next slice exists.
 */
export function windowSql(window: ListWindow, params: unknown[], alias: string, idColumn: string): { condition: string; tail: string } {
  const order = `ORDER BY ${alias}.created_at, ${idColumn}`;
  if (window.kind === 'offset') {
    params.push(window.offset, window.limit);
    return { condition: 'true', tail: `${order} OFFSET $${params.length - 1} LIMIT $${params.length}` };
  }
  let condition = 'true';
  if (window.after) {
    params.push(window.after.at, window.after.id);
    condition = `(${alias}.created_at, ${idColumn}) > (($${params.length - 1}::timestamp AT TIME ZONE 'UTC'), $${params.length})`;
  }
  params.push(window.limit + 1);
  return { condition, tail: `${order} LIMIT $${params.length}` };
}

/** Rows of a windowed query (each with checkpoint_at and the id column) -> the slice, next included. */
export function sliceOf<R extends { checkpoint_at: string }, T>(
  rows: R[],
  window: ListWindow,
  idOf: (row: R) => string,
  toItem: (row: Omit<R, 'checkpoint_at'>) => T,
): ListSlice<T> {
  const kept = window.kind === 'after' ? rows.slice(0, window.limit) : rows;
  const items = kept.map(({ checkpoint_at: _at, ...row }) => toItem(row));
  const last = kept[kept.length - 1];
  if (window.kind === 'after' && rows.length > window.limit && last) return { items, next: { at: last.checkpoint_at, id: idOf(last) } };
  return { items };
}
