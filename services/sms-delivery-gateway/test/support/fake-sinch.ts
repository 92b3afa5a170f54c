import { createHmac, randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { RecordingServer } from '@smsauth/test-support';

export const SINCH_PLAN_ID = '0123456789abcdef0123456789abcdef';
export const SINCH_API_TOKEN = 'fedcba9876543210fedcba9876543210';
export const SINCH_CALLBACK_SECRET = 'sinch-callback-hmac-secret-0123456789';

export interface SinchRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  json: Record<string, unknown>;
}

/** An error Sinch answers: HTTP status and its `{code, text}` (no body when code is undefined). */
export interface SinchErrorAnswer {
  status: number;
  code?: string;
  text?: string;
}

export interface FakeSinch {
  baseUrl: string;
  requests: SinchRequest[];
  answerWith: SinchErrorAnswer | undefined;
  close(): Promise<void>;
}

/**
 * A small imitation of Sinch's SMS REST API (`POST /xms/v1/{service_plan_id}/batches`),
 * answering as its documentation shows: 401 with no body without the right Bearer token, the
 * error the test chooses, else 201 with the batch (`id`, `to`, `from`, `body`, `type: mt_batch`).
 */
export async function startFakeSinch(): Promise<FakeSinch> {
  const requests: SinchRequest[] = [];
  const fake: FakeSinch = { baseUrl: '', requests, answerWith: undefined, close: async () => undefined };
  const server = await RecordingServer.start({
    responder: (req, res, recorded) => {
      let json: Record<string, unknown> = {};
      try {
        json = JSON.parse(recorded.body) as Record<string, unknown>;
      } catch {
        // Recorded as {}.
      }
      requests.push({ method: recorded.method, url: recorded.path, headers: recorded.headers, json });
      const reply = (status: number, body?: unknown) => {
        if (body === undefined) {
          res.writeHead(status).end();
          return;
        }
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      if (recorded.method !== 'POST' || recorded.path !== `/xms/v1/${SINCH_PLAN_ID}/batches`) {
        reply(404, { code: 'not_found', text: 'Not found' });
        return;
      }
      if (req.headers.authorization !== `Bearer ${SINCH_API_TOKEN}`) {
        reply(401);
        return;
      }
      const answer = fake.answerWith;
      if (answer !== undefined) {
        reply(answer.status, answer.code === undefined ? undefined : { code: answer.code, text: answer.text ?? answer.code });
        return;
      }
      reply(201, {
        id: randomBytes(13).toString('hex').toUpperCase().slice(0, 26),
        to: json.to,
        from: json.from,
        canceled: false,
        body: json.body,
        type: 'mt_batch',
        created_at: '2025-01-15T12:00:00.000Z',
        modified_at: '2025-01-15T12:00:00.000Z',
        delivery_report: json.delivery_report ?? 'none',
        ...(json.callback_url !== undefined ? { callback_url: json.callback_url } : {}),
        ...(json.client_reference !== undefined ? { client_reference: json.client_reference } : {}),
      });
    },
  });
  fake.baseUrl = server.origin;
  fake.close = () => server.close();
  return fake;
}

/** Signs a callback as Sinch's SDKs check it: base64 HMAC-SHA256 of `{body}.{nonce}.{timestamp}`. */
export function signLikeSinch(secret: string, body: string, nonce: string, timestamp: string): string {
  return createHmac('sha256', secret).update(`${body}.${nonce}.${timestamp}`).digest('base64');
}
