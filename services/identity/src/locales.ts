import { join } from 'node:path';

/**
 * `services/identity/locales/`: the translations, data files beside the package (not compiled),
 * shipped with it (package.json "files", so `pnpm deploy` puts them in the image at /app/locales).
 * This module sits at the top of src/ and of dist/, so the same path works from either.
 */
export const LOCALES_DIRECTORY = join(__dirname, '..', 'locales');
