/**
 * A code is recomputed at exchange time with the TOTP parameters it was issued with, so a
 * later change of the connection's `totp` options cannot break (or weaken) codes in flight.
 */
export const sql = `
ALTER TABLE one_time_codes ADD COLUMN time_step integer NOT NULL DEFAULT 300;
ALTER TABLE one_time_codes ADD COLUMN digits integer NOT NULL DEFAULT 6;
`;
