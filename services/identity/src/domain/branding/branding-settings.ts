import { normaliseColour, type Branding, type BrandingUpdate } from '@smsauth/contracts';
import { EMPTY_BRANDING, type IdentityStore, type StoredBranding } from '../../store';

/** Auth0's `GET /api/v2/branding` answer: only what is set (`{}` for a tenant that set nothing). */
export function brandingRecordOf(stored: StoredBranding | undefined): Branding {
  const row = stored ?? EMPTY_BRANDING;
  const colors = {
    ...(row.primary_color ? { primary: row.primary_color } : {}),
    ...(row.page_background_color ? { page_background: row.page_background_color } : {}),
  };
  return {
    ...(Object.keys(colors).length ? { colors } : {}),
    ...(row.logo_url ? { logo_url: row.logo_url } : {}),
    ...(row.favicon_url ? { favicon_url: row.favicon_url } : {}),
    ...(row.font_url ? { font: { url: row.font_url } } : {}),
  };
}

export async function getBranding(store: IdentityStore): Promise<Branding> {
  return brandingRecordOf(await store.branding.find());
}

const colour = (value: string | null | undefined) => (value === undefined ? undefined : value === null ? null : normaliseColour(value));

/** What an update changes: a column given (null: removed); undefined: kept. */
function brandingChanges(update: BrandingUpdate): Partial<StoredBranding> {
  return {
    logo_url: update.logo_url,
    favicon_url: update.favicon_url,
    font_url: update.font === null ? null : update.font?.url,
    primary_color: update.colors === null ? null : colour(update.colors?.primary),
    page_background_color: update.colors === null ? null : colour(update.colors?.page_background),
  };
}

/** The fields given replace the stored ones; null (or a null `colors` / `font`) removes them. */
export async function updateBranding(tx: IdentityStore, update: BrandingUpdate, now: Date): Promise<Branding> {
  return brandingRecordOf(await tx.branding.update(brandingChanges(update), now));
}

/** The stored brand as an update would leave it, without writing it (the pages' preview of a draft). */
export async function draftBranding(store: IdentityStore, update: BrandingUpdate): Promise<StoredBranding> {
  const stored = (await store.branding.find()) ?? EMPTY_BRANDING;
  const given = Object.entries(brandingChanges(update)).filter((entry) => entry[1] !== undefined);
  return { ...stored, ...Object.fromEntries(given) };
}
