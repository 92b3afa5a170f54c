import type { ResourceServerCreate, ResourceServerRecord, ResourceServerUpdate } from '@smsauth/contracts';
import { UniqueViolationError, type IdentityStore, type StoredResourceServer } from '../../store';
import { newId } from '../ids';
import { conflict, forbidden, invalidField, notFound } from './validation';

export function toResourceServerRecord(rs: StoredResourceServer): ResourceServerRecord {
  return {
    id: rs.id,
    name: rs.name,
    identifier: rs.identifier,
    signing_alg: rs.signing_alg,
    token_lifetime: rs.token_lifetime,
    scopes: rs.scopes,
    is_system: rs.is_system,
  };
}

export async function createResourceServer(store: IdentityStore, input: ResourceServerCreate): Promise<ResourceServerRecord> {
  try {
    const created = await store.resourceServers.insert({ id: newId('rs'), ...input, is_system: false });
    return toResourceServerRecord(created);
  } catch (err) {
    if (err instanceof UniqueViolationError) throw conflict(`A resource server with the identifier ${input.identifier} already exists`);
    throw err;
  }
}

/** By id, or by identifier (URL-encoded in the path), as the reference product allows. */
export async function getResourceServer(store: IdentityStore, idOrIdentifier: string): Promise<StoredResourceServer> {
  const rs =
    (await store.resourceServers.findById(idOrIdentifier)) ?? (await store.resourceServers.findByIdentifier(idOrIdentifier));
  if (!rs) throw notFound('Resource server');
  return rs;
}

function assertNotSystem(rs: StoredResourceServer): void {
  if (rs.is_system) throw forbidden('The management API resource server cannot be changed or deleted');
}

/** `identifier` is immutable: it is what issued tokens carry as `aud`. */
export async function updateResourceServer(store: IdentityStore, idOrIdentifier: string, patch: ResourceServerUpdate): Promise<ResourceServerRecord> {
  const rs = await getResourceServer(store, idOrIdentifier);
  assertNotSystem(rs);
  if (patch.identifier !== undefined && patch.identifier !== rs.identifier) {
    throw invalidField('identifier', 'cannot be changed; create a new resource server instead');
  }
  const updated = await store.resourceServers.update(rs.id, patch);
  if (!updated) throw notFound('Resource server');
  return toResourceServerRecord(updated);
}

/** Also deletes the client grants for it. */
export async function deleteResourceServer(store: IdentityStore, idOrIdentifier: string): Promise<void> {
  const rs = await getResourceServer(store, idOrIdentifier);
  assertNotSystem(rs);
  await store.resourceServers.delete(rs.id);
}
