import { createHmac, randomBytes } from 'node:crypto';
import { recordJson, startRecordingFake, type JsonRequest, type RecordingFake } from './recording-fake';

export const SINCH_PLAN_ID = '0123456789abcdef0123456789abcdef';
export const SINCH_API_TOKEN = 'fedcba9876543210fedcba9876543210';
export const SINCH_CALLBACK_SECRET = 'sinch-callback-hmac-secret-0123456789';

export type SinchRequest = JsonRequest;

/** An error Sinch answers: HTTP status and its `{code, text}` (no body when code is undefined). */
export interface SinchErrorAnswer {
  status: number;
  code?: string;
  text?: string;
}

export interface FakeSinch extends RecordingFake<SinchRequest> {
  answerWith: SinchErrorAnswer | undefined;
}

/**
 * A small imitation of Sinch's SMS REST API (`POST /xms/v1/{service_plan_id}/batches`),
 * answering as its documentation shows: 401 with no body without the right Bearer token, the
 * error the test chooses, else 201 with the batch (`id`, `to`, `from`, `body`, `type: mt_batch`).
 */
export async function startFakeSinch(): Promise<FakeSinch> {
  return startRecordingFake({
    state: { answerWith: undefined as SinchErrorAnswer | undefined },
    record: recordJson<SinchRequest['json']>,
    answer: ({ request, req, reply }, fake) => {
      const { json } = request;
      if (request.method !== 'POST' || request.url !== `/xms/v1/${SINCH_PLAN_ID}/batches`) {
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
}

/** Signs a callback as Sinch's SDKs check it: base64 HMAC-SHA256 of `{body}.{nonce}.{timestamp}`. */
export function signLikeSinch(secret: string, body: string, nonce: string, timestamp: string): string {
  return createHmac('sha256', secret).update(`${body}.${nonce}.${timestamp}`).digest('base64');
}
