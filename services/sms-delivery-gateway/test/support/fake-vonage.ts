import { createHash, randomBytes } from 'node:crypto';
import { recordForm, startRecordingFake, type FormRequest, type RecordingFake } from './recording-fake';

export const VONAGE_KEY = 'abcd1234';
export const VONAGE_SECRET = 'vonage-api-secret-0123456789';
export const VONAGE_SIGNATURE_SECRET = 'vonage-signature-secret-0123456789abcdef';

export type VonageRequest = FormRequest;

/** What the fake answers for one message: a status code of Vonage's table and its error text. */
export interface VonageAnswer {
  status: string;
  errorText?: string;
}

export interface FakeVonage extends RecordingFake<VonageRequest> {
  /** Answers the next messages with this status (until reset to undefined). */
  answerWith: VonageAnswer | undefined;
}

/**
 * Vonage's documented `md5hash` signature, written here from the "Signing Messages" guide
 * independently of the gateway's code: `&name=value` for every parameter but sig, sorted by
 * name, `&` and `=` in values replaced by `_`, the secret appended, MD5, hex.
 */
export function signLikeVonageMd5(params: Record<string, string>, secret: string): string {
  let text = '';
  for (const name of Object.keys(params).sort()) {
    if (name === 'sig') continue;
    text += `&${name}=${params[name]!.replace(/&/g, '_').replace(/=/g, '_')}`;
  }
  return createHash('md5').update(text + secret).digest('hex');
}

/**
 * A small imitation of Vonage's SMS API (`POST /sms/json`), answering as its documentation
 * shows: HTTP 200 and `{"message-count": "1", "messages": [...]}` whatever happened, the
 * outcome in each message's `status` (0 sent; 4 bad credentials; others as the test says).
 * Accepts `api_secret` or an md5hash `sig` made with VONAGE_SIGNATURE_SECRET.
 */
export async function startFakeVonage(): Promise<FakeVonage> {
  return startRecordingFake({
    state: { answerWith: undefined as VonageAnswer | undefined },
    record: recordForm,
    answer: (exchange, fake) => {
      const { form } = exchange.request;
      // Vonage answers 200 whatever happened; the outcome is in the message's status.
      const reply = (message: Record<string, string>) => exchange.reply(200, { 'message-count': '1', messages: [{ to: form.to ?? '', ...message }] });
      if (exchange.request.method !== 'POST' || exchange.request.url !== '/sms/json') {
        exchange.reply(404);
        return;
      }
      const authenticated =
        form.api_key === VONAGE_KEY &&
        (form.api_secret === VONAGE_SECRET || (form.sig !== undefined && form.sig === signLikeVonageMd5(form, VONAGE_SIGNATURE_SECRET)));
      if (!authenticated) {
        reply({ status: '4', 'error-text': 'Bad Credentials' });
        return;
      }
      if (fake.answerWith !== undefined) {
        reply({ status: fake.answerWith.status, ...(fake.answerWith.errorText ? { 'error-text': fake.answerWith.errorText } : {}) });
        return;
      }
      reply({
        status: '0',
        'message-id': randomBytes(8).toString('hex').toUpperCase(),
        'remaining-balance': '15.53590000',
        'message-price': '0.03330000',
        network: '23410',
        ...(form['client-ref'] ? { 'client-ref': form['client-ref'] } : {}),
      });
    },
  });
}
