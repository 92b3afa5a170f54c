import type { SealedColumn } from '../sealed-column';
import type { SecretCipher } from '../secret-cipher';
import type { SqlExecutor } from '../sql-client';

/** The newest one-time code of a phone number on a connection; the secret opened. */
export interface StoredCode {
  connection_id: string;
  phone_number: string;
  /** The start request it was issued for (its `_id`, also the delivery's Idempotency-Key). */
  request_id: string;
  client_id: string;
  auth_params: Record<string, unknown>;
  /** TOTP secret (hex). */
  secret: string;
  issued_at: Date;
  expires_at: Date;
  time_step: number;
  digits: number;
  /**
   * Guesses checked against this code (wrong ones, and the right one that ends it). Each
   * check first takes an attempt with reserveAttempt, so at most `maxAttempts` guesses
   * are ever compared, however many arrive in parallel.
   */
  attempts: number;
  used: boolean;
  /** The channel that carried it when not SMS (migration 015; null: SMS, or not delivered yet). */
  channel?: string | null;
  /** The gateway's provider that carried it (migration 029; null: not named, or not delivered yet). */
  provider?: string | null;
}

export type NewCode = Omit<StoredCode, 'attempts' | 'used' | 'channel' | 'provider'>;

type CodeRow = StoredCode;

/** A code identifies itself by connection, number and the start that issued it. */
export interface CodeKey {
  connection_id: string;
  phone_number: string;
  request_id: string;
}

// Bound to the start that issued it: a sealed secret copied into another row fails to open.
const secretContext = (code: CodeKey) => `one_time_code:${code.connection_id}:${code.phone_number}:${code.request_id}`;

/** For `keys rotate-secret`. */
export const oneTimeCodesSealedColumns: readonly SealedColumn[] = [
  {
    table: 'one_time_codes',
    column: 'secret',
    key: ['connection_id', 'phone_number'],
    also: ['request_id'],
    context: (row) => secretContext({ connection_id: row.connection_id!, phone_number: row.phone_number!, request_id: row.request_id! }),
  },
];

/** A new code's secret as stored (sealed for its row). */
export function sealedCodeSecret(cipher: SecretCipher, code: NewCode): string {
  return cipher.seal(code.secret, secretContext(code));
}

/** A code row as read (its secret sealed), with the secret opened. */
export function openedCode(cipher: SecretCipher, row: StoredCode): StoredCode {
  return { ...row, secret: cipher.open(row.secret, secretContext(row)) };
}

export function oneTimeCodesRepo(db: SqlExecutor, cipher: SecretCipher) {
  const fromRow = (row: CodeRow): StoredCode => openedCode(cipher, row);

  return {
    /**
     * Stores the code of a new start, replacing the previous code of the number on the
     * connection (one row per pair, upserted in one statement): only the newest is valid.
     */
    async issue(code: NewCode): Promise<void> {
      await db.query(
        `INSERT INTO one_time_codes (connection_id, phone_number, request_id, client_id, auth_params, secret,
           issued_at, expires_at, time_step, digits, attempts, used)
         VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7, $8, $9, $10, 0, false)
         ON CONFLICT (connection_id, phone_number) DO UPDATE SET
           request_id = EXCLUDED.request_id, client_id = EXCLUDED.client_id, auth_params = EXCLUDED.auth_params,
           secret = EXCLUDED.secret, issued_at = EXCLUDED.issued_at, expires_at = EXCLUDED.expires_at,
           time_step = EXCLUDED.time_step, digits = EXCLUDED.digits, attempts = 0, used = false, channel = NULL, provider = NULL`,
        [
          code.connection_id,
          code.phone_number,
          code.request_id,
          code.client_id,
          JSON.stringify(code.auth_params),
          cipher.seal(code.secret, secretContext(code)),
          code.issued_at,
          code.expires_at,
          code.time_step,
          code.digits,
        ],
      );
    },

    /**
     * Discards the code of a start whose delivery failed. Only that start's code: if a newer
     * start has replaced it meanwhile, the newer code stays.
     */
    async discard(code: CodeKey): Promise<boolean> {
      const { rowCount } = await db.query(
        'DELETE FROM one_time_codes WHERE connection_id = $1 AND phone_number = $2 AND request_id = $3',
        [code.connection_id, code.phone_number, code.request_id],
      );
      return rowCount > 0;
    },

    /** Notes what carried a code: its channel when not SMS (null), the gateway's provider when named (sms_verified_total and the figures count by them). */
    async recordDelivery(code: CodeKey, delivery: { channel: string | null; provider: string | null }): Promise<void> {
      await db.query('UPDATE one_time_codes SET channel = $4, provider = $5 WHERE connection_id = $1 AND phone_number = $2 AND request_id = $3', [
        code.connection_id,
        code.phone_number,
        code.request_id,
        delivery.channel,
        delivery.provider,
      ]);
    },

    async find(connectionId: string, phoneNumber: string): Promise<StoredCode | undefined> {
      const { rows } = await db.query<CodeRow>(
        'SELECT * FROM one_time_codes WHERE connection_id = $1 AND phone_number = $2',
        [connectionId, phoneNumber],
      );
      return rows[0] ? fromRow(rows[0]) : undefined;
    },

    /**
     * Takes one attempt on the code before a guess is compared, in one statement: only a
     * code that is unused, unexpired at `now`, issued to `clientId` and below `maxAttempts`
     * is counted and returned. Undefined means no guess may be checked.
     */
    async reserveAttempt(
      connectionId: string,
      phoneNumber: string,
      clientId: string,
      now: Date,
      maxAttempts: number,
    ): Promise<StoredCode | undefined> {
      const { rows } = await db.query<CodeRow>(
        `UPDATE one_time_codes SET attempts = attempts + 1
         WHERE connection_id = $1 AND phone_number = $2 AND client_id = $3
           AND NOT used AND attempts < $5 AND expires_at > $4
         RETURNING *`,
        [connectionId, phoneNumber, clientId, now, maxAttempts],
      );
      return rows[0] ? fromRow(rows[0]) : undefined;
    },
  };
}
