import { generateKeyPairSync, randomUUID, sign, type KeyObject } from 'node:crypto';
import { recordJson, startRecordingFake, type JsonRequest, type RecordingFake } from './recording-fake';

export const TELNYX_API_KEY = 'KEY0123456789ABCDEF_telnyx-test-key';
export const TELNYX_PROFILE_ID = '4000eba1-a0c0-4563-9925-b25e842a7cb6';

export type TelnyxRequest = JsonRequest;

/** An error Telnyx answers: HTTP status and its `errors[0]`. */
export interface TelnyxErrorAnswer {
  status: number;
  code: string;
  title: string;
}

export interface FakeTelnyx extends RecordingFake<TelnyxRequest> {
  answerWith: TelnyxErrorAnswer | undefined;
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
  return startRecordingFake({
    state: { answerWith: undefined as TelnyxErrorAnswer | undefined },
    record: recordJson<TelnyxRequest['json']>,
    answer: ({ request, req, reply }, fake) => {
      const { json } = request;
      if (request.method !== 'POST' || request.url !== '/v2/messages') {
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
}
