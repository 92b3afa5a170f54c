import {
  ClientCreateSchema,
  ClientUpdateSchema,
  CONFIDENTIAL_APP_TYPES,
  DEFAULT_GRANT_TYPES,
  type AppType,
  type ClientRecord,
} from '@smsauth/contracts';
import type { IdentityStore, StoredClient } from '../../store';
import { generateClientSecret, hashClientSecret } from '../crypto/client-secret';
import { newClientId } from '../ids';
import { forbidden, invalidField, notFound, parseBody } from './validation';

export const BOOTSTRAP_ADMIN_ROLE = 'bootstrap_admin';

export function isConfidential(appType: AppType): boolean {
  return CONFIDENTIAL_APP_TYPES.includes(appType);
}

export function toClientRecord(client: StoredClient, clientSecret?: string): ClientRecord {
  return {
    client_id: client.client_id,
    name: client.name,
    app_type: client.app_type,
    callbacks: client.callbacks,
    allowed_origins: client.allowed_origins,
    grant_types: client.grant_types,
    ...(client.default_audience ? { default_audience: client.default_audience } : {}),
    token_endpoint_auth_method: client.secret_hash ? 'client_secret_post' : 'none',
    ...(clientSecret ? { client_secret: clientSecret } : {}),
  };
}

/** A public client cannot keep a secret, so it cannot authenticate for client_credentials. */
function checkGrantTypes(appType: AppType, grantTypes: readonly string[]): void {
  if (!isConfidential(appType) && grantTypes.includes('client_credentials')) {
    throw invalidField('grant_types', `client_credentials needs a confidential client (regular_web or non_interactive), not ${appType}`);
  }
}

/** Confidential clients get a server-generated secret, shown in this response only. */
export async function createClient(store: IdentityStore, body: unknown): Promise<ClientRecord> {
  const input = parseBody(ClientCreateSchema, body);
  const grantTypes = input.grant_types ?? [...DEFAULT_GRANT_TYPES[input.app_type]];
  checkGrantTypes(input.app_type, grantTypes);
  const secret = isConfidential(input.app_type) ? generateClientSecret() : undefined;
  const client = await store.clients.insert({
    client_id: newClientId(),
    name: input.name,
    app_type: input.app_type,
    callbacks: input.callbacks,
    allowed_origins: input.allowed_origins,
    grant_types: [...new Set(grantTypes)],
    default_audience: input.default_audience ?? null,
    secret_hash: secret ? hashClientSecret(secret) : null,
    system_role: null,
  });
  return toClientRecord(client, secret);
}

export async function getClient(store: IdentityStore, clientId: string): Promise<StoredClient> {
  const client = await store.clients.findById(clientId);
  if (!client) throw notFound('Client');
  return client;
}

/**
 * Becoming public drops the secret; becoming confidential does not invent one (it would have
 * to be shown here): call rotate-secret to get it.
 */
export async function updateClient(store: IdentityStore, clientId: string, body: unknown): Promise<ClientRecord> {
  const patch = parseBody(ClientUpdateSchema, body);
  return store.transaction(async (tx) => {
    const current = await getClient(tx, clientId);
    const appType = patch.app_type ?? current.app_type;
    checkGrantTypes(appType, patch.grant_types ?? current.grant_types);
    if (current.system_role === BOOTSTRAP_ADMIN_ROLE && appType !== current.app_type) {
      throw forbidden('The app_type of the bootstrap admin client cannot be changed');
    }
    const updated = await tx.clients.update(clientId, {
      name: patch.name,
      app_type: patch.app_type,
      callbacks: patch.callbacks,
      allowed_origins: patch.allowed_origins,
      grant_types: patch.grant_types ? [...new Set(patch.grant_types)] : undefined,
      default_audience: patch.default_audience,
      ...(isConfidential(appType) ? {} : { secret_hash: null }),
    });
    return toClientRecord(updated!);
  });
}

/** New secret for a confidential client; the old one stops working at once. */
export async function rotateClientSecret(store: IdentityStore, clientId: string): Promise<ClientRecord> {
  const client = await getClient(store, clientId);
  if (!isConfidential(client.app_type)) throw invalidField('app_type', `a ${client.app_type} client has no secret`);
  const secret = generateClientSecret();
  const updated = await store.clients.update(clientId, { secret_hash: hashClientSecret(secret) });
  if (!updated) throw notFound('Client');
  return toClientRecord(updated, secret);
}

/** Deleting a client also removes its grants, and it disappears from enabled_clients. */
export async function deleteClient(store: IdentityStore, clientId: string): Promise<void> {
  const client = await getClient(store, clientId);
  if (client.system_role === BOOTSTRAP_ADMIN_ROLE) {
    throw forbidden('The bootstrap admin client cannot be deleted (it would lock the management API)');
  }
  await store.clients.delete(clientId);
}
