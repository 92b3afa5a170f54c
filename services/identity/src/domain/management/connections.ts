import {
  applyConnectionOptionsPatch,
  connectionWarnings,
  NEW_CONNECTION_PASSKEYS,
  redactConnectionOptions,
  type ConnectionCreate,
  type ConnectionUpdate,
  type ConnectionOptions,
  type ConnectionRecord,
} from '@smsauth/contracts';
import { MissingReferenceError, UniqueViolationError, type IdentityStore, type StoredConnection } from '../../store';
import { newId } from '../ids';
import { isKnownCountry } from '../phone/canonical-number';
import { checkConnectionTemplate } from './sms-template';
import { smsPolicyOptionsProblem, withNewConnectionSmsPolicy } from '../sms-policy/options';
import { conflict, invalidField, notFound, validationFailed } from './validation';

export function toConnectionRecord(connection: StoredConnection): ConnectionRecord {
  return {
    id: connection.id,
    name: connection.name,
    strategy: connection.strategy,
    options: redactConnectionOptions(connection.options),
    enabled_clients: connection.enabled_clients,
    realms: [connection.name],
    ...(connection.display_name !== null ? { display_name: connection.display_name } : {}),
    is_domain_connection: connection.is_domain_connection,
    metadata: connection.metadata,
  };
}

/** Every entry of enabled_clients must name an existing client: 400 naming the first unknown one. */
async function checkEnabledClients(store: IdentityStore, clientIds: readonly string[]): Promise<void> {
  const existing = new Set(await store.clients.existingIds(clientIds));
  const index = clientIds.findIndex((id) => !existing.has(id));
  if (index >= 0) throw invalidField(`enabled_clients.${index}`, `no client with id ${clientIds[index]}`);
}

function duplicateName(name: string) {
  return conflict(`A connection with the name ${name} already exists`);
}

async function writeConnection<T>(name: string, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (err instanceof UniqueViolationError) throw duplicateName(name);
    // A client deleted between the check and the write.
    if (err instanceof MissingReferenceError) throw invalidField('enabled_clients', 'names a client that does not exist');
    throw err;
  }
}

/** `options.default_country` must name a country whose numbers libphonenumber knows. */
function checkDefaultCountry(options: { default_country?: string | null | undefined }): void {
  const code = options.default_country;
  if (code && !isKnownCountry(code)) throw invalidField('options.default_country', `${code} is not a country with phone numbers`);
}

/** What connection validation needs besides the store. */
export interface ConnectionRules {
  /** Rejects with a 400 naming `options.gateway_url` when GATEWAY_URL_POLICY refuses the URL. */
  checkGatewayUrl(url: string): Promise<void>;
  /** False when NODE_ENV=production without ALLOW_TEST_NUMBERS=true: options.sms_test_numbers is refused. */
  testNumbersAllowed: boolean;
}

/** `testNumbersWritten`: a PATCH that leaves sms_test_numbers alone is not refused for numbers already stored. */
function checkSmsPolicyOptions(options: ConnectionOptions, rules: ConnectionRules, testNumbersWritten = true): void {
  const problem = smsPolicyOptionsProblem(options, rules.testNumbersAllowed || !testNumbersWritten);
  if (problem) throw invalidField(`options.${problem[0]}`, problem[1]);
}

export async function createConnection(store: IdentityStore, rules: ConnectionRules, input: ConnectionCreate): Promise<ConnectionRecord> {
  checkDefaultCountry(input.options);
  checkConnectionTemplate(input.options);
  checkSmsPolicyOptions(input.options, rules);
  await rules.checkGatewayUrl(input.options.gateway_url);
  await checkEnabledClients(store, input.enabled_clients);
  if (await store.connections.findByName(input.options.name)) throw duplicateName(input.options.name);
  const created = await writeConnection(input.options.name, () =>
    store.transaction((tx) =>
      tx.connections.insert({
        id: newId('con'),
        options: { ...withNewConnectionSmsPolicy(input.options), passkeys: input.options.passkeys ?? { ...NEW_CONNECTION_PASSKEYS } },
        enabled_clients: input.enabled_clients,
        display_name: input.display_name ?? null,
        metadata: input.metadata ?? {},
        is_domain_connection: input.is_domain_connection,
      }),
    ),
  );
  return withWarnings(toConnectionRecord(created), created.options);
}

/** The answer to a write: the record, plus its warnings when there are any (ConnectionRecordSchema.warnings). */
function withWarnings(record: ConnectionRecord, options: ConnectionOptions): ConnectionRecord {
  const warnings = connectionWarnings(options);
  return warnings.length > 0 ? { ...record, warnings } : record;
}

export async function getConnection(store: IdentityStore, id: string): Promise<StoredConnection> {
  const connection = await store.connections.findById(id);
  if (!connection) throw notFound('Connection');
  return connection;
}

/** Options are merged into the stored ones (see applyConnectionOptionsPatch); enabled_clients replaces the list. */
export async function updateConnection(store: IdentityStore, rules: ConnectionRules, id: string, patch: ConnectionUpdate): Promise<ConnectionRecord> {
  if (patch.options) checkDefaultCountry(patch.options);
  // Before the transaction: DNS may be slow, and the row lock should not wait for it.
  if (patch.options?.gateway_url !== undefined) {
    await rules.checkGatewayUrl(patch.options.gateway_url);
  }
  const updated = await store.transaction(async (tx) => {
    const current = await tx.connections.findByIdForUpdate(id);
    if (!current) throw notFound('Connection');
    let options = current.options;
    if (patch.options) {
      const merged = applyConnectionOptionsPatch(current.options, patch.options);
      if (!merged.success) throw validationFailed(merged.issues);
      options = merged.options;
      checkConnectionTemplate(options);
      checkSmsPolicyOptions(options, rules, patch.options.sms_test_numbers !== undefined);
    }
    if (patch.enabled_clients) await checkEnabledClients(tx, patch.enabled_clients);
    return writeConnection(current.name, () =>
      tx.connections.update(id, {
        options: patch.options ? options : undefined,
        enabled_clients: patch.enabled_clients,
        display_name: patch.display_name,
        metadata: patch.metadata,
        is_domain_connection: patch.is_domain_connection,
      }),
    );
  });
  if (!updated) throw notFound('Connection');
  // Only a change to where or how codes are delivered warns; a PATCH of metadata answers the record as GET does.
  const deliveryChanged = patch.options?.gateway_url !== undefined || patch.options?.gateway_authentication !== undefined;
  return deliveryChanged ? withWarnings(toConnectionRecord(updated), updated.options) : toConnectionRecord(updated);
}

/** Deleting a connection deletes its users and their codes and tokens. */
export async function deleteConnection(store: IdentityStore, id: string): Promise<void> {
  if (!(await store.connections.delete(id))) throw notFound('Connection');
}
