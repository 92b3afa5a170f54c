import type { Clock } from '@smsauth/service-kit';
import { UserBlocksQuerySchema, type UserBlocksResponse } from '@smsauth/contracts';
import type { IdentityStore } from '../../store';
import { lookupPhone } from './users';
import { notFound, parseBody } from './validation';

function identifierOf(query: unknown): string {
  return lookupPhone(parseBody(UserBlocksQuerySchema, query).identifier);
}

/**
 * The brute-force blocks on a phone number: one entry per blocked IP, one without ip for the
 * number's lock; `connection` named when the number was reached through its user.
 */
async function blocksOn(store: IdentityStore, clock: Clock, identifier: string, connection?: string): Promise<UserBlocksResponse> {
  const blocks = await store.userBlocks.list(identifier, clock.now());
  return {
    blocked_for: blocks.map((b) => ({ identifier, ...(b.ip ? { ip: b.ip } : {}), ...(connection !== undefined ? { connection } : {}) })),
  };
}

/** `GET /user-blocks?identifier=`. */
export async function listUserBlocks(store: IdentityStore, clock: Clock, query: unknown): Promise<UserBlocksResponse> {
  return blocksOn(store, clock, identifierOf(query));
}

/** Lifts every block on the number and resets its failure counters; idempotent. */
export async function clearUserBlocks(store: IdentityStore, query: unknown): Promise<void> {
  await store.userBlocks.clear(identifierOf(query));
}

async function phoneOfUser(store: IdentityStore, userId: string): Promise<{ phone: string; connection: string }> {
  const user = await store.users.findById(userId);
  if (!user) throw notFound('User');
  return { phone: user.phone_number, connection: user.connection_name };
}

/** `GET /user-blocks/{id}`: the blocks on the user's phone number, naming the user's connection. */
export async function listUserBlocksOfUser(store: IdentityStore, clock: Clock, userId: string): Promise<UserBlocksResponse> {
  const { phone, connection } = await phoneOfUser(store, userId);
  return blocksOn(store, clock, phone, connection);
}

/** `DELETE /user-blocks/{id}`: as clearUserBlocks, for the user's phone number. */
export async function clearUserBlocksOfUser(store: IdentityStore, userId: string): Promise<void> {
  await store.userBlocks.clear((await phoneOfUser(store, userId)).phone);
}
