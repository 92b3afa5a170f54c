import { createHmac, randomUUID } from 'node:crypto';
import { recordJson, startRecordingFake, type JsonRequest, type RecordingFake } from './recording-fake';

export const PLIVO_AUTH_ID = 'MAXXXXXXXXXXXXXXXXXX';
export const PLIVO_AUTH_TOKEN = 'plivo-auth-token-0123456789abcdef';

export type PlivoRequest = JsonRequest;

/** An error Plivo answers: HTTP status and its `error` text. */
export interface PlivoErrorAnswer {
  status: number;
  error: string;
}

export interface FakePlivo extends RecordingFake<PlivoRequest> {
  answerWith: PlivoErrorAnswer | undefined;
}

/**
 * A small imitation of Plivo's Messages API (`POST /v1/Account/{auth_id}/Message/`), answering
 * as its documentation shows: 401 without the right basic auth, the error the test chooses,
 * else 202 `{api_id, message: "message(s) queued", message_uuid: [uuid]}`.
 */
export async function startFakePlivo(): Promise<FakePlivo> {
  return startRecordingFake({
    state: { answerWith: undefined as PlivoErrorAnswer | undefined },
    record: recordJson<PlivoRequest['json']>,
    answer: ({ request, req, reply }, fake) => {
      const apiId = randomUUID();
      if (request.method !== 'POST' || request.url !== `/v1/Account/${PLIVO_AUTH_ID}/Message/`) {
        reply(404, { api_id: apiId, error: 'not found' });
        return;
      }
      if (req.headers.authorization !== `Basic ${Buffer.from(`${PLIVO_AUTH_ID}:${PLIVO_AUTH_TOKEN}`).toString('base64')}`) {
        reply(401, { api_id: apiId, error: 'authentication failed' });
        return;
      }
      if (fake.answerWith !== undefined) {
        reply(fake.answerWith.status, { api_id: apiId, error: fake.answerWith.error });
        return;
      }
      reply(202, { api_id: apiId, message: 'message(s) queued', message_uuid: [randomUUID()] });
    },
  });
}

/**
 * Signs a status callback as Plivo documents V3 for a POST to a URL without a query: the URL,
 * `?`, each parameter sorted by name as `namevalue`, `.`, the nonce; HMAC-SHA256, base64.
 * Written out here from the documentation, not with the gateway's code, so both are checked.
 */
export function signLikePlivo(authToken: string, url: string, form: Record<string, string>, nonce: string): string {
  const posted = Object.keys(form)
    .sort()
    .map((key) => `${key}${form[key]}`)
    .join('');
  return createHmac('sha256', authToken).update(`${url}?${posted}.${nonce}`).digest('base64');
}
