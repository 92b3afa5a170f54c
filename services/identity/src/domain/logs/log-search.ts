import type { DateBound, TenantLogCondition, TenantLogField } from '../../store';
import { invalidField } from '../management/validation';
import { canonicalOrUndefined } from '../phone/canonical-number';

/**
 * `q` of GET /api/v2/logs: the subset of the reference product's Lucene syntax an operator
 * needs for login events.
 *
 * - `field:value` or `field:"quoted value"` on type, user_id, client_id, connection, ip:
 *   exact match; `phone_number:"+14155552671"` (international form): the events about that number
 *   (matched by its keyed hash: records keep the number masked), a user's or not.
 * - `date:[from TO to]` (inclusive) or `date:{from TO to}` (exclusive), `*` for an open end;
 *   ISO 8601 dates or times (`2026-01-01`, `2026-01-01T10:00:00Z`), UTC when no zone is given.
 * - Terms joined by `AND` (or `&&`, or side by side): every term must hold.
 * - Anything else (OR, NOT, wildcards, other fields) is a 400 naming `q`.
 */
export function parseLogSearch(q: string | undefined): TenantLogCondition[] {
  const text = q?.trim() ?? '';
  const conditions: TenantLogCondition[] = [];
  let i = 0;
  while (i < text.length) {
    if (/\s/.test(text[i]!)) {
      i += 1;
      continue;
    }
    const operator = /^(AND|&&|OR|\|\||NOT)(?=\s|$)/.exec(text.slice(i));
    if (operator) {
      if (operator[1] !== 'AND' && operator[1] !== '&&') throw badQuery(`${operator[1]} is not supported; terms are joined by AND`);
      i += operator[0].length;
      continue;
    }
    const field = /^([a-z_]+):/.exec(text.slice(i));
    if (!field) throw badQuery(`expected field:value at "${text.slice(i, i + 20)}"`);
    i += field[0].length;
    const name = field[1]!;
    if (name === 'date') {
      const range = /^([[{])\s*(\S+)\s+TO\s+(\S+?)\s*([\]}])/.exec(text.slice(i));
      if (!range) throw badQuery('date: needs a range, as date:[2026-01-01 TO 2026-02-01] (use * for an open end)');
      conditions.push({ field: 'date', from: boundOf(range[2]!, range[1] === '['), to: boundOf(range[3]!, range[4] === ']') });
      i += range[0].length;
      continue;
    }
    if (!(SEARCHABLE as readonly string[]).includes(name)) throw badQuery(`cannot search on ${name}; fields: ${[...SEARCHABLE, 'date'].join(', ')}`);
    const { value, end } = readValue(text, i);
    if (value === '') throw badQuery(`${name}: needs a value`);
    if (value.includes('*')) throw badQuery('wildcards are not supported');
    if (name === 'phone_number') {
      const number = canonicalOrUndefined(value);
      if (number === undefined) throw badQuery(`${value} is not a phone number in international form (+ and the country code)`);
      conditions.push({ field: 'phone_number', values: [number] });
    } else {
      conditions.push({ field: name as TenantLogField, values: [value] });
    }
    i = end;
    if (conditions.length > MAX_TERMS) throw badQuery(`at most ${MAX_TERMS} terms`);
  }
  return conditions;
}

const SEARCHABLE = ['type', 'user_id', 'client_id', 'connection', 'ip', 'phone_number'] as const satisfies readonly TenantLogField[];
const MAX_TERMS = 20;

const badQuery = (message: string) => invalidField('q', message);

function readValue(text: string, start: number): { value: string; end: number } {
  if (text[start] === '"') {
    const close = text.indexOf('"', start + 1);
    if (close < 0) throw badQuery('unterminated quoted value');
    return { value: text.slice(start + 1, close), end: close + 1 };
  }
  let end = start;
  while (end < text.length && !/\s/.test(text[end]!)) end += 1;
  return { value: text.slice(start, end), end };
}

const ISO_DATE = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

function boundOf(value: string, inclusive: boolean): DateBound | undefined {
  if (value === '*') return undefined;
  const zoned = /T/.test(value) && !/(Z|[+-]\d{2}:?\d{2})$/.test(value) ? `${value}Z` : value;
  const at = new Date(zoned);
  if (!ISO_DATE.test(value) || Number.isNaN(at.getTime())) throw badQuery(`${value} is not an ISO 8601 date`);
  return { at, inclusive };
}
