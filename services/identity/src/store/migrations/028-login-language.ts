/**
 * Hosted pages in the user's language (issue 45): the language a login chose (from `ui_locales`,
 * the browser and the tenant's languages, or the page's language switcher), so every later page
 * of the login keeps it. Null for transactions from before: their pages choose again.
 * Only adds, so replicas of the previous release keep working on the new schema.
 */
export const sql = `
ALTER TABLE authorize_transactions ADD COLUMN ui_language text;
`;
