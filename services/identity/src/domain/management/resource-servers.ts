import { isDeepStrictEqual } from 'node:util';
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
    enforce_policies: rs.enforce_policies,
    token_dialect: rs.token_dialect,
  };
}

/** Auth0's rule: the `permissions` claim exists only where the API enforces policies. */
function checkDialect(enforcePolicies: boolean, dialect: StoredResourceServer['token_dialect']): void {
  if (dialect === 'access_token_authz' && !enforcePolicies) throw invalidField('token_dialect', 'access_token_authz needs enforce_policies: true');
}

export async function createResourceServer(store: IdentityStore, input: ResourceServerCreate): Promise<ResourceServerRecord> {
  checkDialect(input.enforce_policies, input.token_dialect);
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

/**
 * The fields of the management API a PATCH names with a value other than the stored one, among
 * those that cannot change there: a tool that sends back what GET showed (auth0-deploy-cli
 * does) changes nothing, so is not refused.
 */
function changedSystemFields(rs: StoredResourceServer, fields: Omit<ResourceServerUpdate, 'enforce_policies' | 'token_dialect' | 'token_lifetime'>): string[] {
  return Object.entries(fields)
    .filter(([name, value]) => value !== undefined && !isDeepStrictEqual(value, rs[name as keyof typeof fields]))
    .map(([name]) => name);
}

/**
 * `identifier` is immutable: it is what issued tokens carry as `aud`. Of the management API only
 * enforce_policies, token_dialect and token_lifetime change (turning enforce_policies off stops
 * user logins from getting management tokens at all); its other fields may be sent back unchanged.
 */
export async function updateResourceServer(store: IdentityStore, idOrIdentifier: string, patch: ResourceServerUpdate): Promise<ResourceServerRecord> {
  const rs = await getResourceServer(store, idOrIdentifier);
  // token_lifetime too: an operator's token for the management API lives that long.
  const { enforce_policies: enforcePolicies, token_dialect: tokenDialect, token_lifetime: _lifetime, ...rest } = patch;
  const changed = rs.is_system ? changedSystemFields(rs, rest) : [];
  if (changed.length > 0) {
    throw forbidden(`Of the management API resource server only enforce_policies, token_dialect and token_lifetime can be changed (this request changes ${changed.join(', ')})`);
  }
  if (patch.identifier !== undefined && patch.identifier !== rs.identifier) {
    throw invalidField('identifier', 'cannot be changed; create a new resource server instead');
  }
  checkDialect(enforcePolicies ?? rs.enforce_policies, tokenDialect ?? (enforcePolicies === false ? 'access_token' : rs.token_dialect));
  if (enforcePolicies === false && tokenDialect === undefined && rs.token_dialect === 'access_token_authz') {
    // Turning RBAC off drops the permissions claim with it, as Auth0's dashboard does.
    patch = { ...patch, token_dialect: 'access_token' };
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
