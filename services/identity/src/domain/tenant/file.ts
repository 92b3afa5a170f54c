import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { toErrorDetails } from '@smsauth/contracts';
import { parse as parseYaml } from 'yaml';
import { SETTINGS_SECTION_NAMES, SETTINGS_SECTIONS, type SettingsDocument, type SettingsSectionName } from './appearance';
import { TenantFileError } from './errors';
import { labelOf, SECTION_NAMES, SECTIONS, type SectionName, type TenantDocument, type TenantEntry } from './entries';
import { fillVariables, VariableProblem } from './variables';

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** JSON, or YAML for a `.yaml` / `.yml` file. */
function parseText(path: string, content: string, source: string): unknown {
  const yaml = ['.yaml', '.yml'].includes(extname(path).toLowerCase());
  try {
    return yaml ? parseYaml(content) : JSON.parse(content);
  } catch (err) {
    throw new TenantFileError(source, {}, `not valid ${yaml ? 'YAML' : 'JSON'}: ${(err as Error).message}`);
  }
}

function entryOf<S extends SectionName>(section: S, index: number, value: unknown, variables: Readonly<Record<string, string | undefined>>, source: string): TenantEntry<S> {
  if (!isObject(value)) throw new TenantFileError(source, { section, index }, 'must be an object');
  const label = labelOf(section, value);
  let raw: Record<string, unknown>;
  try {
    raw = fillVariables(value, variables) as Record<string, unknown>;
  } catch (err) {
    if (err instanceof VariableProblem) throw new TenantFileError(source, { section, index, label, field: err.path.join('.') }, err.problem);
    throw err;
  }
  const result = SECTIONS[section].safeParse(raw);
  if (!result.success) {
    const [first] = toErrorDetails(result.error.issues);
    throw new TenantFileError(source, { section, index, label, field: first?.path || undefined }, first?.message ?? 'invalid');
  }
  return { section, index, label, raw, parsed: result.data as TenantEntry<S>['parsed'] };
}

/** A one-object section (`branding`, …): `${NAME}`s filled, then checked with its schema. */
function settingsOf(section: SettingsSectionName, value: unknown, variables: Readonly<Record<string, string | undefined>>, source: string): SettingsDocument[SettingsSectionName] {
  if (!isObject(value)) throw new TenantFileError(source, { section }, 'must be an object');
  let raw: unknown;
  try {
    raw = fillVariables(value, variables);
  } catch (err) {
    if (err instanceof VariableProblem) throw new TenantFileError(source, { section, field: err.path.join('.') }, err.problem);
    throw err;
  }
  const result = SETTINGS_SECTIONS[section].safeParse(raw);
  if (!result.success) {
    const [first] = toErrorDetails(result.error.issues);
    throw new TenantFileError(source, { section, field: first?.path || undefined }, first?.message ?? 'invalid');
  }
  return result.data;
}

const ALL_SECTIONS: readonly string[] = [...SECTION_NAMES, ...SETTINGS_SECTION_NAMES];

/**
 * A tenant document: an object whose keys are sections, each an array of entries (SECTIONS) or
 * one object (SETTINGS_SECTIONS), every `${NAME}` filled from `variables` and everything checked
 * with its management API schema. Throws a TenantFileError naming the first problem's entry and field.
 */
export function parseTenantDocument(value: unknown, variables: Readonly<Record<string, string | undefined>>, source: string): TenantDocument {
  if (!isObject(value)) throw new TenantFileError(source, {}, `must be an object with the sections ${ALL_SECTIONS.join(', ')}`);
  const unknown = Object.keys(value).find((key) => !ALL_SECTIONS.includes(key));
  if (unknown !== undefined) throw new TenantFileError(source, { section: unknown }, `unknown section; the sections are ${ALL_SECTIONS.join(', ')}`);
  const document = { ...Object.fromEntries(SECTION_NAMES.map((section) => [section, []])), settings: {} } as unknown as TenantDocument;
  for (const section of SECTION_NAMES) {
    const entries = value[section] ?? [];
    if (!Array.isArray(entries)) throw new TenantFileError(source, { section }, 'must be an array');
    (document[section] as unknown[]) = entries.map((entry, index) => entryOf(section, index, entry, variables, source));
  }
  for (const section of SETTINGS_SECTION_NAMES) {
    if (value[section] !== undefined) (document.settings as Record<string, unknown>)[section] = settingsOf(section, value[section], variables, source);
  }
  return document;
}
/** Reads and checks a tenant file (TENANT_FILE, `tenant apply <file>`); `source` starts its messages. */
export function readTenantFile(path: string, variables: Readonly<Record<string, string | undefined>>, source = path): TenantDocument {
  let content: string;
  try {
    content = readFileSync(path, 'utf8');
  } catch (err) {
    throw new TenantFileError(source, {}, `cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  return parseTenantDocument(parseText(path, content, source), variables, source);
}
