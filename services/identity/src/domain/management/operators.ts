import { UserCreateSchema } from '@smsauth/contracts';
import type { Clock } from '@smsauth/service-kit';
import type { IdentityStore, StoredConnection, StoredRole } from '../../store';
import { consoleClientOf } from '../console/client';
import { ADMIN_ROLE_KEY } from './built-in-roles';
import { createUser } from './managed-users';
import { assignUserRoles } from './roles';
import { userPhoneNumber } from './users';
import { invalidField } from './validation';

/** Who becomes an operator: a number of an SMS connection, with roles named (case-insensitive). */
export interface OperatorGrant {
  connection: string;
  phoneNumber: string;
  roles: readonly string[];
  /** The console's URL (`<AUTH_URL>/console/`): its client is enabled on the connection, so the operator can sign in there. */
  consoleUrl?: string;
}

export interface OperatorGranted {
  userId: string;
  /** The number as stored (E.164). */
  phoneNumber: string;
  /** The user did not exist and was created. */
  created: boolean;
  /** The roles granted, as named in the tenant. */
  roles: string[];
  /** The console's client was enabled on the connection by this call. */
  consoleEnabled: boolean;
}

/** Every role, by name (a tenant has a handful): what an error lists. */
async function roleNames(store: IdentityStore): Promise<string[]> {
  return (await store.roles.page(undefined, { offset: 0, limit: 100 })).map((role) => role.name);
}

async function rolesNamed(store: IdentityStore, names: readonly string[]): Promise<StoredRole[]> {
  const roles: StoredRole[] = [];
  for (const name of names) {
    const role = await store.roles.findByName(name);
    if (!role) {
      // A database identity never started on has no built-in roles yet.
      const hint = (await store.roles.findBuiltIn(ADMIN_ROLE_KEY)) ? '' : ' (identity creates the built-in Admin, Support and Viewer at its first start)';
      throw invalidField('roles', `no role is named ${name}; the roles are: ${(await roleNames(store)).join(', ') || 'none'}${hint}`);
    }
    roles.push(role);
  }
  return roles;
}

async function smsConnection(store: IdentityStore, name: string): Promise<StoredConnection> {
  const connection = await store.connections.findByName(name);
  if (!connection) throw invalidField('connection', `no connection is named ${name}`);
  if (connection.strategy !== 'sms') throw invalidField('connection', `${name} is not an sms connection`);
  return connection;
}

/**
 * Makes a number an operator, with the operations `POST /users` and `POST /users/{id}/roles`
 * use: the user of the connection with that number (created when there is none; operators sign
 * in by SMS, there is no password) is given the roles; the console's client is enabled on the
 * connection. Roles the user already holds stay: running it again changes nothing.
 */
export async function ensureOperator(store: IdentityStore, clock: Clock, grant: OperatorGrant): Promise<OperatorGranted> {
  return store.transaction(async (tx) => {
    const roles = await rolesNamed(tx, grant.roles);
    const connection = await smsConnection(tx, grant.connection);
    const phoneNumber = userPhoneNumber(grant.phoneNumber);
    const existing = await tx.users.findByPhone(connection.id, phoneNumber);
    const userId =
      existing?.user_id ?? (await createUser(tx, clock, UserCreateSchema.parse({ connection: connection.name, phone_number: phoneNumber }))).user_id;
    if (roles.length > 0) await assignUserRoles(tx, userId, roles.map((role) => role.id));
    const consoleClient = grant.consoleUrl === undefined ? undefined : await consoleClientOf(tx, grant.consoleUrl);
    const consoleEnabled = consoleClient !== undefined && !connection.enabled_clients.includes(consoleClient.clientId);
    if (consoleEnabled) await tx.connections.update(connection.id, { enabled_clients: [...connection.enabled_clients, consoleClient.clientId] });
    return { userId, phoneNumber, created: existing === undefined, roles: roles.map((role) => role.name), consoleEnabled };
  });
}
