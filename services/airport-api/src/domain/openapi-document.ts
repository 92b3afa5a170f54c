import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse as parseYaml, stringify as toYaml } from 'yaml';

/** The bundled template, next to package.json (the same path from src/ and dist/). */
export const BUNDLED_OPENAPI_FILE = resolve(__dirname, '..', '..', 'openapi.yaml');

export interface RenderedDocument {
  document: unknown;
  yaml: string;
}

function fill(value: unknown, placeholders: Record<string, string>): unknown {
  if (typeof value === 'string') {
    return value.replace(/\$\{(AUTH_URL|API_AUDIENCE)\}/g, (whole, name: string) => placeholders[name] ?? whole);
  }
  if (Array.isArray(value)) return value.map((item) => fill(item, placeholders));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, fill(item, placeholders)]));
  }
  return value;
}

/**
 * Reads the OpenAPI template (OPENAPI_FILE or the bundled one) and fills `${AUTH_URL}` and
 * `${API_AUDIENCE}` in its string values. Filling after parsing means a value can never
 * change the YAML structure.
 */
export function renderOpenApiDocument(options: { file?: string; authUrl: string; audience: string }): RenderedDocument {
  const file = options.file ?? BUNDLED_OPENAPI_FILE;
  let parsed: unknown;
  try {
    parsed = parseYaml(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new Error(`OpenAPI file ${file}: ${(err as Error).message}`);
  }
  const document = fill(parsed, { AUTH_URL: options.authUrl, API_AUDIENCE: options.audience });
  return { document, yaml: toYaml(document) };
}
