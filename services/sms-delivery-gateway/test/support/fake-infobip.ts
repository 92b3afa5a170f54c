import { randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { RecordingServer } from '@smsauth/test-support';

export const INFOBIP_API_KEY = 'infobip-api-key-0123456789abcdef-0123456789';

export interface InfobipRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  json: { messages?: Array<Record<string, unknown>> };
}

/** What the fake answers: a request error (HTTP status and `serviceException.messageId`) or a REJECTED status name in a 200. */
export type InfobipAnswer = { status: number; messageId: string; text: string } | { rejected: string; description: string };

export interface FakeInfobip {
  baseUrl: string;
  requests: InfobipRequest[];
  answerWith: InfobipAnswer | undefined;
  close(): Promise<void>;
}

/**
 * A small imitation of Infobip's SMS API (`POST /sms/2/text/advanced`), answering as its
 * documentation shows: 401 `requestError.serviceException` UNAUTHORIZED without `App <key>`,
 * what the test chooses, else 200 `{bulkId, messages: [{to, status: PENDING_ACCEPTED, messageId}]}`.
 */
export async function startFakeInfobip(): Promise<FakeInfobip> {
  const requests: InfobipRequest[] = [];
  const fake: FakeInfobip = { baseUrl: '', requests, answerWith: undefined, close: async () => undefined };
  const server = await RecordingServer.start({
    responder: (req, res, recorded) => {
      let json: InfobipRequest['json'] = {};
      try {
        json = JSON.parse(recorded.body) as InfobipRequest['json'];
      } catch {
        // Recorded as {}.
      }
      requests.push({ method: recorded.method, url: recorded.path, headers: recorded.headers, json });
      const reply = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      const requestError = (status: number, messageId: string, text: string) => reply(status, { requestError: { serviceException: { messageId, text } } });
      if (recorded.method !== 'POST' || recorded.path !== '/sms/2/text/advanced') {
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
  fake.baseUrl = server.origin;
  fake.close = () => server.close();
  return fake;
}
