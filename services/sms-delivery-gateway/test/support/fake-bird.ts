import { createHash, createHmac, randomUUID } from 'node:crypto';
import { recordJson, startRecordingFake, type JsonRequest, type RecordingFake } from './recording-fake';

export const BIRD_ACCESS_KEY = 'bird-access-key-0123456789abcdefABCDEF';
export const BIRD_WORKSPACE_ID = '2d7a1d0c-7c1f-4d4b-9d2e-5f1b0f6c3a11';
export const BIRD_CHANNEL_ID = '8e0f7c2b-3b1a-4f6e-8a5d-7c9e1b2d4f60';
export const BIRD_SIGNING_KEY = 'bird-webhook-signing-key-0123456789';

export type BirdRequest = JsonRequest;

/** An error Bird answers: HTTP status and its `code`. */
export interface BirdErrorAnswer {
  status: number;
  code: string;
  message: string;
}

export interface FakeBird extends RecordingFake<BirdRequest> {
  answerWith: BirdErrorAnswer | undefined;
}

/**
 * Signs a webhook as Bird's "Verifying a webhook subscription" shows, written here
 * independently of the gateway: HMAC-SHA256 keyed with the signing key over the timestamp, a
 * newline, the URL, a newline and the raw SHA-256 digest of the body; base64.
 */
export function signLikeBird(signingKey: string, timestamp: string, url: string, body: string): string {
  const digest = createHash('sha256').update(body, 'utf8').digest();
  const hmac = createHmac('sha256', signingKey);
  hmac.update(`${timestamp}\n${url}\n`, 'utf8');
  hmac.update(digest);
  return hmac.digest('base64');
}

/**
 * A small imitation of Bird's Channels API (`POST /workspaces/{id}/channels/{id}/messages`),
 * answering as its documentation shows: 401 `Unauthorized` without `Authorization: AccessKey`
 * of the key, 404 `NotFound` for another workspace or channel, the error the test chooses
 * (`{code, message}`), else 202 with the message resource (`id`, `status: accepted`, `reference`).
 */
export async function startFakeBird(): Promise<FakeBird> {
  return startRecordingFake({
    state: { answerWith: undefined as BirdErrorAnswer | undefined },
    record: recordJson<BirdRequest['json']>,
    answer: ({ request, req, reply }, fake) => {
      const { json } = request;
      if (req.headers.authorization !== `AccessKey ${BIRD_ACCESS_KEY}`) {
        reply(401, { code: 'Unauthorized', message: 'Invalid access key' });
        return;
      }
      if (request.method !== 'POST' || request.url !== `/workspaces/${BIRD_WORKSPACE_ID}/channels/${BIRD_CHANNEL_ID}/messages`) {
        reply(404, { code: 'NotFound', message: 'Channel not found' });
        return;
      }
      if (fake.answerWith !== undefined) {
        reply(fake.answerWith.status, { code: fake.answerWith.code, message: fake.answerWith.message });
        return;
      }
      const now = new Date().toISOString();
      reply(202, {
        id: randomUUID(),
        channelId: BIRD_CHANNEL_ID,
        sender: { connector: { id: randomUUID(), identifierValue: 'Acme' } },
        receiver: json.receiver,
        body: json.body,
        reference: json.reference,
        status: 'accepted',
        direction: 'outgoing',
        lastStatusAt: now,
        createdAt: now,
        updatedAt: now,
      });
    },
  });
}
