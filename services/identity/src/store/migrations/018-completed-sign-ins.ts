/**
 * A hosted-login transaction that signed its user in is marked completed instead of deleted,
 * and kept a while: the browser's Back button returns to its pages, which then say the sign-in
 * is done (or go to the application's login route) rather than "expired". Completed rows still
 * refuse every form post, and the insert's clean-up drops them once they expire.
 */
export const sql = `
ALTER TABLE authorize_transactions ADD COLUMN completed_at timestamptz;
`;
