import type { Request } from 'express';

/**
 * `request_language` of a start: `x-request-language` as the caller's SDK sends it, else the
 * most preferred `Accept-Language` entry by q-weight (express's negotiator: `fr;q=0.5, es`
 * is `es`), else null. A bare `*` (what fetch() sends by default) states no preference.
 */
export function requestLanguage(req: Request): string | null {
  const explicit = req.get('x-request-language')?.trim();
  if (explicit) return explicit === '*' ? null : explicit;
  if (!req.get('accept-language')?.trim()) return null;
  return req.acceptsLanguages().find((language) => language !== '*') ?? null;
}
