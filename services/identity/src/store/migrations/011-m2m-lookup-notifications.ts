/**
 * Every statement that writes a table the client_credentials path reads (clients,
 * resource_servers, client_grants, client_credentials) sends NOTIFY on
 * `smsauth_identity_m2m_lookups` (store/m2m-lookup-cache.ts, M2M_LOOKUP_CHANNEL) with payload
 * `schema.table`, whatever code path or tool wrote it. Each instance's lookup cache listens and
 * empties itself. PostgreSQL delivers a NOTIFY only when the transaction commits, and folds
 * identical ones of a transaction into one; statement-level triggers send one per statement,
 * not one per row.
 */
export const sql = `
CREATE FUNCTION notify_m2m_lookup_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('smsauth_identity_m2m_lookups', TG_TABLE_SCHEMA || '.' || TG_TABLE_NAME);
  RETURN NULL;
END
$$;
CREATE TRIGGER clients_m2m_lookup_change AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON clients
  FOR EACH STATEMENT EXECUTE FUNCTION notify_m2m_lookup_change();
CREATE TRIGGER resource_servers_m2m_lookup_change AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON resource_servers
  FOR EACH STATEMENT EXECUTE FUNCTION notify_m2m_lookup_change();
CREATE TRIGGER client_grants_m2m_lookup_change AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON client_grants
  FOR EACH STATEMENT EXECUTE FUNCTION notify_m2m_lookup_change();
CREATE TRIGGER client_credentials_m2m_lookup_change AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON client_credentials
  FOR EACH STATEMENT EXECUTE FUNCTION notify_m2m_lookup_change();
`;
