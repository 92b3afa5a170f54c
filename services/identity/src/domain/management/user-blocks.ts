import type { Clock } from '@smsauth/service-kit';
import { UserBlocksQuerySchema, type UserBlocksResponse } from '@smsauth/contracts';
import type { IdentityStore } from '../../store';
import { normalisePhone } from './users';
import { parseBody } from './validation';

function identifierOf(query: unknown): string {
  return normalisePhone(parseBody(UserBlocksQuerySchema, query).identifier);
}

/** The brute-force blocks on a phone number: one entry per blocked IP, one without ip for the number's lock. */
export async function listUserBlocks(store: IdentityStore, clock: Clock, query: unknown): Promise<UserBlocksResponse> {
  const identifier = identifierOf(query);
  const blocks = await store.userBlocks.list(identifier, clock.now());
  return { blocked_for: blocks.map((b) => (b.ip ? { identifier, ip: b.ip } : { identifier })) };
}

/** Lifts every block on the number and resets its failure counters; idempotent. */
export async function clearUserBlocks(store: IdentityStore, query: unknown): Promise<void> {
  await store.userBlocks.clear(identifierOf(query));
}
