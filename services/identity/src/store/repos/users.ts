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

/** LIKE metacharacters in a search term match themselves. */
function escapeLike(term: string): string {
  return term.replace(/[\\%_]/g, (ch) => `\\${ch}`);
}

export function usersRepo(db: SqlExecutor) {
  return {
    async findById(userId: string): Promise<StoredUser | undefined> {
      const { rows } = await db.query<StoredUser>(`${SELECT_USER} WHERE u.user_id = $1`, [userId]);
      return rows[0];
    },

    async findByPhone(connectionId: string, phoneNumber: string): Promise<StoredUser | undefined> {
      const { rows } = await db.query<StoredUser>(
        `${SELECT_USER} WHERE u.connection_id = $1 AND u.phone_number = $2`,
        [connectionId, phoneNumber],
      );
      return rows[0];
    },

    /** `phoneContains` matches anywhere in the number; `phoneEquals` exactly. */
    async list(query: { phoneContains?: string; phoneEquals?: string; offset: number; limit: number }): Promise<StoredUser[]> {
      const { rows } = await db.query<StoredUser>(
        `${SELECT_USER}
         WHERE ($1::text IS NULL OR u.phone_number LIKE '%' || $1 || '%')
           AND ($2::text IS NULL OR u.phone_number = $2)
         ORDER BY u.created_at, u.user_id OFFSET $3 LIMIT $4`,
        [query.phoneContains === undefined ? null : escapeLike(query.phoneContains), query.phoneEquals ?? null, query.offset, query.limit],
      );
      return rows;
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

    async delete(userId: string): Promise<boolean> {
      const { rowCount } = await db.query('DELETE FROM users WHERE user_id = $1', [userId]);
      return rowCount > 0;
    },
  };
}
