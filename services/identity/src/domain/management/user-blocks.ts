import type { Clock } from '@smsauth/service-kit';
import type { UserBlocksQuery, UserBlocksResponse } from '@smsauth/contracts';
import type { IdentityStore } from '../../store';
import { lookupPhone } from './users';
import { notFound } from './validation';

function identifierOf(query: UserBlocksQuery): string {
  return lookupPhone(query.identifier);
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
export async function listUserBlocks(store: IdentityStore, clock: Clock, query: UserBlocksQuery): Promise<UserBlocksResponse> {
  return blocksOn(store, clock, identifierOf(query));
}

/** Whose blocks an unblock lifted: the number, and its user when reached through one (for its log record). */
export interface LiftedBlocks {
  phoneNumber: string;
  userId?: string;
}

/** Lifts every block on the number and resets its failure counters; idempotent. */
export async function clearUserBlocks(store: IdentityStore, query: UserBlocksQuery): Promise<LiftedBlocks> {
  const phoneNumber = identifierOf(query);
  await store.userBlocks.clear(phoneNumber);
  return { phoneNumber };
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
export async function clearUserBlocksOfUser(store: IdentityStore, userId: string): Promise<LiftedBlocks> {
  const { phone } = await phoneOfUser(store, userId);
  await store.userBlocks.clear(phone);
  return { phoneNumber: phone, userId };
}
