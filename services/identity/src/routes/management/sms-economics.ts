import { SmsPricesSchema, SmsPricesUpdateSchema, SmsStatsQuerySchema, TimeToVerifySchema } from '@smsauth/contracts';
import type { Operation } from '@smsauth/service-kit';
import * as prices from '../../domain/management/sms-prices';
import { timeToVerify } from '../../domain/management/time-to-verify';
import type { ManagementDependencies, ManagementWrite } from './context';
import { managementOperation } from './declare';
import { record } from './responses';

/**
 * The console's SMS economics (issue 47): the prices spend is counted at (under `/stats`, as the
 * figures they feed are; changing them is a tenant setting), and time to verify.
 */
export function smsEconomicsOperations({ store, clock }: ManagementDependencies, write: ManagementWrite): Operation[] {
  return [
    managementOperation({
      method: 'get',
      path: '/stats/sms-prices',
      summary: 'The price per country and channel that /stats/sms counts spend at, USD per message: the tenant\'s own over the built-in list prices; country * is every other country',
      scope: 'read:stats',
      status: '200',
      response: record('SmsPrices', SmsPricesSchema),
      errors: [],
      handle: () => prices.smsPrices(store),
    }),
    managementOperation({
      method: 'patch',
      path: '/stats/sms-prices',
      summary: 'Set prices per country (or * for every other) and channel, USD per message; price null goes back to the built-in one',
      scope: 'update:tenant_settings',
      body: { schema: SmsPricesUpdateSchema, component: 'SmsPricesUpdate' },
      status: '200',
      response: record('SmsPrices', SmsPricesSchema),
      errors: ['400'],
      handle: ({ body, req, res }) => write(req, res, 'Set SMS prices', (tx) => prices.updateSmsPrices(tx, body, clock.now())),
    }),
    managementOperation({
      method: 'get',
      path: '/stats/time-to-verify',
      summary: 'Seconds from a code sent to the login it made (p50, p90, p99) over a period, as /stats/sms takes it',
      scope: 'read:stats',
      query: SmsStatsQuerySchema.pick({ from: true, to: true }),
      queryDescriptions: {
        from: 'ISO 8601 date or time (UTC without a zone), 1970 or later; by default the start of the 6th day before `to`\'s.',
        to: 'ISO 8601 date (that day included) or time (excluded); by default the end of the current hour. At most 366 days.',
      },
      status: '200',
      response: record('TimeToVerify', TimeToVerifySchema),
      errors: ['400'],
      handle: ({ query }) => timeToVerify(store, clock, query),
    }),
  ];
}
