import type { SqlExecutor } from '../sql-client';

/** The tenant's brand (migration 027): each column null when not set. */
export interface StoredBranding {
  logo_url: string | null;
  favicon_url: string | null;
  font_url: string | null;
  /** Lower-case `#rrggbb`. */
  primary_color: string | null;
  /** Lower-case `#rrggbb`. */
  page_background_color: string | null;
}

const COLUMNS = ['logo_url', 'favicon_url', 'font_url', 'primary_color', 'page_background_color'] as const;

export const EMPTY_BRANDING: StoredBranding = { logo_url: null, favicon_url: null, font_url: null, primary_color: null, page_background_color: null };

export function brandingRepo(db: SqlExecutor) {
  return {
    async find(): Promise<StoredBranding | undefined> {
      const { rows } = await db.query<StoredBranding>(`SELECT ${COLUMNS.join(', ')} FROM branding`);
      return rows[0];
    },

    /** Sets the columns given (null clears one; absent ones stay), creating the row the first time. */
    async update(changes: Partial<StoredBranding>, now: Date): Promise<StoredBranding> {
      const given = COLUMNS.filter((column) => changes[column] !== undefined);
      const values = given.map((column) => changes[column] ?? null);
      const { rows } = await db.query<StoredBranding>(
        `INSERT INTO branding (singleton, updated_at${given.map((c) => `, ${c}`).join('')})
         VALUES (true, $1${given.map((_c, i) => `, $${i + 2}`).join('')})
         ON CONFLICT (singleton) DO UPDATE SET updated_at = $1${given.map((c) => `, ${c} = EXCLUDED.${c}`).join('')}
         RETURNING ${COLUMNS.join(', ')}`,
        [now, ...values],
      );
      return rows[0]!;
    },
  };
}
