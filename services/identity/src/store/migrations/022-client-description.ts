/**
 * Auth0's client `description` (issue 43: a tenant kept as code with auth0-deploy-cli carries
 * it): free text, at most 140 characters, shown by the management API and nothing else. Only
 * adds a nullable column, so replicas of the previous release keep working on the new schema.
 */
export const sql = `
ALTER TABLE clients ADD COLUMN description text;
`;
