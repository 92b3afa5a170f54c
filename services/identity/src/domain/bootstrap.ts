import { MANAGEMENT_SCOPES } from '@smsauth/contracts';
import type { Logger } from '@smsauth/service-kit';
import type { IdentityStore, StoredClient } from '../store';
import { generateClientSecret, hashClientSecret, verifyClientSecret } from './crypto/client-secret';
import { newClientId, newId } from './ids';
import { BOOTSTRAP_ADMIN_ROLE } from './management/clients';
import { ADMIN_ROLE_KEY, BUILT_IN_ROLES } from './management/built-in-roles';

/** The management API resource server's name, as Auth0 names it; set again at every start. */
const MANAGEMENT_API_NAME = 'Auth0 Management API';

export interface BootstrapOptions {
  managementAudience: string;
  adminClientId?: string;
  adminClientSecret?: string;
  logger: Logger;
  /** Where generated credentials are shown once; stdout by default, never the logger. */
  print?: (text: string) => void;
}

/**
 * At every start: the management API resource server (audience `{AUTH_URL}/api/v2/`), and an
 * M2M admin client holding every management scope. From ADMIN_CLIENT_ID/SECRET when set
 * (created or updated); otherwise generated on the first start only, its credentials
 * printed once. Under a lock, so instances starting together create one admin.
 */
export async function bootstrapManagement(store: IdentityStore, options: BootstrapOptions): Promise<void> {
  const print = options.print ?? ((text: string) => process.stdout.write(text));
  const generated = await store.transaction(async (tx) => {
    await tx.lockForTransaction('bootstrap');
    await tx.resourceServers.upsertSystem({
      id: newId('rs'),
      // Auth0's name for it, which tools key on (auth0-deploy-cli leaves the API of this name out of exports and imports).
      name: MANAGEMENT_API_NAME,
      identifier: options.managementAudience,
      signing_alg: 'RS256',
      token_lifetime: 86_400,
      scopes: MANAGEMENT_SCOPES.map((value) => ({ value, description: value.replace(':', ' ').replace(/_/g, ' ') })),
      is_system: true,
      enforce_policies: true,
      token_dialect: 'access_token_authz',
    });
    await ensureBuiltInRoles(tx, options.managementAudience);
    const existing = await tx.clients.findBySystemRole(BOOTSTRAP_ADMIN_ROLE);
    let admin: StoredClient;
    let secret: string | undefined;
    if (options.adminClientId && options.adminClientSecret) {
      if (existing && existing.client_id !== options.adminClientId) {
        // The operator took over with their own credentials: the old admin loses its powers.
        await tx.clients.setSystemRole(existing.client_id, null);
        const oldGrant = await tx.clientGrants.find(existing.client_id, options.managementAudience);
        if (oldGrant) await tx.clientGrants.delete(oldGrant.id);
        options.logger.warn({ client_id: existing.client_id }, 'previous bootstrap admin client demoted: ADMIN_CLIENT_ID names another client');
      }
      admin = await upsertConfiguredAdmin(tx, options.adminClientId, options.adminClientSecret);
    } else if (existing) {
      admin = existing;
    } else {
      secret = generateClientSecret();
      admin = await tx.clients.insert(adminClient(newClientId(), hashClientSecret(secret)));
    }
    await tx.clientGrants.upsert({ id: newId('cgr'), client_id: admin.client_id, audience: options.managementAudience, scope: MANAGEMENT_SCOPES });
    return secret ? { clientId: admin.client_id, secret } : undefined;
  });
  if (generated) {
    print(
      [
        '',
        'identity: generated the management API admin client. Store these credentials now:',
        'they are shown this once and never again (set them as ADMIN_CLIENT_ID / ADMIN_CLIENT_SECRET to keep control).',
        `  ADMIN_CLIENT_ID=${generated.clientId}`,
        `  ADMIN_CLIENT_SECRET=${generated.secret}`,
        `  audience=${options.managementAudience}`,
        '',
      ].join('\n'),
    );
    options.logger.info({ client_id: generated.clientId }, 'generated the bootstrap admin client (credentials printed once to stdout)');
  }
}

/**
 * The built-in roles (Admin, Support, Viewer), created with their management scopes the first
 * time; later starts leave them as operators edited them, but for Admin, which gets back every
 * management scope (new ones included).
 */
async function ensureBuiltInRoles(store: IdentityStore, managementAudience: string): Promise<void> {
  for (const builtIn of BUILT_IN_ROLES) {
    let role = await store.roles.findBuiltIn(builtIn.key);
    const created = !role;
    if (!role) {
      // An operator's own role may already have the name: the built-in one then says what it is.
      const name = (await store.roles.findByName(builtIn.name)) ? `${builtIn.name} (built-in)` : builtIn.name;
      role = await store.roles.insert({ id: newId('rol'), name, description: builtIn.description, built_in: builtIn.key });
    }
    if (created || builtIn.key === ADMIN_ROLE_KEY) {
      await store.roles.addRolePermissions(
        role.id,
        builtIn.scopes.map((permission_name) => ({ resource_server_identifier: managementAudience, permission_name })),
      );
    }
  }
}

function adminClient(clientId: string, secretHash: string) {
  return {
    client_id: clientId,
    name: 'Bootstrap admin (management API)',
    app_type: 'non_interactive' as const,
    callbacks: [],
    allowed_origins: [],
    grant_types: ['client_credentials'],
    default_audience: null,
    secret_hash: secretHash,
    system_role: BOOTSTRAP_ADMIN_ROLE,
  };
}

async function upsertConfiguredAdmin(store: IdentityStore, clientId: string, secret: string): Promise<StoredClient> {
  const current = await store.clients.findById(clientId);
  if (!current) return store.clients.insert(adminClient(clientId, hashClientSecret(secret)));
  const updated = await store.clients.update(clientId, {
    app_type: 'non_interactive',
    grant_types: [...new Set([...current.grant_types, 'client_credentials'])],
    // Rehash only when the configured secret changed (a fresh salt each start would be churn).
    ...(verifyClientSecret(secret, current.secret_hash) ? {} : { secret_hash: hashClientSecret(secret) }),
    // The configured secret must keep working, whatever method the client was switched to.
    ...(current.token_endpoint_auth_method.startsWith('client_secret_') ? {} : { token_endpoint_auth_method: 'client_secret_post' as const }),
  });
  await store.clients.setSystemRole(clientId, BOOTSTRAP_ADMIN_ROLE);
  return updated!;
}
