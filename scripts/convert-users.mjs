#!/usr/bin/env node
// Converts a user export of Supabase Auth or Firebase Authentication (phone sign-in) into the
// users file of POST /api/v2/jobs/users-imports (Auth0's user import JSON, phone users).
// docs/user-import-export.md gives the field mapping this follows.
//
//   node scripts/convert-users.mjs supabase auth-users.json > users.json
//   node scripts/convert-users.mjs firebase firebase-users.json > users.json
//
// Supabase input: the rows of auth.users as a JSON array or NDJSON (psql: `\copy (SELECT
// row_to_json(u) FROM auth.users u) TO 'auth-users.json'`). Firebase input: the file of
// `firebase auth:export firebase-users.json --format=json`. Users without a phone number are
// left out; what was left out, and why, goes to stderr. The output is one JSON array; split it
// with --max-users N into files users-1.json, users-2.json, ... in --out-dir when it is large.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Supabase keeps numbers without the `+` (`14155550100`). */
function e164(phone) {
  const trimmed = String(phone).trim();
  return trimmed.startsWith('+') ? trimmed : `+${trimmed}`;
}

/** Supabase's own keys in raw_app_meta_data (its sign-in providers), not the app's data. */
const SUPABASE_APP_KEYS = new Set(['provider', 'providers']);

export function fromSupabase(row, now = new Date()) {
  if (!row.phone) return { skipped: 'no phone number' };
  const appMetadata = Object.fromEntries(Object.entries(row.raw_app_meta_data ?? {}).filter(([key]) => !SUPABASE_APP_KEYS.has(key)));
  const user = {
    user_id: String(row.id),
    phone_number: e164(row.phone),
    phone_verified: Boolean(row.phone_confirmed_at),
    blocked: Boolean(row.banned_until) && new Date(row.banned_until) > now,
  };
  if (row.raw_user_meta_data && Object.keys(row.raw_user_meta_data).length > 0) user.user_metadata = row.raw_user_meta_data;
  if (Object.keys(appMetadata).length > 0) user.app_metadata = appMetadata;
  return { user };
}

export function fromFirebase(record) {
  if (!record.phoneNumber) return { skipped: 'no phone number' };
  // Phone sign-in verified the number; custom claims are what the app put on the user.
  const user = { user_id: String(record.localId), phone_number: record.phoneNumber, phone_verified: true, blocked: record.disabled === true };
  if (record.customAttributes) {
    const claims = JSON.parse(record.customAttributes);
    if (Object.keys(claims).length > 0) user.app_metadata = claims;
  }
  return { user };
}

/** The records of an input file: a JSON array, an object with `users` (Firebase), or NDJSON. */
export function recordsOf(text) {
  const trimmed = text.trim();
  if (trimmed.startsWith('[')) return JSON.parse(trimmed);
  if (trimmed.startsWith('{') && !trimmed.includes('\n')) {
    const parsed = JSON.parse(trimmed);
    return Array.isArray(parsed.users) ? parsed.users : [parsed];
  }
  try {
    const parsed = JSON.parse(trimmed);
    if (Array.isArray(parsed.users)) return parsed.users;
  } catch {
    // NDJSON: one record per line.
  }
  return trimmed.split('\n').filter((line) => line.trim() !== '').map((line) => JSON.parse(line));
}

export function convert(source, text) {
  const map = { supabase: fromSupabase, firebase: fromFirebase }[source];
  if (!map) throw new Error(`unknown source ${source}: supabase or firebase`);
  const users = [];
  const skipped = [];
  for (const record of recordsOf(text)) {
    const result = map(record);
    if (result.user) users.push(result.user);
    else skipped.push({ id: record.id ?? record.localId, reason: result.skipped });
  }
  return { users, skipped };
}

function main(argv) {
  const [source, input, ...rest] = argv;
  if (!source || !input) {
    console.error('usage: node scripts/convert-users.mjs supabase|firebase <export file> [--max-users N --out-dir DIR]');
    process.exit(2);
  }
  const option = (name) => {
    const index = rest.indexOf(name);
    return index === -1 ? undefined : rest[index + 1];
  };
  const { users, skipped } = convert(source, readFileSync(input, 'utf8'));
  for (const { id, reason } of skipped) console.error(`left out ${id}: ${reason}`);
  const maxUsers = option('--max-users') ? Number(option('--max-users')) : undefined;
  if (!maxUsers) {
    process.stdout.write(`${JSON.stringify(users)}\n`);
  } else {
    const dir = option('--out-dir') ?? '.';
    for (let i = 0; i * maxUsers < users.length; i += 1) {
      writeFileSync(join(dir, `users-${i + 1}.json`), JSON.stringify(users.slice(i * maxUsers, (i + 1) * maxUsers)));
    }
  }
  console.error(`${users.length} users converted, ${skipped.length} left out`);
}

if (import.meta.url === `file://${process.argv[1]}`) main(process.argv.slice(2));
