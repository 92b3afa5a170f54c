import { ErrorCodes as E, StartRequestSchema, StartResponseSchema } from '@smsauth/contracts';
import { defineOperation, type Operation } from '@smsauth/service-kit';
import { z } from 'zod';
import { startPasswordless, type StartDependencies } from '../domain/passwordless/start';
import { EXAMPLE_CLIENT, EXAMPLE_CONNECTION, EXAMPLE_PHONE } from './management/examples';
import { COMMON_ERRORS, errorResponse as error } from './management/responses';
import { CLIENT_AUTHENTICATION, CLIENT_SECURITY, JSON_OR_FORM } from './oauth-common';
import { requestLanguage } from './request-language';

function firstHeader(value: string | string[] | undefined): string | undefined {
  const first = Array.isArray(value) ? value[0] : value;
  const trimmed = first?.trim();
  return trimmed ? trimmed : undefined;
}

const IdempotencyHeaders = z.object({ 'Idempotency-Key': z.string().regex(/^[\x21-\x7e]{1,255}$/).optional() });

const rateLimitHeaders = Object.fromEntries(['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'].map((name) => [name, { schema: { type: 'integer' } }]));

/**
 * `POST /passwordless/start` (spec 4.2). The domain validates the body with StartRequestSchema
 * (in START_REQUEST_VALIDATION_ORDER, with Auth0's `bad.*` errors), so the kit only publishes it.
 */
export function passwordlessOperations(deps: StartDependencies): Operation[] {
  return [
    defineOperation({
      method: 'post',
      path: '/passwordless/start',
      operationId: 'passwordlessStart',
      tags: ['Authentication'],
      summary: 'Send a one-time code by SMS (spec 2.3)',
      description: CLIENT_AUTHENTICATION,
      security: CLIENT_SECURITY,
      headers: IdempotencyHeaders,
      headerDescriptions: {
        'Idempotency-Key':
          'Optional, 1-255 visible ASCII characters, unique per start of a client. A retry with the same key while the first start\'s code is valid gets the first answer (`Idempotent-Replayed: true`) and sends nothing more; if the first start\'s delivery never settled (a replica died, the gateway answered 503), the same code is delivered again under the same gateway Idempotency-Key, so the SMS goes out at most once. Without it, every start sends.',
      },
      body: {
        schema: StartRequestSchema,
        component: 'StartRequest',
        mediaTypes: JSON_OR_FORM,
        examples: {
          sendCode: {
            summary: 'Send a code by SMS',
            value: { client_id: EXAMPLE_CLIENT, connection: EXAMPLE_CONNECTION, phone_number: EXAMPLE_PHONE, send: 'code', authParams: { scope: 'openid', state: 'xyz' } },
          },
        },
      },
      validation: 'handler',
      responses: {
        '200': {
          description: 'The code was sent (or, for a retry with its Idempotency-Key, the first answer: `Idempotent-Replayed: true`).',
          headers: { ...rateLimitHeaders, 'Idempotent-Replayed': { schema: { type: 'string', enum: ['true'] }, description: 'Present on the answer to a retry with the same Idempotency-Key.' } },
          schema: StartResponseSchema,
          component: 'StartResponse',
        },
        '409': error('A start with this Idempotency-Key is in progress; retry with the same key.', [E.INVALID_REQUEST]),
        '422': error('The Idempotency-Key was already used for a different start (another number, connection, send or authParams).', [E.INVALID_REQUEST]),
        '400': error(
          'The first problem of the request (by START_REQUEST_VALIDATION_ORDER), the connection\'s SMS policy refused the number (`bad.phone_number`: country or number type not enabled, test numbers disabled), or the gateway failed.',
          [E.BAD_CLIENT_ID, E.BAD_CONNECTION, E.BAD_PHONE_NUMBER, E.BAD_AUTH_PARAMS, E.BAD_REQUEST, E.SMS_PROVIDER_ERROR, E.INVALID_REQUEST],
        ),
        '401': error('Client authentication failed, or the number\'s user is blocked (`user is blocked`; no code is sent).', [E.INVALID_CLIENT, E.UNAUTHORIZED]),
        '429': error(
          'Start rate limit per IP or per phone number, a velocity limit of the connection per country or number prefix, or a prefix the SMS fraud guard blocked (with `Retry-After`).',
          [E.TOO_MANY_REQUESTS],
        ),
        ...COMMON_ERRORS,
        '503': error(
          'The database is unreachable (with `Retry-After: 5`), or the SMS gateway (or the balancer before it) answered 409, 502, 503 or 504 (with its `Retry-After`, else 5): retry, with the same Idempotency-Key to be sent at most once.',
          [E.SERVICE_UNAVAILABLE],
        ),
      },
      handle: ({ req, res }) =>
        startPasswordless(deps, {
          body: req.body,
          ip: req.ip ?? '',
          userAgent: firstHeader(req.headers['user-agent']),
          requestLanguage: requestLanguage(req),
          setHeaders: (headers) => res.set({ ...headers }),
          clientAuthentication: { headers: req.headers },
          idempotencyKey: req.get('idempotency-key'),
          replayed: () => res.set('Idempotent-Replayed', 'true'),
        }),
    }),
  ];
}
