import { OutboxMessageListSchema, PhoneNumberSchema } from '@smsauth/contracts';
import { defineOperation, type Operation } from '@smsauth/service-kit';
import { z } from 'zod';
import type { OutboxStore } from '../store/outbox-store';
import { refusal } from './refusals';

export const OUTBOX_TAG = 'Outbox (development)';
/** The OUTBOX_TOKEN bearer, when one is set. */
export const OUTBOX_TOKEN_SCHEME = 'outboxToken';

/** An unencoded `+` in a query string decodes to a space; `?recipient=+1415...` still means the number. */
function restorePlus(value: unknown): unknown {
  return typeof value === 'string' && /^ \d/.test(value) ? `+${value.slice(1)}` : value;
}

/** The contracts' OutboxQuery, read from a query string (where `+` may have become a space). */
const OutboxQueryParamsSchema = z.object({ recipient: z.preprocess(restorePlus, PhoneNumberSchema).optional() });

/**
 * `GET /outbox/messages?recipient=` (newest first) and `DELETE /outbox/messages`.
 * Messages hold one-time codes: never cached.
 */
export function outboxOperations(outbox: OutboxStore, tokenRequired: boolean): Operation[] {
  const security = tokenRequired ? { security: [{ [OUTBOX_TOKEN_SCHEME]: [] }] } : {};
  return [
    defineOperation({
      method: 'get',
      path: '/outbox/messages',
      operationId: 'listOutboxMessages',
      tags: [OUTBOX_TAG],
      summary: 'Messages kept by the outbox provider, newest first',
      ...security,
      query: OutboxQueryParamsSchema,
      responses: {
        '200': { description: 'Messages', schema: OutboxMessageListSchema, component: 'OutboxMessageList' },
        '400': refusal('recipient is not an E.164 number.'),
        '401': refusal('Missing or wrong OUTBOX_TOKEN.'),
      },
      handle: ({ query, res }) => {
        res.setHeader('Cache-Control', 'no-store');
        return outbox.list(query.recipient);
      },
    }),
    defineOperation({
      method: 'delete',
      path: '/outbox/messages',
      operationId: 'clearOutbox',
      tags: [OUTBOX_TAG],
      summary: 'Empty the outbox',
      ...security,
      responses: { '204': { description: 'Emptied.' }, '401': refusal('Missing or wrong OUTBOX_TOKEN.') },
      handle: () => {
        outbox.clear();
      },
    }),
  ];
}
