/**
 * Auth0's client settings (issue 43: a tenant moved in from Auth0 brings them):
 * `jwt_configuration` (its `lifetime_in_seconds` is the client's ID token lifetime) and
 * `auth0_settings`, the settings for Auth0 features identity does not have, stored as given and
 * shown. `json`, not `jsonb`: what was sent is shown back in its own key order, so an exported
 * file re-exports to the same text. Only adds columns (a default, no rewrite), so replicas of the
 * previous release keep working on the new schema.
 */
export const sql = `
ALTER TABLE clients ADD COLUMN jwt_configuration json;
ALTER TABLE clients ADD COLUMN auth0_settings json NOT NULL DEFAULT '{}';
`;
