import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { migrate } from '../../src/store/migrate';
import { migrations } from '../../src/store/migrations';
import { openSqlClient } from '../../src/store/sql-client';
import { describeWithPostgres, dropSchema, startTestIdentity, uniqueSchema } from '../helpers';

const OPTIONS = {
  name: 'sms',
  strategy: 'sms',
  provider: 'sms_gateway',
  gateway_url: 'http://127.0.0.1:4100/deliver',
  syntax: 'md_with_macros',
  template: 'Your code is @@password@@',
  totp: { time_step: 300, length: 6 },
  brute_force_protection: true,
  disable_signup: false,
  forward_req_info: false,
};

/** user_id -> connection and number as an older version stored them (typed, `+` and digits the only check, or imported). */
const STORED: Array<[string, string, string]> = [
  ['sms|trunk-zero', 'con_a', '+4407400123456'], // the UK trunk 0 after the country code: +447400123456
  ['sms|canonical', 'con_a', '+14155552671'],
  ['sms|not-valid', 'con_a', '+15555550100'], // no US number starts 555: left as it is
  ['sms|holder', 'con_a', '+447400123457'], // already has the number the next one would become
  ['sms|would-take', 'con_a', '+4407400123457'],
  ['sms|twin-1', 'con_a', '+4407400123458'], // two un-normalised forms of one number
  ['sms|twin-2', 'con_a', '+44 7400 123458'],
  ['sms|other-connection', 'con_b', '+4407400123457'], // the same number on another connection is another user
];

/** A database as the service left it before migration 7, holding STORED. */
async function databaseBeforeMigration7(databaseUrl: string, schema: string | undefined): Promise<void> {
  const sql = await openSqlClient(databaseUrl, { schema });
  try {
    await migrate(sql, schema, migrations.filter((m) => m.version < 7));
    for (const [id, name] of [['con_a', 'sms'], ['con_b', 'sms-b']]) {
      await sql.query('INSERT INTO connections (id, name, strategy, options) VALUES ($1, $2, $3, $4::jsonb)', [id, name, 'sms', JSON.stringify({ ...OPTIONS, name })]);
    }
    for (const [userId, connectionId, phone] of STORED) {
      await sql.query('INSERT INTO users (user_id, connection_id, phone_number) VALUES ($1, $2, $3)', [userId, connectionId, phone]);
    }
  } finally {
    await sql.close();
  }
}

function migrationSuite(database: () => { databaseUrl: string; schema?: string }) {
  it('writes user numbers in E.164, leaves numbers that are not valid alone, and reports colliding users without merging them', async () => {
    const { databaseUrl, schema } = database();
    await databaseBeforeMigration7(databaseUrl, schema);
    const identity = await startTestIdentity({ DATABASE_URL: databaseUrl }, { schema });
    try {
      const { rows } = await identity.sql.query<{ user_id: string; phone_number: string }>('SELECT user_id, phone_number FROM users');
      expect(Object.fromEntries(rows.map((r) => [r.user_id, r.phone_number]))).toEqual({
        'sms|trunk-zero': '+447400123456',
        'sms|canonical': '+14155552671',
        'sms|not-valid': '+15555550100',
        'sms|holder': '+447400123457',
        'sms|would-take': '+4407400123457',
        'sms|twin-1': '+4407400123458',
        'sms|twin-2': '+44 7400 123458',
        'sms|other-connection': '+447400123457',
      });

      const lines = identity.logs().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
      const collisions = lines.filter((l) => String(l.msg).startsWith('phone number collision'));
      expect(collisions).toHaveLength(2);
      const usersOf = (line: Record<string, unknown>) => (line.users as Array<{ user_id: string }>).map((u) => u.user_id).sort();
      expect(collisions.map(usersOf).sort()).toEqual([['sms|holder', 'sms|would-take'], ['sms|twin-1', 'sms|twin-2']]);
      expect(collisions.every((l) => l.connection_id === 'con_a' && l.level === 40)).toBe(true);
      expect(lines.find((l) => l.msg === 'user phone numbers written in E.164')).toMatchObject({ migration: 7, normalised: 2, collisions: 2, invalid: 1 });
      // Masked: no full number of a collision reaches the log.
      expect(identity.logs()).not.toMatch(/7400123457|7400123458|7400 123458/);
      expect(identity.logs()).toContain('***3458');
    } finally {
      await identity.close();
    }
  });
}

describe('migration 7 (canonical phone numbers) on a PGlite database', () => {
  const dir = mkdtempSync(join(tmpdir(), 'identity-migration-7-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  migrationSuite(() => ({ databaseUrl: `pglite:${join(dir, 'db')}` }));
});

describeWithPostgres('migration 7 (canonical phone numbers) on a PostgreSQL database', (databaseUrl) => {
  const schema = uniqueSchema('migration7');
  afterAll(() => dropSchema(databaseUrl, schema));
  migrationSuite(() => ({ databaseUrl, schema }));
});
