import type { SmsFraudBlockList } from '@smsauth/contracts';
import type { IdentityStore } from '../../store';
import { getConnection } from './connections';
import { notFound } from './validation';

/** `GET /api/v2/connections/{id}/sms-fraud-blocks`: the prefixes the fraud guard blocks now. */
export async function listSmsFraudBlocks(store: IdentityStore, connectionId: string, now: Date): Promise<SmsFraudBlockList> {
  await getConnection(store, connectionId);
  const blocks = await store.smsFraudGuard.activeBlocks(connectionId, now);
  return {
    blocks: blocks.map((b) => ({
      prefix: b.prefix,
      blocked_until: b.blocked_until.toISOString(),
      created_at: b.created_at.toISOString(),
      sends: b.sends,
      verified: b.verified,
    })),
  };
}

/** `DELETE /api/v2/connections/{id}/sms-fraud-blocks/{prefix}`: lifts a block and forgets the prefix's counts. */
export async function liftSmsFraudBlock(store: IdentityStore, connectionId: string, prefix: string, now: Date): Promise<void> {
  await getConnection(store, connectionId);
  if (!(await store.smsFraudGuard.lift(connectionId, prefix, now))) throw notFound('SMS fraud block');
}
