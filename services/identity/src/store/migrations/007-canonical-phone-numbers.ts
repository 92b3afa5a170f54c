import { maskPhoneNumber } from '@smsauth/service-kit';
import type { SqlExecutor } from '../sql-client';
import type { MigrationContext } from './context';

/**
 * Users' numbers in E.164 as canonicalPhoneNumber writes them, so one person is one user
 * from now on (numbers were stored as typed when `+` and digits was the only check:
 * `+4407911123456` and `+447911123456` were two users).
 *
 * - A number that is not a valid number stays as it is (its user can still be found and
 *   managed; it cannot log in until an administrator gives it a valid number).
 * - When several users of one connection would end up with the same number (or one would
 *   take the number another user already has), none of them is changed: which account is
 *   the person's is for an administrator to decide. Each such collision is reported as a
 *   warning naming the users and the masked numbers; nothing is merged.
 * - Transient rows keyed by number are left as they are: one-time codes (valid minutes),
 *   rate-limit and brute-force counters (an hour, or until the next success), hosted-login
 *   transactions (minutes). A code sent to an old form before the upgrade cannot be
 *   exchanged after it; the user asks for a new one.
 *
 * Only the rows that change are held in memory; the table is read in pages by user_id.
 */
const PAGE_SIZE = 5000;

interface UserNumber {
  user_id: string;
  connection_id: string;
  phone_number: string;
}

export async function normaliseUserPhoneNumbers(tx: SqlExecutor, context: MigrationContext): Promise<void> {
  const moves = new Map<string, Array<UserNumber & { canonical: string }>>();
  let invalid = 0;
  let after = '';
  for (;;) {
    const { rows } = await tx.query<UserNumber>(
      'SELECT user_id, connection_id, phone_number FROM users WHERE user_id COLLATE "C" > $1 ORDER BY user_id COLLATE "C" LIMIT $2',
      [after, PAGE_SIZE],
    );
    for (const row of rows) {
      const canonical = context.canonicalPhoneNumber(row.phone_number);
      if (canonical === undefined) invalid += 1;
      else if (canonical !== row.phone_number) {
        const key = `${row.connection_id} ${canonical}`;
        moves.set(key, [...(moves.get(key) ?? []), { ...row, canonical }]);
      }
    }
    if (rows.length < PAGE_SIZE) break;
    after = rows[rows.length - 1]!.user_id;
  }

  let normalised = 0;
  let collisions = 0;
  for (const group of moves.values()) {
    const { connection_id, canonical } = group[0]!;
    const { rows: holders } = await tx.query<{ user_id: string }>(
      'SELECT user_id FROM users WHERE connection_id = $1 AND phone_number = $2',
      [connection_id, canonical],
    );
    if (group.length === 1 && holders.length === 0) {
      await tx.query('UPDATE users SET phone_number = $2 WHERE user_id = $1', [group[0]!.user_id, canonical]);
      normalised += 1;
      continue;
    }
    collisions += 1;
    context.log.warn(
      {
        migration: 7,
        connection_id,
        number: maskPhoneNumber(canonical),
        users: [...holders.map((h) => ({ user_id: h.user_id, phone_number: maskPhoneNumber(canonical) })),
          ...group.map((u) => ({ user_id: u.user_id, phone_number: maskPhoneNumber(u.phone_number) }))],
      },
      'phone number collision: these users have the same number once written in E.164; left unchanged, not merged',
    );
  }
  context.log.info({ migration: 7, normalised, collisions, invalid }, 'user phone numbers written in E.164');
}
