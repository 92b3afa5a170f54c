import type { Api } from '../api';
import { seg } from '../api';
import { useLoad } from '../components/ui';
import { useConsole } from '../context';

export interface Connection {
  id: string;
  name: string;
  strategy: string;
  enabled_clients: string[];
  options: Record<string, unknown> & {
    sms_fraud_guard?: { mode: 'off' | 'monitor' | 'block'; min_sends: number; min_conversion: number; window_minutes: number; block_minutes: number };
    sms_safe_list?: string[];
    sms_prefix_digits?: number;
    allowed_countries?: string[];
    denied_countries?: string[];
    template?: string;
    syntax?: string;
  };
}

export interface FraudBlock {
  prefix: string;
  blocked_until: string;
  created_at: string;
  sends: number;
  verified: number;
}

/** A paged list answers an array, or an envelope naming it (include_totals). */
export function itemsOf<T>(answer: unknown, key: string): T[] {
  if (Array.isArray(answer)) return answer as T[];
  const items = (answer as Record<string, unknown> | undefined)?.[key];
  return Array.isArray(items) ? (items as T[]) : [];
}

export async function smsConnections(api: Api): Promise<Connection[]> {
  return itemsOf<Connection>(await api.get('/connections', { strategy: 'sms', per_page: 100 }), 'connections');
}

export async function blocksOf(api: Api, connection: Connection): Promise<FraudBlock[]> {
  return (await api.get<{ blocks: FraudBlock[] }>(`/connections/${seg(connection.id)}/sms-fraud-blocks`)).blocks;
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
