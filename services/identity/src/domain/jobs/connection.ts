import type { IdentityStore, StoredConnection } from '../../store';
import { invalidField } from '../management/validation';

/** The sms connection a job names by id; 400 naming `connection_id` otherwise. */
export async function smsConnectionById(store: IdentityStore, id: string): Promise<StoredConnection> {
  const connection = await store.connections.findById(id);
  if (!connection) throw invalidField('connection_id', `no connection with id ${id}`);
  if (connection.strategy !== 'sms') throw invalidField('connection_id', `${connection.name} is not an sms connection`);
  return connection;
}
