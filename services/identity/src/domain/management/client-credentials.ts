import { createHash, X509Certificate, type KeyObject } from 'node:crypto';
import type { ClientCredentialCreate, ClientCredentialRecord, ClientCredentialUpdate } from '@smsauth/contracts';
import type { IdentityStore, StoredClientCredential } from '../../store';
import { newId } from '../ids';
import { credentialPublicKey } from '../oauth/client-assertion';
import { invalidField, notFound } from './validation';

/** Keys a client may hold at once (Auth0 keeps a handful, enough to roll one over). */
export const MAX_CREDENTIALS_PER_CLIENT = 10;

export function toClientCredentialRecord(credential: StoredClientCredential): ClientCredentialRecord {
  return {
    id: credential.id,
    credential_type: credential.credential_type,
    ...(credential.name ? { name: credential.name } : {}),
    kid: credential.kid,
    alg: credential.alg as ClientCredentialRecord['alg'],
    created_at: credential.created_at.toISOString(),
    updated_at: credential.updated_at.toISOString(),
    ...(credential.expires_at ? { expires_at: credential.expires_at.toISOString() } : {}),
  };
}

/** The public key of `pem`, refusing private keys and keys that do not fit `alg`. */
function publicKeyFor(pem: string, alg: ClientCredentialCreate['alg'], path: string): KeyObject {
  // createPublicKey would derive a public key from a private one: a private key must never be sent.
  if (/PRIVATE KEY/.test(pem)) throw invalidField(`${path}pem`, 'must be a public key or certificate, never a private key');
  let key: KeyObject;
  try {
    key = credentialPublicKey(pem);
  } catch {
    throw invalidField(`${path}pem`, 'is not a PEM public key (SPKI) or X.509 certificate');
  }
  const details = key.asymmetricKeyDetails ?? {};
  if (alg === 'ES256') {
    if (key.asymmetricKeyType !== 'ec' || details.namedCurve !== 'prime256v1') {
      throw invalidField(`${path}pem`, 'ES256 needs an EC P-256 key');
    }
  } else if (key.asymmetricKeyType !== 'rsa' || (details.modulusLength ?? 0) < 2048) {
    throw invalidField(`${path}pem`, `${alg} needs an RSA key of at least 2048 bits`);
  }
  return key;
}

/** RFC 7638 JWK thumbprint (SHA-256, base64url): the credential's `kid`. */
export function jwkThumbprint(key: KeyObject): string {
  const jwk = key.export({ format: 'jwk' });
  const members = jwk.kty === 'EC' ? { crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y } : { e: jwk.e, kty: jwk.kty, n: jwk.n };
  return createHash('sha256').update(JSON.stringify(members)).digest('base64url');
}

function expiryOf(input: ClientCredentialCreate, path: string): Date | null {
  if (input.expires_at) return new Date(input.expires_at);
  if (!input.parse_expiry_from_cert) return null;
  if (!input.pem.includes('BEGIN CERTIFICATE')) throw invalidField(`${path}parse_expiry_from_cert`, 'needs a certificate in pem');
  return new Date(new X509Certificate(input.pem).validTo);
}

/** Registers a validated credential on an existing client (also used by client create). */
export async function registerCredential(
  store: IdentityStore,
  clientId: string,
  input: ClientCredentialCreate,
  path = '',
): Promise<StoredClientCredential> {
  const key = publicKeyFor(input.pem, input.alg, path);
  const existing = await store.clientCredentials.listForClient(clientId);
  if (existing.length >= MAX_CREDENTIALS_PER_CLIENT) {
    throw invalidField(`${path}credential_type`, `a client holds at most ${MAX_CREDENTIALS_PER_CLIENT} credentials; delete one first`);
  }
  return store.clientCredentials.insert({
    id: newId('cred'),
    client_id: clientId,
    credential_type: 'public_key',
    name: input.name ?? null,
    kid: jwkThumbprint(key),
    alg: input.alg,
    pem: input.pem,
    expires_at: expiryOf(input, path),
  });
}

async function requireClient(store: IdentityStore, clientId: string): Promise<void> {
  if (!(await store.clients.findById(clientId))) throw notFound('Client');
}

/** `POST /api/v2/clients/{id}/credentials`. */
export async function createClientCredential(store: IdentityStore, clientId: string, input: ClientCredentialCreate): Promise<ClientCredentialRecord> {
  return store.transaction(async (tx) => {
    await requireClient(tx, clientId);
    await tx.lockForTransaction(`client-credentials:${clientId}`);
    return toClientCredentialRecord(await registerCredential(tx, clientId, input));
  });
}

export async function listClientCredentials(store: IdentityStore, clientId: string): Promise<ClientCredentialRecord[]> {
  await requireClient(store, clientId);
  return (await store.clientCredentials.listForClient(clientId)).map(toClientCredentialRecord);
}

export async function getClientCredential(store: IdentityStore, clientId: string, credentialId: string): Promise<ClientCredentialRecord> {
  const credential = await store.clientCredentials.find(clientId, credentialId);
  if (!credential) throw notFound('Credential');
  return toClientCredentialRecord(credential);
}

/** Only the expiry changes (Auth0's PATCH); a past expiry retires the key at once. */
export async function updateClientCredential(
  store: IdentityStore,
  clientId: string,
  credentialId: string,
  patch: ClientCredentialUpdate,
): Promise<ClientCredentialRecord> {
  const updated = await store.clientCredentials.setExpiry(clientId, credentialId, patch.expires_at ? new Date(patch.expires_at) : null);
  if (!updated) throw notFound('Credential');
  return toClientCredentialRecord(updated);
}

/** The key stops verifying assertions at once. */
export async function deleteClientCredential(store: IdentityStore, clientId: string, credentialId: string): Promise<void> {
  if (!(await store.clientCredentials.delete(clientId, credentialId))) throw notFound('Credential');
}
