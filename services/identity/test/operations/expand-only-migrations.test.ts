import { migrations } from '../../src/store/migrations';

/**
 * From this version on, migrations follow the rolling-upgrade rule (docs/production.md,
 * "Upgrades"): replicas of the previous release run on the new schema while a rollout replaces
 * them, so a migration adds (tables, nullable or defaulted columns, indexes) and removes only
 * what no release still running reads, saying so in `contracts`. Data steps (`afterSql`) are not
 * checked here: the upgrade scenario of `pnpm test:chaos` runs them. Earlier ones predate the rule
 * (019 replaced the statistics tables' keys; the upgrade notes say what that means).
 */
const FIRST_VERSION_UNDER_THE_RULE = 20;

/** Statements that take away or change what an older release reads; comments are stripped first. */
const CONTRACTING = [
  /\bDROP\s+(?:TABLE|COLUMN|VIEW|FUNCTION|TYPE)\b/i,
  /\bALTER\s+TABLE\b[^;]*\bDROP\b/i,
  /\bRENAME\b/i,
  /\bALTER\s+COLUMN\b[^;]*\b(?:TYPE|SET\s+NOT\s+NULL)\b/i,
  /\bADD\s+COLUMN\b[^;]*\bNOT\s+NULL\b(?![^;]*\bDEFAULT\b)/i,
];

/** The contracting statements of `sql`, each as written. */
function contractingStatements(sql: string): string[] {
  const withoutComments = sql.replace(/--[^\n]*/g, '').replace(/\/\*[\s\S]*?\*\//g, '');
  return withoutComments
    .split(';')
    .map((statement) => statement.trim().replace(/\s+/g, ' '))
    .filter((statement) => CONTRACTING.some((pattern) => pattern.test(`${statement};`)));
}

describe('migrations during a rolling upgrade', () => {
  it('finds the statements that would break a replica of the previous release', () => {
    const sql = `
      CREATE TABLE jobs (id text PRIMARY KEY);  -- adds: fine
      ALTER TABLE users ADD COLUMN nickname text;
      ALTER TABLE users ADD COLUMN locale text NOT NULL DEFAULT 'en';
      ALTER TABLE users ADD COLUMN region text NOT NULL;
      ALTER TABLE users DROP COLUMN legacy;
      ALTER TABLE users RENAME COLUMN phone TO phone_number;
      ALTER TABLE users ALTER COLUMN blocked SET NOT NULL;
      ALTER TABLE users ALTER COLUMN age TYPE bigint;
      /* DROP TABLE in a comment is not a statement */
      DROP INDEX IF EXISTS users_old_idx;
      DROP TABLE old_sessions;`;
    expect(contractingStatements(sql)).toEqual([
      'ALTER TABLE users ADD COLUMN region text NOT NULL',
      'ALTER TABLE users DROP COLUMN legacy',
      'ALTER TABLE users RENAME COLUMN phone TO phone_number',
      'ALTER TABLE users ALTER COLUMN blocked SET NOT NULL',
      'ALTER TABLE users ALTER COLUMN age TYPE bigint',
      'DROP TABLE old_sessions',
    ]);
  });

  it.each(migrations.filter((m) => m.version >= FIRST_VERSION_UNDER_THE_RULE).map((m) => [`${m.version} ${m.name}`, m] as const))(
    'migration %s only adds, or says in `contracts` why what it removes is no longer read',
    (_name, migration) => {
      const contracting = contractingStatements(migration.sql);
      if (migration.contracts === undefined) expect(contracting).toEqual([]);
      else expect(migration.contracts).toMatch(/\brelease\b/i);
    },
  );

  it('numbers migrations in order without gaps, so every replica applies the same sequence', () => {
    expect(migrations.map((m) => m.version)).toEqual(migrations.map((_m, i) => i + 1));
  });
});
