import type { UserCondition, UserSearchField } from '../../store';
import { canonicalOrUndefined } from '../phone/canonical-number';
import { invalidField } from './validation';

/**
 * `q` of GET /api/v2/users: the subset of user search v3's Lucene syntax that SDKs and
 * dashboards send for SMS users.
 *
 * - `field:value` or `field:"quoted value"` on phone_number, name (an SMS user's name is its
 *   number, as at the reference product), user_id, identities.connection, phone_verified;
 *   exact match, `*` as a wildcard (`phone_number:+1415*`).
 * - `AND`, `OR` (also `&&`, `||`), parentheses; AND binds tighter; terms side by side are OR
 *   (Lucene's default operator).
 * - A query of bare terms only (no field, no operator) searches inside phone numbers with the
 *   spaces removed: an un-encoded `+` arrives as a space and still finds the number.
 * - Anything else (NOT, `-term`, ranges, other fields) is a 400 naming `q`.
 */
export function parseUserSearch(q: string | undefined): UserCondition | undefined {
  const text = q?.trim();
  if (!text) return undefined;
  const tokens = tokenize(text);
  if (tokens.every((t) => t.kind === 'term' && t.field === undefined)) {
    const digits = tokens.map((t) => (t as TermToken).value).join('').replace(/\s+/g, '');
    return digits ? { field: 'phone_number', pattern: ['', ...digits.split('*'), ''] } : undefined;
  }
  const parser = new Parser(tokens);
  const condition = parser.parseOr(0);
  parser.expectEnd();
  return condition;
}

/**
 * `+1415…` arrives as ` 1415…` when the `+` was not URL-encoded (wildcards included). A
 * whole number is compared in E.164, as numbers are stored (`"+1 (415) 555-2671"` finds
 * +14155552671); a pattern or a value that is no valid number is searched as written.
 */
function normaliseSearchedPhone(value: string): string {
  const trimmed = value.trim();
  const given = /^\d[\d*]*$/.test(trimmed) ? `+${trimmed}` : trimmed;
  return given.includes('*') ? given : (canonicalOrUndefined(given) ?? given);
}

const MAX_TERMS = 50;
const MAX_DEPTH = 10;

interface TermToken {
  kind: 'term';
  field: string | undefined;
  value: string;
  quoted: boolean;
}
type Token = TermToken | { kind: 'and' | 'or' | 'open' | 'close' };

const badQuery = (message: string) => invalidField('q', message);

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const ch = text[i]!;
    if (/\s/.test(ch)) {
      i += 1;
    } else if (ch === '(' || ch === ')') {
      tokens.push({ kind: ch === '(' ? 'open' : 'close' });
      i += 1;
    } else if (text.startsWith('&&', i) || text.startsWith('||', i)) {
      tokens.push({ kind: ch === '&' ? 'and' : 'or' });
      i += 2;
    } else {
      const field = /^([A-Za-z_][A-Za-z0-9_.]*):/.exec(text.slice(i));
      let fieldName: string | undefined;
      if (field) {
        fieldName = field[1]!;
        i += field[0].length;
        // An un-encoded `+` after the colon arrived as a space.
        while (i < text.length && text[i] === ' ') i += 1;
      }
      const { value, quoted, end } = readValue(text, i);
      if (!fieldName && !quoted && (value === 'AND' || value === 'OR')) tokens.push({ kind: value === 'AND' ? 'and' : 'or' });
      else if (!fieldName && !quoted && value === 'NOT') throw badQuery('NOT is not supported');
      else if (fieldName && value === '' && !quoted) throw badQuery(`${fieldName}: needs a value`);
      else tokens.push({ kind: 'term', field: fieldName, value, quoted });
      i = end;
    }
    if (tokens.length > MAX_TERMS * 2) throw badQuery(`at most ${MAX_TERMS} terms`);
  }
  return tokens;
}

function readValue(text: string, start: number): { value: string; quoted: boolean; end: number } {
  if (text[start] === '"') {
    let value = '';
    let i = start + 1;
    while (i < text.length && text[i] !== '"') {
      if (text[i] === '\\' && i + 1 < text.length) i += 1;
      value += text[i];
      i += 1;
    }
    if (i >= text.length) throw badQuery('unterminated quoted value');
    return { value, quoted: true, end: i + 1 };
  }
  let i = start;
  while (i < text.length && !/[\s()]/.test(text[i]!)) i += 1;
  const value = text.slice(start, i);
  if (value.startsWith('-') || value.startsWith('!')) throw badQuery('NOT is not supported');
  if (value.startsWith('[') || value.startsWith('{')) throw badQuery('ranges are not supported');
  return { value, quoted: false, end: i };
}

class Parser {
  private position = 0;
  constructor(private readonly tokens: Token[]) {}

  parseOr(depth: number): UserCondition {
    const parts = [this.parseAnd(depth)];
    // `OR` explicit, or terms side by side (Lucene's default operator).
    while (this.peek() && this.peek()!.kind !== 'close') {
      if (this.peek()!.kind === 'or') this.position += 1;
      parts.push(this.parseAnd(depth));
    }
    return parts.length === 1 ? parts[0]! : { any: parts };
  }

  private parseAnd(depth: number): UserCondition {
    const parts = [this.parseUnit(depth)];
    while (this.peek()?.kind === 'and') {
      this.position += 1;
      parts.push(this.parseUnit(depth));
    }
    return parts.length === 1 ? parts[0]! : { all: parts };
  }

  private parseUnit(depth: number): UserCondition {
    const token = this.tokens[this.position];
    this.position += 1;
    if (!token) throw badQuery('ends where a term was expected');
    if (token.kind === 'open') {
      if (depth >= MAX_DEPTH) throw badQuery(`at most ${MAX_DEPTH} nested parentheses`);
      const inner = this.parseOr(depth + 1);
      if (this.tokens[this.position]?.kind !== 'close') throw badQuery('unbalanced parentheses');
      this.position += 1;
      return inner;
    }
    if (token.kind !== 'term') throw badQuery(`unexpected ${token.kind === 'close' ? ')' : token.kind.toUpperCase()}`);
    return termCondition(token);
  }

  private peek(): Token | undefined {
    return this.tokens[this.position];
  }

  expectEnd(): void {
    if (this.position < this.tokens.length) throw badQuery('unbalanced parentheses');
  }
}

const FIELDS: Record<string, UserSearchField> = {
  phone_number: 'phone_number',
  name: 'phone_number',
  user_id: 'user_id',
  'identities.connection': 'connection',
  phone_verified: 'phone_verified',
};

function termCondition(token: TermToken): UserCondition {
  if (token.field === undefined) {
    // A bare term among fielded ones: inside phone numbers, as a query of bare terms is.
    return { field: 'phone_number', pattern: ['', ...token.value.replace(/\s+/g, '').split('*'), ''] };
  }
  const field = FIELDS[token.field];
  if (!field) throw badQuery(`cannot search on ${token.field}; searchable: ${Object.keys(FIELDS).join(', ')}`);
  if (field === 'phone_verified') {
    if (token.value !== 'true' && token.value !== 'false') throw badQuery('phone_verified: must be true or false');
    return { field, equals: token.value === 'true' };
  }
  const value = field === 'phone_number' ? normaliseSearchedPhone(token.value) : token.value;
  return value.includes('*') ? { field, pattern: value.split('*') } : { field, equals: value };
}
