import { DailyStatSchema, DailyStatsQuerySchema, SmsStatSchema, SmsStatsQuerySchema } from '@smsauth/contracts';
import type { Operation } from '@smsauth/service-kit';
import { z } from 'zod';
import * as stats from '../../domain/management/stats';
import type { ManagementDependencies } from './context';
import { managementOperation } from './declare';
import { arrayOf, record } from './responses';

/** `/stats`: the figures of the operator console (Auth0's daily and active-users, and the SMS funnel). */
export function statsOperations({ store, clock }: ManagementDependencies): Operation[] {
  return [
    managementOperation({
      method: 'get',
      path: '/stats/daily',
      summary: 'Logins and signups per UTC day, from and to included (at most 366 days; by default the last 30)',
      scope: 'read:stats',
      query: DailyStatsQuerySchema,
      queryDescriptions: { from: 'First day, YYYYMMDD (UTC).', to: 'Last day, YYYYMMDD (UTC); today by default.' },
      status: '200',
      response: arrayOf('DailyStat', DailyStatSchema),
      errors: ['400'],
      handle: ({ query }) => stats.dailyStats(store, clock, query),
    }),
    managementOperation({
      method: 'get',
      path: '/stats/active-users',
      summary: 'How many users logged in during the last 30 days (a bare number)',
      scope: 'read:stats',
      status: '200',
      response: record('ActiveUsers', z.int().nonnegative()),
      errors: [],
      handle: () => stats.activeUsers(store, clock),
    }),
    managementOperation({
      method: 'get',
      path: '/stats/sms',
      summary: 'Codes sent, verified and refused, passkey logins, spend and what passkeys saved (USD), per period and country, prefix, connection, channel or provider; conversion = verified / sent',
      scope: 'read:stats',
      query: SmsStatsQuerySchema,
      queryDescriptions: {
        from: 'ISO 8601 date or time (UTC without a zone), 1970 or later; by default the start of the 6th day before `to`\'s.',
        to: 'ISO 8601 date (that day included) or time (excluded); by default the end of the current hour. At most 31 days with interval=hour, 366 with day.',
        interval: '`hour` or `day` (default): the periods, UTC.',
        group_by: '`country` (ISO 3166 code, default), `prefix` (+, calling code and the connection\'s sms_prefix_digits next digits), `connection` (name) `channel` (`sms`, `whatsapp`, `voice`; \'\' for passkey logins) or `provider` (the delivery gateway\'s provider that accepted the code, `unknown` when the gateway did not name it; \'\' for refusals and passkey logins).',
      },
      status: '200',
      response: arrayOf('SmsStat', SmsStatSchema),
      errors: ['400'],
      handle: ({ query }) => stats.smsStats(store, clock, query),
    }),
  ];
}
