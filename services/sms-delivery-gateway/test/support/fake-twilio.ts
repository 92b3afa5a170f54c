import { randomBytes } from 'node:crypto';
import { recordForm, startRecordingFake, type FormRequest, type RecordingFake } from './recording-fake';

export const TWILIO_SID = `AC${'0123456789abcdef'.repeat(2)}`;
export const TWILIO_TOKEN = 'twilio-auth-token-0123456789abcdef';
/** Twilio's magic test number for "invalid To". */
export const INVALID_TO = '+15005550001';

export type TwilioRequest = FormRequest;

export type FakeTwilio = RecordingFake<TwilioRequest>;

/**
 * The shared recording server (@smsauth/test-support) answering as a small Twilio Programmable
 * Messaging and Programmable Voice (Calls) imitation: checks basic auth (401, code 20003), refuses INVALID_TO (400, code
 * 21211) and otherwise answers 201 with a message resource.
 */
export async function startFakeTwilio(options: { down?: (request: TwilioRequest) => boolean } = {}): Promise<FakeTwilio> {
  return startRecordingFake({
    state: {},
    record: recordForm,
    answer: ({ request, req, reply }) => {
      const { form } = request;
      const expectedAuth = `Basic ${Buffer.from(`${TWILIO_SID}:${TWILIO_TOKEN}`).toString('base64')}`;
      if (req.headers.authorization !== expectedAuth) {
        reply(401, { code: 20003, message: 'Authenticate', more_info: 'https://www.twilio.com/docs/errors/20003', status: 401 });
        return;
      }
      if (options.down?.(request)) {
        reply(503, { code: 20500, message: 'Service unavailable', status: 503 });
        return;
      }
      if (request.url.endsWith('/Calls.json')) {
        // Programmable Voice: the call resource (its sid starts CA).
        reply(201, { sid: `CA${randomBytes(16).toString('hex')}`, account_sid: TWILIO_SID, to: form.To, from: form.From, status: 'queued' });
        return;
      }
      if (form.To === INVALID_TO) {
        reply(400, {
          code: 21211,
          message: `The 'To' number ${form.To} is not a valid phone number.`,
          more_info: 'https://www.twilio.com/docs/errors/21211',
          status: 400,
        });
        return;
      }
      reply(201, {
        sid: `SM${randomBytes(16).toString('hex')}`,
        account_sid: TWILIO_SID,
        to: form.To,
        from: form.From ?? null,
        messaging_service_sid: form.MessagingServiceSid ?? null,
        body: form.Body,
        status: 'queued',
        num_segments: '1',
        direction: 'outbound-api',
        date_created: new Date().toUTCString(),
        uri: `/2010-04-01/Accounts/${TWILIO_SID}/Messages/SM.json`,
      });
    },
  });
}
