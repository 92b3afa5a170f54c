/**
 * OpenID Connect's `claims` and `acr_values` request parameters (issue 44): the transaction of
 * the hosted login keeps them as the client sent them; an authorization code keeps the claims
 * asked for (`{"userinfo": [...], "id_token": [...]}`) and the acr its ID token carries; an
 * opaque access token keeps the UserInfo claims asked for, released besides those of its
 * scopes, and a refresh token the claims of its login, for the tokens a refresh issues. Only adds nullable columns, so replicas of the previous release keep working.
 */
export const sql = `
ALTER TABLE authorize_transactions ADD COLUMN claims text;
ALTER TABLE authorize_transactions ADD COLUMN acr_values text;
ALTER TABLE authorization_codes ADD COLUMN claims text;
ALTER TABLE authorization_codes ADD COLUMN acr text;
ALTER TABLE access_tokens ADD COLUMN claims text;
ALTER TABLE refresh_tokens ADD COLUMN claims text;
`;
