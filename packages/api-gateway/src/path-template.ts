/**
 * OpenAPI path templates (`/things/{id}`): each `{name}` matches one non-empty path segment.
 * Matching is exact and case-sensitive, as the reference gateway's is.
 */
export interface PathTemplate {
  template: string;
  match(path: string): Record<string, string> | undefined;
}

const PARAMETER = /\{([^{}/]+)\}/g;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export function compilePathTemplate(template: string): PathTemplate {
  if (!template.startsWith('/')) throw new Error(`path "${template}" must start with "/"`);
  const names: string[] = [];
  let source = '';
  let last = 0;
  for (const found of template.matchAll(PARAMETER)) {
    source += escapeRegExp(template.slice(last, found.index));
    names.push(found[1] as string);
    source += '([^/]+)';
    last = found.index + found[0].length;
  }
  source += escapeRegExp(template.slice(last));
  if (/[{}]/.test(template.slice(last)) || names.some((name) => name.includes('{'))) {
    throw new Error(`path "${template}" has an unbalanced "{" or "}"`);
  }
  const pattern = new RegExp(`^${source}$`);
  return {
    template,
    match(path) {
      const found = pattern.exec(path);
      if (!found) return undefined;
      const params: Record<string, string> = {};
      for (const [index, name] of names.entries()) {
        const raw = found[index + 1] as string;
        try {
          params[name] = decodeURIComponent(raw);
        } catch {
          return undefined; // malformed percent-encoding matches nothing
        }
      }
      return params;
    },
  };
}
