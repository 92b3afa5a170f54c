import { DEFAULT_PAGE_SIZE, type ConnectionClientsPage, type ConnectionClientsQuery, type ConnectionClientsUpdate } from '@smsauth/contracts';
import type { IdentityStore } from '../../store';
import { getConnection } from './connections';
import { invalidField, notFound } from './validation';

// Auth0's `/connections/{id}/clients`: the connection's enabled_clients as a resource of its own,
// which auth0-deploy-cli reads (export) and changes (import) instead of PATCHing the connection.

/** `next` / `from`: base64url of the last client_id of a page; opaque to callers. */
const encodeAfter = (clientId: string): string => Buffer.from(clientId, 'utf8').toString('base64url');

function decodeAfter(from: string): string {
  const clientId = Buffer.from(from, 'base64url').toString('utf8');
  if (clientId.length === 0 || encodeAfter(clientId) !== from) {
    throw invalidField('from', 'is not a checkpoint this API issued (use the next value of the previous page)');
  }
  return clientId;
}

/** The enabled clients in client_id order, `take` at a time (50 by default). */
export async function listConnectionClients(store: IdentityStore, id: string, query: ConnectionClientsQuery): Promise<ConnectionClientsPage> {
  const after = query.from === undefined ? undefined : decodeAfter(query.from);
  const connection = await getConnection(store, id);
  const take = query.take ?? DEFAULT_PAGE_SIZE;
  const remaining = [...connection.enabled_clients].sort().filter((clientId) => after === undefined || clientId > after);
  const page = remaining.slice(0, take);
  return {
    clients: page.map((clientId) => ({ client_id: clientId })),
    ...(remaining.length > take ? { next: encodeAfter(page[page.length - 1]!) } : {}),
  };
}

/**
 * Enables (`status: true`) and disables (`status: false`) the named clients; the others keep
 * their state. A client named twice gets its last status. Enabling an unknown client is a 400
 * naming the entry; disabling one that is not enabled changes nothing, as at Auth0.
 */
export async function updateConnectionClients(store: IdentityStore, id: string, changes: ConnectionClientsUpdate): Promise<void> {
  const wanted = new Map(changes.map(({ client_id: clientId, status }) => [clientId, status]));
  const enabling = changes.flatMap((change, index) => (change.status && wanted.get(change.client_id) ? [{ clientId: change.client_id, index }] : []));
  await store.transaction(async (tx) => {
    const current = await tx.connections.findByIdForUpdate(id);
    if (!current) throw notFound('Connection');
    const existing = new Set(await tx.clients.existingIds(enabling.map((e) => e.clientId)));
    const unknown = enabling.find((e) => !existing.has(e.clientId));
    if (unknown) throw invalidField(`${unknown.index}.client_id`, `no client with id ${unknown.clientId}`);
    const kept = current.enabled_clients.filter((clientId) => wanted.get(clientId) !== false);
    const added = [...wanted].filter(([clientId, status]) => status && !kept.includes(clientId)).map(([clientId]) => clientId);
    await tx.connections.update(id, { enabled_clients: [...kept, ...added] });
  });
}
