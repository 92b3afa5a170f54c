/** JSON with object keys sorted, `null` read as absent: two values that say the same thing compare equal. */
export function canonical(value: unknown): string {
  return JSON.stringify(value ?? null, (_key, item: unknown) => {
    if (item === null || typeof item !== 'object' || Array.isArray(item)) return item;
    const entries = Object.entries(item as Record<string, unknown>).filter(([, v]) => v !== null && v !== undefined);
    return Object.fromEntries(entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  });
}

/** The fields of `patch` (a PATCH body) whose value differs from `current`'s: what an update must change. */
export function changedFields<T extends object>(patch: T, current: Record<string, unknown>): Partial<T> {
  const changed = Object.entries(patch).filter(([key, value]) => value !== undefined && canonical(value) !== canonical(current[key]));
  return Object.fromEntries(changed) as Partial<T>;
}

export function isEmpty(patch: object): boolean {
  return Object.keys(patch).length === 0;
}

/** `raw` without `keys`: the fields an update may send (an entry's key fields find it, they are not changed). */
export function without(raw: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(Object.entries(raw).filter(([key]) => !keys.includes(key)));
}

/** What applying one entry did. */
export type EntryAction = 'created' | 'updated' | 'unchanged';
