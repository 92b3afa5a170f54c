import type { ClientGrantCreate, ClientGrantRecord, ClientGrantUpdate } from '@smsauth/contracts';
import { MissingReferenceError, UniqueViolationError, type IdentityStore, type StoredClientGrant, type StoredResourceServer } from '../../store';
import { newId } from '../ids';
import { conflict, invalidField, notFound } from './validation';

export function toClientGrantRecord(grant: StoredClientGrant): ClientGrantRecord {
  return { id: grant.id, client_id: grant.client_id, audience: grant.audience, scope: grant.scope };
}

/** A grant may only hold scopes its API defines. */
function checkScopes(api: StoredResourceServer, scope: readonly string[]): void {
  const defined = new Set(api.scopes.map((s) => s.value));
  const index = scope.findIndex((s) => !defined.has(s));
  if (index >= 0) throw invalidField(`scope.${index}`, `${scope[index]} is not a scope of ${api.identifier}`);
}

/** Unknown client or audience: 404, as in the reference product; an existing pair: 409. */
export async function createClientGrant(store: IdentityStore, input: ClientGrantCreate): Promise<ClientGrantRecord> {
  if (!(await store.clients.findById(input.client_id))) throw notFound('Client');
  const api = await store.resourceServers.findByIdentifier(input.audience);
  if (!api) throw notFound('Resource server (audience)');
  checkScopes(api, input.scope);
  try {
    const grant = await store.clientGrants.insert({ id: newId('cgr'), client_id: input.client_id, audience: api.identifier, scope: [...new Set(input.scope)] });
    return toClientGrantRecord(grant);
  } catch (err) {
    if (err instanceof UniqueViolationError) throw conflict(`Client ${input.client_id} already has a grant for ${input.audience}`);
    if (err instanceof MissingReferenceError) throw notFound('Client or resource server');
    throw err;
  }
}

export async function getClientGrant(store: IdentityStore, id: string): Promise<StoredClientGrant> {
  const grant = await store.clientGrants.findById(id);
  if (!grant) throw notFound('Client grant');
  return grant;
}

export async function updateClientGrant(store: IdentityStore, id: string, patch: ClientGrantUpdate): Promise<ClientGrantRecord> {
  const grant = await getClientGrant(store, id);
  const api = await store.resourceServers.findByIdentifier(grant.audience);
  if (api) checkScopes(api, patch.scope);
  const updated = await store.clientGrants.updateScope(id, [...new Set(patch.scope)]);
  if (!updated) throw notFound('Client grant');
  return toClientGrantRecord(updated);
}

export async function deleteClientGrant(store: IdentityStore, id: string): Promise<void> {
  if (!(await store.clientGrants.delete(id))) throw notFound('Client grant');
}
