import type { SqlExecutor } from '../sql-client';

/** The tenant's settings row (migration 027); absent until something is set. */
export interface StoredTenantSettings {
  /** The hosted pages' languages, the first the default; null while none were set. */
  enabled_locales: string[] | null;
  /** Auth0's tenant settings nothing acts on, as given (`json`: key order kept). */
  auth0_settings: Record<string, unknown>;
  /** Auth0's prompt settings (`/api/v2/prompts`), as given. */
  prompt_settings: Record<string, unknown>;
  updated_at: Date;
}

export type TenantSettingsChanges = Partial<Pick<StoredTenantSettings, 'enabled_locales' | 'auth0_settings' | 'prompt_settings'>>;

export function tenantSettingsRepo(db: SqlExecutor) {
  return {
    async find(): Promise<StoredTenantSettings | undefined> {
      const { rows } = await db.query<StoredTenantSettings>('SELECT enabled_locales, auth0_settings, prompt_settings, updated_at FROM tenant_settings');
      return rows[0];
    },

    /** Writes the fields given (the others stay), creating the row the first time; answers the row. */
    async update(changes: TenantSettingsChanges, now: Date): Promise<StoredTenantSettings> {
      const { rows } = await db.query<StoredTenantSettings>(
        `INSERT INTO tenant_settings (singleton, enabled_locales, auth0_settings, prompt_settings, updated_at)
         VALUES (true, $1::text[], COALESCE($2::json, '{}'::json), COALESCE($3::json, '{}'::json), $4)
         ON CONFLICT (singleton) DO UPDATE SET
           enabled_locales = CASE WHEN $5 THEN EXCLUDED.enabled_locales ELSE tenant_settings.enabled_locales END,
           auth0_settings = COALESCE($2::json, tenant_settings.auth0_settings),
           prompt_settings = COALESCE($3::json, tenant_settings.prompt_settings),
           updated_at = $4
         RETURNING enabled_locales, auth0_settings, prompt_settings, updated_at`,
        [
          changes.enabled_locales ?? null,
          changes.auth0_settings ? JSON.stringify(changes.auth0_settings) : null,
          changes.prompt_settings ? JSON.stringify(changes.prompt_settings) : null,
          now,
          changes.enabled_locales !== undefined,
        ],
      );
      return rows[0]!;
    },
  };
}
