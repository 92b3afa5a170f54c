import type { UserExportField, UserRecord } from '@smsauth/contracts';

/** The fields an export writes when the request names none. */
export const DEFAULT_EXPORT_FIELDS: readonly UserExportField[] = [
  { name: 'user_id' },
  { name: 'phone_number' },
  { name: 'phone_verified' },
  { name: 'blocked' },
  { name: 'created_at' },
  { name: 'updated_at' },
  { name: 'last_login' },
  { name: 'logins_count' },
  { name: 'identities[0].connection' },
];

/** `identities[0].connection` -> ['identities', '0', 'connection']. */
function pathOf(name: string): string[] {
  return name.replace(/\[(\d+)\]/g, '.$1').split('.');
}

/** The value `name` reads from the user record; undefined when the record has no such property. */
export function fieldValue(user: UserRecord, name: string): unknown {
  let value: unknown = user;
  for (const key of pathOf(name)) {
    if (value === null || typeof value !== 'object' || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

/** One NDJSON line: each field present on the user under its `export_as` name. */
export function jsonLine(user: UserRecord, fields: readonly UserExportField[]): string {
  const line: Record<string, unknown> = {};
  for (const field of fields) {
    const value = fieldValue(user, field.name);
    if (value !== undefined) line[field.export_as ?? field.name] = value;
  }
  return `${JSON.stringify(line)}\n`;
}

/** RFC 4180: a value with a comma, quote or line break is quoted, its quotes doubled. */
function csvCell(value: unknown): string {
  if (value === undefined || value === null) return '';
  const text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function csvHeader(fields: readonly UserExportField[]): string {
  return `${fields.map((field) => csvCell(field.export_as ?? field.name)).join(',')}\n`;
}

export function csvLine(user: UserRecord, fields: readonly UserExportField[]): string {
  return `${fields.map((field) => csvCell(fieldValue(user, field.name))).join(',')}\n`;
}
