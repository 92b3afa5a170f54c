import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export const TWILIO_SID = `AC${'0123456789abcdef'.repeat(2)}`;
export const TWILIO_TOKEN = 'twilio-auth-token-0123456789abcdef';
/** Twilio's magic test number for "invalid To". */
export const INVALID_TO = '+15005550001';

export interface TwilioRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  form: Record<string, string>;
}

export interface FakeTwilio {
  baseUrl: string;
  requests: TwilioRequest[];
  close(): Promise<void>;
}

/**
 * A small Twilio Programmable Messaging imitation: checks basic auth (401, code 20003),
 * refuses INVALID_TO (400, code 21211) and otherwise answers 201 with a message resource.
 */
export async function startFakeTwilio(): Promise<FakeTwilio> {
  const requests: TwilioRequest[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const form = Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString('utf8')));
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, form });
      const reply = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      const expectedAuth = `Basic ${Buffer.from(`${TWILIO_SID}:${TWILIO_TOKEN}`).toString('base64')}`;
      if (req.headers.authorization !== expectedAuth) {
        reply(401, { code: 20003, message: 'Authenticate', more_info: 'https://www.twilio.com/docs/errors/20003', status: 401 });
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
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
