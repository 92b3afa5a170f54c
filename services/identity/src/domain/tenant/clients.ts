import { ClientUpdateSchema, DEFAULT_REFRESH_TOKEN_SETTINGS, type ClientUpdate } from '@smsauth/contracts';
import type { IdentityStore, StoredClient } from '../../store';
import { hashClientSecret, verifyClientSecret } from '../crypto/client-secret';
import { BOOTSTRAP_ADMIN_ROLE, checkCanHoldSecret, createClient, toClientRecord, updateClient } from '../management/clients';
import { createClientGrant, updateClientGrant } from '../management/client-grants';
import { forbidden, invalidField } from '../management/validation';
import { canonical, changedFields, isEmpty, without, type EntryAction } from './compare';
import type { TenantEntry } from './entries';

/**
 * The clients whose client_id, else whose name, each reference is (a file knows the names of the
 * clients it creates, not their generated ids); 400 naming `field.index` for one that matches
 * none, or several by name.
 */
export async function resolveClients(store: IdentityStore, references: readonly string[], pathOf: (index: number) => string): Promise<string[]> {
  const ids: string[] = [];
  for (const [index, reference] of references.entries()) {
    const byId = await store.clients.findById(reference);
    const named = byId ? [byId] : (await store.clients.list()).filter((client) => client.name === reference);
    const path = pathOf(index);
    if (named.length === 0) throw invalidField(path, `no client has the client_id or the name ${reference}`);
    if (named.length > 1) throw invalidField(path, `${named.length} clients are named ${reference}: name it by its client_id`);
    ids.push(named[0]!.client_id);
  }
  return ids;
}

async function findClient(store: IdentityStore, entry: TenantEntry<'clients'>): Promise<StoredClient | undefined> {
  if (entry.parsed.client_id !== undefined) return store.clients.findById(entry.parsed.client_id);
  const named = (await store.clients.list()).filter((client) => client.name === entry.parsed.name);
  if (named.length > 1) throw invalidField('name', `${named.length} clients have this name: give the entry the client_id of the one it means`);
  return named[0];
}

/** The client as an update compares with it: its record, with the method stored and origins as stored (without trailing slash). */
function comparable(client: StoredClient): Record<string, unknown> {
  return { ...toClientRecord(client), token_endpoint_auth_method: client.token_endpoint_auth_method, refresh_token: client.refresh_token ?? DEFAULT_REFRESH_TOKEN_SETTINGS };
}

/** The entry as a PATCH: `client_authentication_methods` registers keys at creation only (later: /clients/{id}/credentials). */
function patchOf(entry: TenantEntry<'clients'>): ClientUpdate {
  const patch = ClientUpdateSchema.parse(without(entry.raw, ['client_id', 'client_secret', 'client_authentication_methods']));
  return {
    ...patch,
    ...(patch.web_origins ? { web_origins: patch.web_origins.map((origin) => origin.replace(/\/$/, '')) } : {}),
    ...(patch.refresh_token === null ? { refresh_token: DEFAULT_REFRESH_TOKEN_SETTINGS } : {}),
  };
}

/** A client, found by client_id when the entry has one, else by name; its secret set when the entry gives one. */
export async function applyClient(store: IdentityStore, entry: TenantEntry<'clients'>): Promise<EntryAction> {
  const { client_id: clientId, client_secret: clientSecret, ...body } = entry.parsed;
  const current = await findClient(store, entry);
  if (!current) {
    await createClient(store, body, { clientId, clientSecret });
    return 'created';
  }
  if (current.system_role === BOOTSTRAP_ADMIN_ROLE) {
    throw forbidden('The bootstrap admin client is configured by ADMIN_CLIENT_ID and ADMIN_CLIENT_SECRET, not by a tenant file');
  }
  const patch = changedFields(patchOf(entry), comparable(current));
  if (!isEmpty(patch)) await updateClient(store, current.client_id, patch);
  if (clientSecret === undefined || verifyClientSecret(clientSecret, current.secret_hash)) return isEmpty(patch) ? 'unchanged' : 'updated';
  checkCanHoldSecret(patch.app_type ?? current.app_type);
  await store.clients.update(current.client_id, { secret_hash: hashClientSecret(clientSecret) });
  return 'updated';
}

/** A client grant, found by its client (client_id or name) and audience; its scope replaced when it differs. */
export async function applyClientGrant(store: IdentityStore, entry: TenantEntry<'client_grants'>): Promise<EntryAction> {
  const [clientId] = await resolveClients(store, [entry.parsed.client_id], () => 'client_id');
  const current = await store.clientGrants.find(clientId!, entry.parsed.audience);
  if (!current) {
    await createClientGrant(store, { ...entry.parsed, client_id: clientId! });
    return 'created';
  }
  const sorted = (scope: readonly string[]) => canonical([...new Set(scope)].sort());
  if (sorted(current.scope) === sorted(entry.parsed.scope)) return 'unchanged';
  await updateClientGrant(store, current.id, { scope: entry.parsed.scope });
  return 'updated';
}
