import { applyConnectionOptionsPatch, ConnectionUpdateSchema, type ConnectionUpdate } from '@smsauth/contracts';
import type { IdentityStore, StoredConnection } from '../../store';
import { createConnection, updateConnection, type ConnectionRules } from '../management/connections';
import { validationFailed } from '../management/validation';
import { resolveClients } from './clients';
import { canonical, changedFields, isEmpty, without, type EntryAction } from './compare';
import type { TenantEntry } from './entries';

/** What the entry changes of `current`: options merged as a PATCH merges them, compared whole. */
function changesOf(current: StoredConnection, patch: ConnectionUpdate): ConnectionUpdate {
  const { options, ...attributes } = patch;
  const changed: ConnectionUpdate = changedFields(attributes, { ...current });
  if (options) {
    const merged = applyConnectionOptionsPatch(current.options, options);
    if (!merged.success) throw validationFailed(merged.issues);
    if (canonical(merged.options) !== canonical(current.options)) changed.options = options;
  }
  return changed;
}

/**
 * A connection, found by name. Its clients (`enabled_clients`, client ids or names) are added to
 * those it has: a client enabled elsewhere (the console's, one enabled through the API) stays.
 */
export async function applyConnection(store: IdentityStore, rules: ConnectionRules, entry: TenantEntry<'connections'>): Promise<EntryAction> {
  const enabled = await resolveClients(store, entry.parsed.enabled_clients, (index) => `enabled_clients.${index}`);
  const current = await store.connections.findByName(entry.parsed.options.name);
  if (!current) {
    await createConnection(store, rules, { ...entry.parsed, enabled_clients: enabled });
    return 'created';
  }
  const changes = changesOf(current, ConnectionUpdateSchema.parse(without(entry.raw, ['name', 'strategy', 'enabled_clients'])));
  const added = enabled.filter((id) => !current.enabled_clients.includes(id));
  if (added.length > 0) changes.enabled_clients = [...current.enabled_clients, ...new Set(added)];
  if (isEmpty(changes)) return 'unchanged';
  await updateConnection(store, rules, current.id, changes);
  return 'updated';
}
