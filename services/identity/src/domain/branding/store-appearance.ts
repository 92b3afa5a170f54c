import type { Clock } from '@smsauth/service-kit';
import type { IdentityStore, StoredBranding } from '../../store';
import type { LoginAppearance, LoginAppearanceSource, LoginBranding } from './login-appearance';

/** The hosted pages' view of the stored brand. */
export function loginBrandingOf(row: StoredBranding | undefined): LoginBranding {
  if (!row) return {};
  const colors = {
    ...(row.primary_color ? { primary: row.primary_color } : {}),
    ...(row.page_background_color ? { pageBackground: row.page_background_color } : {}),
  };
  return {
    ...(row.logo_url ? { logoUrl: row.logo_url } : {}),
    ...(row.favicon_url ? { faviconUrl: row.favicon_url } : {}),
    ...(row.font_url ? { fontUrl: row.font_url } : {}),
    ...(Object.keys(colors).length ? { colors } : {}),
  };
}

/** Every prompt's texts of one language, flattened to `prompt.screen.key` (the pages' translation keys). */
export function flattenCustomTexts(rows: ReadonlyArray<{ prompt: string; texts: Record<string, Record<string, string>> }>): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const { prompt, texts } of rows) {
    for (const [screen, keys] of Object.entries(texts)) {
      for (const [key, text] of Object.entries(keys)) flat[`${prompt}.${screen}.${key}`] = text;
    }
  }
  return flat;
}

/**
 * The pages' appearance read from the store, kept `ttlMs` per replica: each page render would
 * otherwise cost up to three queries. A write through this replica's management API empties it
 * at once (`invalidate`); other replicas see it within `ttlMs`.
 */
export class StoreLoginAppearance implements LoginAppearanceSource {
  private readonly entries = new Map<string, { expiresAt: number; value: Promise<unknown> }>();

  constructor(
    private readonly store: IdentityStore,
    private readonly clock: Clock,
    private readonly ttlMs: number,
  ) {}

  appearance(): Promise<LoginAppearance> {
    return this.cached('appearance', async () => {
      const [branding, settings] = await Promise.all([this.store.branding.find(), this.store.tenantSettings.find()]);
      return { branding: loginBrandingOf(branding), enabledLocales: settings?.enabled_locales ?? [] };
    });
  }

  customText(language: string): Promise<Readonly<Record<string, string>>> {
    return this.cached(`text\0${language}`, async () => flattenCustomTexts(await this.store.promptCustomTexts.forLanguage(language)));
  }

  /** Forgets what was read: the next page reads the store. */
  invalidate(): void {
    this.entries.clear();
  }

  private cached<T>(key: string, read: () => Promise<T>): Promise<T> {
    const now = this.clock.now().getTime();
    const entry = this.entries.get(key);
    if (entry && entry.expiresAt > now) return entry.value as Promise<T>;
    const value = read();
    this.entries.set(key, { expiresAt: now + this.ttlMs, value });
    // A failed read is not kept: the next page tries again.
    value.catch(() => {
      if (this.entries.get(key)?.value === value) this.entries.delete(key);
    });
    return value;
  }
}
