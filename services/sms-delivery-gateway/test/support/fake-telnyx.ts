import { generateKeyPairSync, randomUUID, sign, type KeyObject } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { RecordingServer } from '@smsauth/test-support';

export const TELNYX_API_KEY = 'KEY0123456789ABCDEF_telnyx-test-key';
export const TELNYX_PROFILE_ID = '4000eba1-a0c0-4563-9925-b25e842a7cb6';

export interface TelnyxRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  json: Record<string, unknown>;
}

/** An error Telnyx answers: HTTP status and its `errors[0]`. */
export interface TelnyxErrorAnswer {
  status: number;
  code: string;
  title: string;
}

export interface FakeTelnyx {
  baseUrl: string;
  requests: TelnyxRequest[];
  answerWith: TelnyxErrorAnswer | undefined;
  close(): Promise<void>;
}

/** The account's webhook key pair: Telnyx signs with the private key, the portal shows the public one (raw 32 bytes, base64). */
export function telnyxKeyPair(): { privateKey: KeyObject; publicKeyBase64: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const jwk = publicKey.export({ format: 'jwk' });
  return { privateKey, publicKeyBase64: Buffer.from(jwk.x!, 'base64url').toString('base64') };
}

/** Signs a webhook body as Telnyx documents: Ed25519 over `{timestamp}|{body}`, base64. */
export function signLikeTelnyx(privateKey: KeyObject, timestamp: string, body: string): string {
  return sign(null, Buffer.from(`${timestamp}|${body}`, 'utf8'), privateKey).toString('base64');
}

/**
 * A small imitation of Telnyx's Messaging API v2 (`POST /v2/messages`), answering as its
 * documentation shows: 401 with error 10009 without the right Bearer key, the error the test
 * chooses, else 200 with the message resource (`data.id`, `to[0].status` queued, `encoding`).
 */
export async function startFakeTelnyx(): Promise<FakeTelnyx> {
  const requests: TelnyxRequest[] = [];
  const fake: FakeTelnyx = { baseUrl: '', requests, answerWith: undefined, close: async () => undefined };
  const server = await RecordingServer.start({
    responder: (req, res, recorded) => {
      let json: Record<string, unknown> = {};
      try {
        json = JSON.parse(recorded.body) as Record<string, unknown>;
      } catch {
        // Recorded as {}.
      }
      requests.push({ method: recorded.method, url: recorded.path, headers: recorded.headers, json });
      const reply = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      if (recorded.method !== 'POST' || recorded.path !== '/v2/messages') {
        reply(404, { errors: [{ code: '10005', title: 'Resource not found' }] });
        return;
      }
      if (req.headers.authorization !== `Bearer ${TELNYX_API_KEY}`) {
        reply(401, { errors: [{ code: '10009', title: 'Authentication failed', detail: 'The API key is invalid.' }] });
        return;
      }
      if (fake.answerWith !== undefined) {
        reply(fake.answerWith.status, { errors: [{ code: fake.answerWith.code, title: fake.answerWith.title }] });
        return;
      }
      const text = String(json.text ?? '');
      reply(200, {
        data: {
          record_type: 'message',
          direction: 'outbound',
          id: randomUUID(),
          type: 'SMS',
          messaging_profile_id: json.messaging_profile_id ?? null,
          from: { phone_number: json.from ?? '+13125550100', carrier: 'TELNYX LLC', line_type: 'VoIP' },
          to: [{ phone_number: json.to, status: 'queued', carrier: 'T-MOBILE USA, INC.', line_type: 'Wireless' }],
          text,
          encoding: /^[\x20-\x7e]*$/.test(text) ? 'GSM-7' : 'UCS-2',
          parts: 1,
          webhook_url: json.webhook_url ?? null,
        },
      });
    },
  });
  fake.baseUrl = server.origin;
  fake.close = () => server.close();
  return fake;
}
