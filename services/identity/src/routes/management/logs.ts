import { LogsListQuerySchema, TenantLogSchema } from '@smsauth/contracts';
import type { Operation } from '@smsauth/service-kit';
import * as logs from '../../domain/logs/list';
import type { ManagementDependencies } from './context';
import { byId, managementOperation } from './declare';
import { PAGING_DESCRIPTIONS, pagedList, record } from './responses';

const SEARCH_DESCRIPTIONS = {
  q:
    '`field:value` / `field:"quoted"` on type, user_id, client_id, connection, ip; `phone_number:"+14155552671"` ' +
    '(international form; the events about that number, a user\'s or not, matched by a keyed hash); `date:[from TO to]` (inclusive) or ' +
    '`date:{from TO to}` (exclusive), `*` for an open end, ISO 8601 dates; terms joined by AND.',
  page: 'Zero-based page; search reaches the first 1,000 logs.',
  per_page: 'Page size, 1-100 (default 50).',
  include_totals: 'true: answer `{start, limit, length, total, logs}` instead of a bare array.',
  sort: '`date:-1` (newest first, the default) or `date:1`.',
  fields: PAGING_DESCRIPTIONS.fields,
  include_fields: PAGING_DESCRIPTIONS.include_fields,
};

/** `/logs`: the tenant log (search, or read by checkpoint) and a user's events. */
export function logOperations({ store }: ManagementDependencies): Operation[] {
  const logList = pagedList('TenantLog', TenantLogSchema, 'logs', { withLength: true, projected: true });
  return [
    managementOperation({
      method: 'get',
      path: '/logs',
      summary: 'Tenant log events: search (newest first) or read by checkpoint',
      scope: 'read:logs',
      query: LogsListQuerySchema,
      queryDescriptions: {
        ...SEARCH_DESCRIPTIONS,
        from:
          'Checkpoint: a log_id; the answer is the logs after it in stream order (a bare array; every other parameter ignored) ' +
          'and a `Link: <...>; rel="next"` header for the next request.',
        take: 'Checkpoint page size, 1-100 (default 50); alone, reads from the oldest retained log.',
      },
      status: '200',
      response: { ...logList, headers: { Link: { description: 'Checkpoint reading: `<...>; rel="next"`, the request for the logs after these.', schema: { type: 'string' } } } },
      errors: ['400'],
      handle: async ({ query, req, res }) => {
        const answer = await logs.listLogs(store, query);
        if (answer.nextFrom !== undefined) {
          const take = typeof req.query.take === 'string' ? `&take=${encodeURIComponent(req.query.take)}` : '';
          res.links({ next: `${req.baseUrl}/logs?from=${encodeURIComponent(answer.nextFrom)}${take}` });
        }
        return answer.body;
      },
    }),
    managementOperation({
      method: 'get',
      path: '/logs/:id',
      summary: 'Get a tenant log event by log_id',
      scope: 'read:logs',
      params: byId,
      status: '200',
      response: record('TenantLog', TenantLogSchema),
      errors: ['404'],
      handle: ({ params }) => logs.getLog(store, params.id),
    }),
    managementOperation({
      method: 'get',
      path: '/users/:id/logs',
      summary: "A user's log events (search paging, newest first)",
      scope: 'read:logs',
      params: byId,
      // No checkpoint reading here: from/take are not parameters of this operation.
      query: LogsListQuerySchema.omit({ from: true, take: true }),
      queryDescriptions: { ...SEARCH_DESCRIPTIONS, q: `${SEARCH_DESCRIPTIONS.q} Always limited to this user.` },
      status: '200',
      response: logList,
      errors: ['400'],
      handle: async ({ params, query }) => (await logs.listLogs(store, query, params.id)).body,
    }),
  ];
}
