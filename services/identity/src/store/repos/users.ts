import { translateConstraintErrors } from '../errors';
import type { SqlExecutor } from '../sql-client';

export interface StoredUser {
  user_id: string;
  connection_id: string;
  connection_name: string;
  phone_number: string;
  phone_verified: boolean;
  created_at: Date;
  updated_at: Date;
  last_login: Date | null;
  logins_count: number;
  /** Set by an administrator; refused at every login step while true. */
  blocked: boolean;
  user_metadata: Record<string, unknown>;
  app_metadata: Record<string, unknown>;
}

/** A user the management API creates. */
export interface NewUser {
  user_id: string;
  connection_id: string;
  phone_number: string;
  phone_verified: boolean;
  blocked: boolean;
  user_metadata: Record<string, unknown>;
  app_metadata: Record<string, unknown>;
  at: Date;
}

/** What PATCH may change; absent fields are kept. Metadata arrive already merged. */
export type UserChanges = Partial<Pick<StoredUser, 'phone_number' | 'phone_verified' | 'blocked' | 'user_metadata' | 'app_metadata'>>;

const SELECT_USER = `
  SELECT u.*, c.name AS connection_name FROM users u JOIN connections c ON c.id = u.connection_id`;

/** What a user search may test; each maps to one fixed SQL expression below. */
export type UserSearchField = 'phone_number' | 'user_id' | 'connection' | 'phone_verified';

/**
 * A parsed search (see domain/management/user-search.ts). `pattern` is literal text with
 * wildcards between the parts (`['+1415', '']` is `+1415*`).
 */
export type UserCondition =
  | { all: UserCondition[] }
  | { any: UserCondition[] }
  | { field: UserSearchField; equals: string | boolean }
  | { field: Exclude<UserSearchField, 'phone_verified'>; pattern: string[] };

export type UserSortColumn = 'created_at' | 'last_login' | 'phone_number' | 'user_id';

export interface UserListQuery {
  where?: UserCondition;
  sort?: { field: UserSortColumn; descending: boolean };
  offset: number;
  limit: number;
}

// Only these expressions are ever interpolated into SQL; values are always bound parameters.
// Phone numbers compare in the C collation, as indexed by migration 004 (LIKE 'x%' uses the index).
// Conditions read `users u` alone (a connection by a sub-select), so paging and counting never
// join a row they do not return.
const SEARCH_COLUMNS: Record<Exclude<UserSearchField, 'connection'>, string> = {
  phone_number: 'u.phone_number COLLATE "C"',
  user_id: 'u.user_id',
  phone_verified: 'u.phone_verified',
};
const SORT_COLUMNS: Record<UserSortColumn, string> = {
  created_at: 'u.created_at',
  last_login: 'u.last_login',
  phone_number: 'u.phone_number COLLATE "C"',
  user_id: 'u.user_id',
};

/** LIKE metacharacters in a search term match themselves. */
function escapeLike(term: string): string {
  return term.replace(/[\\%_]/g, (ch) => `\\${ch}`);
}

/** A condition -> SQL text over `users u` alone, its values appended to params. */
function conditionSql(condition: UserCondition, params: unknown[]): string {
  if ('all' in condition || 'any' in condition) {
    const parts = 'all' in condition ? condition.all : condition.any;
    if (parts.length === 0) return 'all' in condition ? 'true' : 'false';
    return `(${parts.map((part) => conditionSql(part, params)).join('all' in condition ? ' AND ' : ' OR ')})`;
  }
  if (condition.field === 'connection') {
    const value = 'equals' in condition ? String(condition.equals) : condition.pattern.map(escapeLike).join('%');
    params.push(value);
    return `u.connection_id IN (SELECT id FROM connections WHERE name ${'equals' in condition ? '=' : 'LIKE'} $${params.length}::text)`;
  }
  const column = SEARCH_COLUMNS[condition.field];
  if ('equals' in condition) {
    params.push(condition.equals);
    // Equality on the plain column, so the existing phone_number index serves it.
    const plain = condition.field === 'phone_number' ? 'u.phone_number' : column;
    return `${plain} = $${params.length}${typeof condition.equals === 'boolean' ? '::boolean' : '::text'}`;
  }
  params.push(condition.pattern.map(escapeLike).join('%'));
  return `${column} LIKE $${params.length}::text`;
}

function orderSql(sort: UserListQuery['sort']): string {
  const { field, descending } = sort ?? { field: 'created_at', descending: false };
  const direction = descending ? 'DESC' : 'ASC';
  // user_id breaks ties, in the same direction, so one index serves both directions.
  return field === 'user_id' ? `u.user_id ${direction}` : `${SORT_COLUMNS[field]} ${direction}, u.user_id ${direction}`;
}

export function usersRepo(db: SqlExecutor) {
  return {
    async findById(userId: string): Promise<StoredUser | undefined> {
      const { rows } = await db.query<StoredUser>(`${SELECT_USER} WHERE u.user_id = $1`, [userId]);
      return rows[0];
    },

    async findByIds(userIds: readonly string[]): Promise<StoredUser[]> {
      const { rows } = await db.query<StoredUser>(`${SELECT_USER} WHERE u.user_id = ANY($1::text[])`, [userIds]);
      return rows;
    },

    async findByPhone(connectionId: string, phoneNumber: string): Promise<StoredUser | undefined> {
      const { rows } = await db.query<StoredUser>(
        `${SELECT_USER} WHERE u.connection_id = $1 AND u.phone_number = $2`,
        [connectionId, phoneNumber],
      );
      return rows[0];
    },

    /** One page of the users matching `where`, in `sort` order (created_at by default), user_id breaking ties. */
    async list(query: UserListQuery): Promise<StoredUser[]> {
      const params: unknown[] = [];
      const where = query.where ? conditionSql(query.where, params) : 'true';
      params.push(query.offset, query.limit);
      const order = orderSql(query.sort);
      // The page's keys first, from the order's index alone (an index-only scan where the
      // visibility map allows), then the rows of those keys: a deep OFFSET skips index
      // entries, not joined rows.
      const { rows } = await db.query<StoredUser>(
        `WITH page AS (SELECT u.user_id FROM users u WHERE ${where} ORDER BY ${order} OFFSET $${params.length - 1} LIMIT $${params.length})
         ${SELECT_USER} JOIN page ON page.user_id = u.user_id ORDER BY ${order}`,
        params,
      );
      return rows;
    },

    async count(where: UserCondition | undefined): Promise<number> {
      const params: unknown[] = [];
      const condition = where ? conditionSql(where, params) : 'true';
      const { rows } = await db.query<{ total: number }>(
        `SELECT count(*)::int AS total FROM users u WHERE ${condition}`,
        params,
      );
      return rows[0]!.total;
    },

    /**
     * After a successful code exchange: creates the user (phone verified, first login) or
     * records another login. One statement, so parallel first logins make one user.
     */
    async recordLogin(user: { user_id: string; connection_id: string; phone_number: string; at: Date }): Promise<StoredUser> {
      await db.query(
        `INSERT INTO users (user_id, connection_id, phone_number, phone_verified, created_at, updated_at, last_login, logins_count)
         VALUES ($1, $2, $3, true, $4, $4, $4, 1)
         ON CONFLICT (connection_id, phone_number) DO UPDATE SET
           phone_verified = true, last_login = $4, updated_at = $4, logins_count = users.logins_count + 1`,
        [user.user_id, user.connection_id, user.phone_number, user.at],
      );
      return (await this.findByPhone(user.connection_id, user.phone_number))!;
    },

    /** Call inside a transaction: holds the user's row until it ends (read-modify-write of metadata). */
    async lockForUpdate(userId: string): Promise<void> {
      await db.query('SELECT 1 FROM users WHERE user_id = $1 FOR UPDATE', [userId]);
    },

    /** Throws UniqueViolationError when the connection already has a user with that number. */
    async insert(user: NewUser): Promise<StoredUser> {
      await translateConstraintErrors(() =>
        db.query(
          `INSERT INTO users (user_id, connection_id, phone_number, phone_verified, blocked, user_metadata, app_metadata, created_at, updated_at)
           VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7::jsonb, $8, $8)`,
          [user.user_id, user.connection_id, user.phone_number, user.phone_verified, user.blocked,
            JSON.stringify(user.user_metadata), JSON.stringify(user.app_metadata), user.at],
        ),
      );
      return (await this.findById(user.user_id))!;
    },

    /**
     * Applies `changes` (each absent one keeps the stored value); undefined when the user does
     * not exist. Throws UniqueViolationError when the new number is another user's on the connection.
     */
    async update(userId: string, changes: UserChanges, at: Date): Promise<StoredUser | undefined> {
      const json = (value: Record<string, unknown> | undefined) => (value === undefined ? null : JSON.stringify(value));
      const { rowCount } = await translateConstraintErrors(() =>
        db.query(
          `UPDATE users SET
             phone_number = COALESCE($2, phone_number),
             phone_verified = COALESCE($3, phone_verified),
             blocked = COALESCE($4, blocked),
             user_metadata = COALESCE($5::jsonb, user_metadata),
             app_metadata = COALESCE($6::jsonb, app_metadata),
             updated_at = $7
           WHERE user_id = $1`,
          [userId, changes.phone_number ?? null, changes.phone_verified ?? null, changes.blocked ?? null,
            json(changes.user_metadata), json(changes.app_metadata), at],
        ),
      );
      return rowCount > 0 ? this.findById(userId) : undefined;
    },

    /**
     * The users an import batch may collide with: those of `connectionId` holding one of
     * `phoneNumbers`, and those (of any connection) with one of `userIds`.
     */
    async findImportCollisions(connectionId: string, phoneNumbers: readonly string[], userIds: readonly string[]): Promise<StoredUser[]> {
      const { rows } = await db.query<StoredUser>(
        `${SELECT_USER} WHERE (u.connection_id = $1 AND u.phone_number = ANY($2::text[])) OR u.user_id = ANY($3::text[])`,
        [connectionId, phoneNumbers, userIds],
      );
      return rows;
    },

    /**
     * Inserts many users in one statement; a user whose number or id is taken by then is
     * skipped, not an error. Answers the ids inserted.
     */
    async insertMany(users: readonly NewUser[]): Promise<Set<string>> {
      if (users.length === 0) return new Set();
      const column = <K extends keyof NewUser>(key: K) => users.map((user) => user[key]);
      const { rows } = await db.query<{ user_id: string }>(
        `INSERT INTO users (user_id, connection_id, phone_number, phone_verified, blocked, user_metadata, app_metadata, created_at, updated_at)
         SELECT u.user_id, u.connection_id, u.phone_number, u.phone_verified, u.blocked, u.user_metadata::jsonb, u.app_metadata::jsonb, u.at, u.at
         FROM unnest($1::text[], $2::text[], $3::text[], $4::boolean[], $5::boolean[], $6::text[], $7::text[], $8::timestamptz[])
           AS u(user_id, connection_id, phone_number, phone_verified, blocked, user_metadata, app_metadata, at)
         ON CONFLICT DO NOTHING
         RETURNING user_id`,
        [column('user_id'), column('connection_id'), column('phone_number'), column('phone_verified'), column('blocked'),
          users.map((user) => JSON.stringify(user.user_metadata)), users.map((user) => JSON.stringify(user.app_metadata)), column('at')],
      );
      return new Set(rows.map((row) => row.user_id));
    },

    /** Sets each user's flags and (already merged) metadata in one statement. */
    async updateMany(changes: ReadonlyArray<{ user_id: string; phone_verified: boolean; blocked: boolean; user_metadata: Record<string, unknown>; app_metadata: Record<string, unknown> }>, at: Date): Promise<void> {
      if (changes.length === 0) return;
      await db.query(
        `UPDATE users SET phone_verified = c.phone_verified, blocked = c.blocked, user_metadata = c.user_metadata::jsonb,
           app_metadata = c.app_metadata::jsonb, updated_at = $6
         FROM unnest($1::text[], $2::boolean[], $3::boolean[], $4::text[], $5::text[]) AS c(user_id, phone_verified, blocked, user_metadata, app_metadata)
         WHERE users.user_id = c.user_id`,
        [changes.map((c) => c.user_id), changes.map((c) => c.phone_verified), changes.map((c) => c.blocked),
          changes.map((c) => JSON.stringify(c.user_metadata)), changes.map((c) => JSON.stringify(c.app_metadata)), at],
      );
    },

    /** The next `limit` users after `afterUserId` in user_id order (of one connection, or all): an export's pages. */
    async pageByUserId(connectionId: string | undefined, afterUserId: string, limit: number): Promise<StoredUser[]> {
      const { rows } = await db.query<StoredUser>(
        `${SELECT_USER} WHERE ($1::text IS NULL OR u.connection_id = $1) AND u.user_id > $2 ORDER BY u.user_id LIMIT $3`,
        [connectionId ?? null, afterUserId, limit],
      );
      return rows;
    },

    async delete(userId: string): Promise<boolean> {
      const { rowCount } = await db.query('DELETE FROM users WHERE user_id = $1', [userId]);
      return rowCount > 0;
    },
  };
}
