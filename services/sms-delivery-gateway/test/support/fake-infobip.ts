import { randomBytes } from 'node:crypto';
import { recordJson, startRecordingFake, type JsonRequest, type RecordingFake } from './recording-fake';

export const INFOBIP_API_KEY = 'infobip-api-key-0123456789abcdef-0123456789';

export type InfobipRequest = JsonRequest<{ messages?: Array<Record<string, unknown>> }>;

/** What the fake answers: a request error (HTTP status and `serviceException.messageId`) or a REJECTED status name in a 200. */
export type InfobipAnswer = { status: number; messageId: string; text: string } | { rejected: string; description: string };

export interface FakeInfobip extends RecordingFake<InfobipRequest> {
  answerWith: InfobipAnswer | undefined;
}

/**
 * A small imitation of Infobip's SMS API (`POST /sms/2/text/advanced`), answering as its
 * documentation shows: 401 `requestError.serviceException` UNAUTHORIZED without `App <key>`,
 * what the test chooses, else 200 `{bulkId, messages: [{to, status: PENDING_ACCEPTED, messageId}]}`.
 */
export async function startFakeInfobip(): Promise<FakeInfobip> {
  return startRecordingFake({
    state: { answerWith: undefined as InfobipAnswer | undefined },
    record: recordJson<InfobipRequest['json']>,
    answer: ({ request, req, reply }, fake) => {
      const { json } = request;
      const requestError = (status: number, messageId: string, text: string) => reply(status, { requestError: { serviceException: { messageId, text } } });
      if (request.method !== 'POST' || request.url !== '/sms/2/text/advanced') {
        requestError(404, 'NOT_FOUND', 'Not found');
        return;
      }
      if (req.headers.authorization !== `App ${INFOBIP_API_KEY}`) {
        requestError(401, 'UNAUTHORIZED', 'Invalid login details');
        return;
      }
      const answer = fake.answerWith;
      if (answer !== undefined && 'status' in answer) {
        requestError(answer.status, answer.messageId, answer.text);
        return;
      }
      const to = String((json.messages?.[0]?.destinations as Array<{ to?: unknown }> | undefined)?.[0]?.to ?? '');
      const status =
        answer !== undefined
          ? { groupId: 5, groupName: 'REJECTED', id: 6, name: answer.rejected, description: answer.description }
          : { groupId: 1, groupName: 'PENDING', id: 26, name: 'PENDING_ACCEPTED', description: 'Message sent to next instance' };
      reply(200, { bulkId: randomBytes(8).toString('hex'), messages: [{ to, status, messageId: randomBytes(12).toString('hex') }] });
    },
  });
}
