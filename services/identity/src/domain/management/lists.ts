import type {
  ClientGrantsListQuery,
  ClientsListQuery,
  ConnectionsListQuery,
  ResourceServersListQuery,
  UsersListQuery,
} from '@smsauth/contracts';
import type { IdentityStore, UserCondition } from '../../store';
import { toClientGrantRecord } from './client-grants';
import { clientRecordsOf } from './clients';
import { toConnectionRecord } from './connections';
import { listPagingOf, listResponse, needsTotal, offsetPagingOf, projectFields, windowOf } from './paging';
import { toResourceServerRecord } from './resource-servers';
import { parseUserSearch } from './user-search';
import { toUserRecord } from './users';

// Every GET list of /api/v2: query string -> store page (+ count for include_totals) -> answer.

/** `name`, `strategy` (repeatable), offset or checkpoint paging, projection. */
export async function listConnections(store: IdentityStore, input: ConnectionsListQuery): Promise<unknown> {
  const paging = listPagingOf(input);
  const filter = { name: input.name, strategies: input.strategy };
  const [slice, total] = await Promise.all([
    store.connections.page(filter, windowOf(paging)),
    needsTotal(paging) ? store.connections.count(filter) : undefined,
  ]);
  const items = slice.items.map((c) => projectFields(toConnectionRecord(c), input.fields, input.include_fields));
  return listResponse('connections', { ...slice, items }, paging, total);
}

/** `app_type` filter, offset paging, projection. */
export async function listClients(store: IdentityStore, input: ClientsListQuery): Promise<unknown> {
  const paging = offsetPagingOf(input);
  const filter = { app_types: input.app_type };
  const [slice, total] = await Promise.all([
    store.clients.page(filter, { kind: 'offset', offset: paging.offset, limit: paging.limit }),
    paging.includeTotals ? store.clients.count(filter) : undefined,
  ]);
  const items = (await clientRecordsOf(store, slice.items)).map((c) => projectFields(c, input.fields, input.include_fields));
  return listResponse('clients', { items }, { kind: 'offset', ...paging }, total);
}

/** `identifiers` filter (exact audiences), offset paging, projection. */
export async function listResourceServers(store: IdentityStore, input: ResourceServersListQuery): Promise<unknown> {
  const paging = offsetPagingOf(input);
  const filter = { identifiers: input.identifiers };
  const [slice, total] = await Promise.all([
    store.resourceServers.page(filter, paging),
    paging.includeTotals ? store.resourceServers.count(filter) : undefined,
  ]);
  const items = slice.items.map((rs) => projectFields(toResourceServerRecord(rs), input.fields, input.include_fields));
  return listResponse('resource_servers', { items }, { kind: 'offset', ...paging }, total);
}

/** `client_id`, `audience`, offset or checkpoint paging. */
export async function listClientGrants(store: IdentityStore, input: ClientGrantsListQuery): Promise<unknown> {
  const paging = listPagingOf(input);
  const filter = { client_id: input.client_id, audience: input.audience };
  const [slice, total] = await Promise.all([
    store.clientGrants.page(filter, windowOf(paging)),
    needsTotal(paging) ? store.clientGrants.count(filter) : undefined,
  ]);
  return listResponse('client_grants', { ...slice, items: slice.items.map(toClientGrantRecord) }, paging, total);
}

/**
 * `q` (user-search.ts), `sort`, `connection`, offset paging, projection. `search_engine` v2 and
 * v3 are answered by the one engine; `primary_order` changes nothing (the order is always
 * deterministic: user_id breaks ties).
 */
export async function listUsers(store: IdentityStore, input: UsersListQuery): Promise<unknown> {
  const search = parseUserSearch(input.q);
  const byConnection: UserCondition | undefined = input.connection ? { field: 'connection', equals: input.connection } : undefined;
  const where = search && byConnection ? { all: [search, byConnection] } : (search ?? byConnection);
  const paging = offsetPagingOf(input);
  const [rows, total] = await Promise.all([
    store.users.list({ where, sort: input.sort, offset: paging.offset, limit: paging.limit }),
    paging.includeTotals ? store.users.count(where) : undefined,
  ]);
  const items = rows.map((user) => projectFields(toUserRecord(user), input.fields, input.include_fields));
  return listResponse('users', { items }, { kind: 'offset', ...paging }, total, { withLength: true });
}
