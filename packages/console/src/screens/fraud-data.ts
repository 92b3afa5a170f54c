import { type IdentityApi, itemsOf, ok, type Schema } from '../api';
import { useLoad } from '../components/ui';
import { useConsole } from '../context';

export type Connection = Schema<'ConnectionRecord'>;

export type FraudBlock = Schema<'SmsFraudBlockList'>['blocks'][number];

export async function smsConnections(api: IdentityApi): Promise<Connection[]> {
  return itemsOf<Connection>(await ok(api.GET('/api/v2/connections', { params: { query: { strategy: 'sms', per_page: 100 } } })), 'connections');
}

export async function blocksOf(api: IdentityApi, connection: Connection): Promise<FraudBlock[]> {
  return (await ok(api.GET('/api/v2/connections/{id}/sms-fraud-blocks', { params: { path: { id: connection.id } } }))).blocks;
}

export function useBlockedPrefixes() {
  const { api, operator } = useConsole();
  return useLoad(async () => {
    if (!operator.scopes.has('read:sms_fraud_blocks')) return [];
    const connections = await smsConnections(api);
    const lists = await Promise.all(connections.map(async (connection) => (await blocksOf(api, connection)).map((block) => ({ ...block, connection }))));
    return lists.flat();
  }, []);
}
