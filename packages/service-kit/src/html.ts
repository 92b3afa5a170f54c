/** For server-rendered pages: every interpolated value goes through this. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** `Cookie` header -> name/value pairs (first occurrence wins, values URI-decoded when possible). */
export function parseCookies(header: string | undefined): Record<string, string> {
  const cookies: Record<string, string> = {};
  for (const part of (header ?? '').split(';')) {
    const index = part.indexOf('=');
    if (index <= 0) continue;
    const name = part.slice(0, index).trim();
    if (name in cookies) continue;
    const raw = part.slice(index + 1).trim();
    try {
      cookies[name] = decodeURIComponent(raw);
    } catch {
      cookies[name] = raw;
    }
  }
  return cookies;
}

/**
 * A whole server-rendered page. `title` is escaped; `head` and `body` are HTML the caller built
 * (with every interpolated value escaped). No referrer leaves the page: URLs may carry state.
 * `lang` (a BCP 47 tag, English by default) and `dir` (`rtl` for Arabic, Hebrew...) go on `<html>`.
 */
export function htmlPage(page: { title: string; head?: string; body: string; lang?: string; dir?: 'ltr' | 'rtl' }): string {
  return `<!doctype html>
<html lang="${escapeHtml(page.lang ?? 'en')}"${page.dir ? ` dir="${page.dir}"` : ''}>
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(page.title)}</title>
${page.head ?? ''}
</head>
<body>
<main>
${page.body}
</main>
</body>
</html>
`;
}
