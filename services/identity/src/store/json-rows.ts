/**
 * Rows fetched as `to_jsonb(...)`, for statements that read several tables in one round trip.
 * JSON renders timestamps as ISO text; the repos hand out Dates, so the named columns are
 * turned back into Dates (null stays null).
 */
export type JsonRow<T> = { [K in keyof T]: T[K] extends Date ? string : T[K] extends Date | null ? string | null : T[K] };

const TIMESTAMP_COLUMNS = ['created_at', 'updated_at', 'last_login'] as const;

export function fromJsonRow<T extends object>(row: JsonRow<T> | null | undefined): T | undefined {
  if (!row) return undefined;
  const out: Record<string, unknown> = { ...row };
  for (const column of TIMESTAMP_COLUMNS) {
    const value = out[column];
    if (typeof value === 'string') out[column] = new Date(value);
  }
  return out as T;
}
