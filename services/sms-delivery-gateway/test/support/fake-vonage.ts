import { createHash, generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { jsonBody, recordForm, startRecordingFake, type FakeExchange, type FormRequest, type RecordingFake } from './recording-fake';

export const VONAGE_KEY = 'abcd1234';
export const VONAGE_SECRET = 'vonage-api-secret-0123456789';
export const VONAGE_SIGNATURE_SECRET = 'vonage-signature-secret-0123456789abcdef';

export const VONAGE_APPLICATION_ID = 'aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee';
/** The application's key pair: the gateway signs its Messages API JWT with the private key, the fake checks it with the public one. */
const applicationKeys = generateKeyPairSync('rsa', { modulusLength: 2048 });
export const VONAGE_PRIVATE_KEY = applicationKeys.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

/** A request as the fake recorded it: the form (SMS API) and the JSON body (Messages API) both read. */
export type VonageRequest = FormRequest & { json: Record<string, unknown> };

/** How the fake's Messages API answers the next messages: an HTTP status and its RFC 7807 title. */
export interface VonageMessagesAnswer {
  httpStatus: number;
  title: string;
  detail?: string;
}

/**
 * A Messages API status webhook signed as Vonage documents it ("Signed Webhooks"): a JWT in
 * `Authorization: Bearer`, HS256 with the signature secret, carrying `payload_hash` (SHA-256
 * hex of the body), `iat`, `jti`, `iss` and the account's `api_key` and `application_id`.
 */
export function signLikeVonageMessages(body: string, secret: string, iat: number, claims: Record<string, unknown> = {}): string {
  const payloadHash = createHash('sha256').update(body).digest('hex');
  return jwt.sign(
    { iat, jti: randomUUID(), iss: 'Vonage', payload_hash: payloadHash, api_key: VONAGE_KEY, application_id: VONAGE_APPLICATION_ID, ...claims },
    secret,
    { algorithm: 'HS256' },
  );
}

/** What the fake answers for one message: a status code of Vonage's table and its error text. */
export interface VonageAnswer {
  status: string;
  errorText?: string;
}

export interface FakeVonage extends RecordingFake<VonageRequest> {
  /** Answers the next messages with this status (until reset to undefined). */
  answerWith: VonageAnswer | undefined;
  /** Answers the next Messages API requests with this problem (until reset to undefined). */
  answerMessagesWith: VonageMessagesAnswer | undefined;
  /** The claims of the last Messages API JWT the fake accepted. */
  lastJwtClaims: jwt.JwtPayload | undefined;
}

/** Whether a Messages API request is authenticated: the application's RS256 JWT, or Basic with the key and secret. */
function messagesCaller(authorization: string | undefined): { jwt: jwt.JwtPayload } | { basic: true } | undefined {
  if (authorization?.startsWith('Basic ')) {
    return Buffer.from(authorization.slice(6), 'base64').toString() === `${VONAGE_KEY}:${VONAGE_SECRET}` ? { basic: true } : undefined;
  }
  if (!authorization?.startsWith('Bearer ')) return undefined;
  try {
    // The gateway's clock is fixed in the tests; the signature, algorithm and application are what is checked.
    const claims = jwt.verify(authorization.slice(7), applicationKeys.publicKey, { algorithms: ['RS256'], ignoreExpiration: true });
    return typeof claims === 'object' && claims.application_id === VONAGE_APPLICATION_ID ? { jwt: claims } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Vonage's Messages API (`POST /v1/messages`) as its reference shows: 202 and `{"message_uuid"}`
 * for an accepted message, an RFC 7807 problem (`type`, `title`, `detail`, `instance`) otherwise.
 */
function answerMessages(exchange: FakeExchange<VonageRequest>, fake: FakeVonage): void {
  const problem = (status: number, title: string, detail: string) =>
    exchange.reply(status, { type: `https://developer.vonage.com/api-errors#${status}`, title, detail, instance: randomUUID() }, { 'content-type': 'application/problem+json' });
  const caller = messagesCaller(exchange.req.headers.authorization);
  if (caller === undefined) {
    problem(401, 'Unauthorized', 'You did not provide correct credentials.');
    return;
  }
  if ('jwt' in caller) fake.lastJwtClaims = caller.jwt;
  if (fake.answerMessagesWith !== undefined) {
    problem(fake.answerMessagesWith.httpStatus, fake.answerMessagesWith.title, fake.answerMessagesWith.detail ?? '');
    return;
  }
  const { json } = exchange.request;
  if (json.channel !== 'whatsapp' || json.message_type !== 'text' || typeof json.text !== 'string' || typeof json.to !== 'string') {
    problem(422, 'Invalid params', 'The value of one or more parameters is invalid.');
    return;
  }
  exchange.reply(202, { message_uuid: randomUUID() });
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
 * Accepts `api_secret` or an md5hash `sig` made with VONAGE_SIGNATURE_SECRET. Also answers the
 * Messages API's `POST /v1/messages` (WhatsApp), as answerMessages describes.
 */
export async function startFakeVonage(): Promise<FakeVonage> {
  return startRecordingFake({
    state: {
      answerWith: undefined as VonageAnswer | undefined,
      answerMessagesWith: undefined as VonageMessagesAnswer | undefined,
      lastJwtClaims: undefined as jwt.JwtPayload | undefined,
    },
    record: (recorded): VonageRequest => ({ ...recordForm(recorded), json: jsonBody(recorded) }),
    answer: (exchange, fake) => {
      const { form } = exchange.request;
      if (exchange.request.method === 'POST' && exchange.request.url === '/v1/messages') {
        answerMessages(exchange, fake);
        return;
      }
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
