import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RecordedRequest } from '@smsauth/test-support';
import { FlowHarness, describeOnEachDatabase, type LoginSetup } from './flow-harness';

/*
 * Channels from the identity service's side, against a real recording gateway: which channel a
 * start picks (options.channels per country, the caller's `channel`), the fallback to the next
 * channel in the same start when the gateway's route for one fails, what each channel's
 * delivery request carries (the voice text in the user's language, the digits), and the SMS
 * policy applying to every channel.
 */

const BRAZIL = (n: number) => `+55119876${String(n).padStart(5, '0')}`;
const GB = (n: number) => `+447400${String(n).padStart(6, '0')}`;
const CHANNELS = { default: ['sms', 'voice'], BR: ['whatsapp', 'sms'] };

interface Delivered {
  recipient: string;
  body: string;
  sender?: string;
  channel?: string;
  code?: string;
  language?: string;
}

describeOnEachDatabase('delivery channels', (database) => {
  let h: FlowHarness;
  let nextIp = 0;
  /** Channels whose deliveries the gateway fails (500, as when every provider of the route failed). */
  const down = new Set<string>();
  /** What the gateway's receipts said of each message id it answered (GET /messages/{id}). */
  const receipts = new Map<string, string>();
  let messages = 0;
  beforeAll(async () => {
    h = await FlowHarness.start({ PASSWORDLESS_START_LIMIT_PER_IP_PER_HOUR: '100000' }, { database });
  });
  beforeEach(() => {
    down.clear();
    h.gateway.respondWith((_req: IncomingMessage, res: ServerResponse, recorded: RecordedRequest) => {
      if (recorded.method === 'GET') {
        const status = receipts.get(decodeURIComponent(recorded.path.split('/').pop()!));
        res.writeHead(status ? 200 : 404, { 'content-type': 'application/json' });
        res.end(JSON.stringify(status ? { status } : { error: 'not_found' }));
        return;
      }
      const channel = (JSON.parse(recorded.body) as Delivered).channel ?? 'sms';
      messages += 1;
      res.writeHead(down.has(channel) ? 500 : 200, { 'content-type': 'application/json', 'sms-message-id': `msg-${messages}` });
      res.end(down.has(channel) ? JSON.stringify({ error: 'provider_error', error_description: 'every provider failed' }) : '');
    });
  });
  afterAll(() => h.close());

  const ip = () => {
    nextIp += 1;
    return `198.20.${Math.floor(nextIp / 250)}.${(nextIp % 250) + 1}`;
  };
  const start = (setup: LoginSetup, phone: string, extra: Record<string, unknown> = {}, language?: string) => {
    const req = h.http().post('/passwordless/start').set('X-Forwarded-For', ip());
    if (language) req.set('x-request-language', language);
    return req.send({ client_id: setup.clientId, connection: setup.connection, phone_number: phone, send: 'code', ...extra });
  };
  const deliveriesTo = (phone: string) =>
    h.gateway.requests
      .filter((r) => r.method === 'POST')
      .map((r) => ({ body: JSON.parse(r.body) as Delivered, key: r.headers['idempotency-key'] }))
      .filter((d) => d.body.recipient === phone);
  const lastMessageId = () => `msg-${messages}`;

  it('sends a Brazilian number its code by WhatsApp first and says so in the answer', async () => {
    const setup = await h.loginSetup({ channels: CHANNELS });
    const res = await start(setup, BRAZIL(1));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ phone_number: BRAZIL(1), channel: 'whatsapp' });
    const [sent] = deliveriesTo(BRAZIL(1));
    expect(sent!.body).toMatchObject({ channel: 'whatsapp', code: expect.stringMatching(/^\d{6}$/) });
    expect(sent!.body.body).toContain(sent!.body.code);
    // Another country gets the default list's first channel: SMS, in the spec's three fields.
    const gb = await start(setup, GB(1));
    expect(gb.body.channel).toBe('sms');
    expect(Object.keys(deliveriesTo(GB(1))[0]!.body).sort()).toEqual(['body', 'recipient', 'sender']);
  });

  it('falls back to SMS in the same start when WhatsApp cannot take the message, and records the channel used', async () => {
    const setup = await h.loginSetup({ channels: CHANNELS });
    down.add('whatsapp');
    const res = await start(setup, BRAZIL(2));
    expect(res.status).toBe(200);
    expect(res.body.channel).toBe('sms');
    const sent = deliveriesTo(BRAZIL(2));
    expect(sent.map((d) => d.body.channel ?? 'sms')).toEqual(['whatsapp', 'sms']);
    // Each channel is its own message at the gateway.
    expect(sent[0]!.key).toBe(res.body._id);
    expect(sent[1]!.key).toBe(`${res.body._id}.sms`);
    const { rows } = await h.identity.sql.query<{ details: Record<string, unknown> }>(
      "SELECT details FROM tenant_logs WHERE type = 'cs' AND details->>'start_id' = $1",
      [res.body._id],
    );
    expect(rows[0]?.details).toMatchObject({ delivery: 'sent', channel: 'sms' });
    // And the code that came by SMS signs in.
    const code = /\b(\d{6})\b/.exec(sent[1]!.body.body)![1]!;
    const login = await h.ro(setup, { phone: BRAZIL(2), ip: ip() }, code);
    expect(login.status).toBe(200);
  });

  it('fails the start only when every allowed channel failed', async () => {
    const setup = await h.loginSetup({ channels: CHANNELS });
    down.add('whatsapp');
    down.add('sms');
    const res = await start(setup, BRAZIL(3));
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('sms_provider_error');
    expect(deliveriesTo(BRAZIL(3)).map((d) => d.body.channel ?? 'sms')).toEqual(['whatsapp', 'sms']);
  });

  it('calls when asked to, reading the code digit by digit twice in the user’s language, and that code signs in', async () => {
    const setup = await h.loginSetup({ channels: CHANNELS });
    const res = await start(setup, GB(2), { channel: 'voice' }, 'pt-BR');
    expect(res.status).toBe(200);
    expect(res.body.channel).toBe('voice');
    const call = deliveriesTo(GB(2))[0]!.body;
    expect(call).toMatchObject({ channel: 'voice', language: 'pt-BR', code: expect.stringMatching(/^\d{6}$/) });
    const spoken = call.code!.split('').join(', ');
    expect(call.body).toBe(`Seu código do Flow App é: ${spoken}. Repetindo, seu código é: ${spoken}.`);
    const heard = /: ([\d, ]+)\./.exec(call.body)![1]!.replace(/\D/g, '');
    const verified = async () => {
      const line = (await h.http().get('/metrics')).text.split('\n').find((l) => l.startsWith('sms_verified_total{') && l.includes('country="GB"') && l.includes('channel="voice"'));
      return line ? Number(line.split(' ').pop()) : 0;
    };
    const before = await verified();
    expect((await h.ro(setup, { phone: GB(2), ip: ip() }, heard)).status).toBe(200);
    // Conversion by channel: the verified code is counted as a voice one.
    expect(await verified()).toBe(before + 1);
  });

  it('speaks the number’s country’s language, English for a British number, when the user’s language is not bundled', async () => {
    const setup = await h.loginSetup({ channels: CHANNELS });
    await start(setup, GB(3), { channel: 'voice' }, 'sw-KE');
    const call = deliveriesTo(GB(3))[0]!.body;
    expect(call.language).toBe('en-US');
    expect(call.body).toMatch(/^Your Flow App code is: (\d, ){5}\d\. Again, your code is: (\d, ){5}\d\.$/);
  });

  it('refuses a channel the connection does not allow for the number, naming it, and sends nothing', async () => {
    const setup = await h.loginSetup({ channels: CHANNELS });
    const voice = await start(setup, BRAZIL(4), { channel: 'voice' });
    expect(voice.status).toBe(400);
    expect(voice.body).toEqual({
      error: 'bad.request',
      error_description: 'channel: voice is not enabled for this connection for numbers of BR (options.channels allows whatsapp, sms)',
    });
    const smsOnly = await h.loginSetup();
    const whatsapp = await start(smsOnly, GB(4), { channel: 'whatsapp' });
    expect(whatsapp.status).toBe(400);
    expect(whatsapp.body.error_description).toBe('channel: whatsapp is not enabled for this connection for numbers of GB (options.channels allows sms)');
    expect(deliveriesTo(BRAZIL(4))).toEqual([]);
    expect(deliveriesTo(GB(4))).toEqual([]);
    const unknown = await start(smsOnly, GB(4), { channel: 'fax' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toBe('bad.request');
  });

  it('blocks a voice pumping run as it blocks SMS pumping, and says it refused voice calls', async () => {
    const guard = { mode: 'block', min_sends: 5, min_conversion: 0.5, window_minutes: 60, block_minutes: 60 };
    const setup = await h.loginSetup({ channels: { default: ['voice'] }, sms_fraud_guard: guard });
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) statuses.push((await start(setup, `+447401${String(i).padStart(6, '0')}`)).status);
    expect(statuses.slice(0, 5)).toEqual([200, 200, 200, 200, 200]);
    const refused = await start(setup, '+447401000099');
    expect(refused.status).toBe(429);
    expect(refused.body.error_description).toBe('Voice calls to this number range are temporarily blocked: too few codes sent to it were used');
    const text = (await h.http().get('/metrics')).text;
    expect(text).toMatch(/sms_start_refusals_total\{reason="fraud_guard",channel="voice"[^}]*\} [1-9]/);
  });

  it('names the channel in the number-type refusal', async () => {
    const setup = await h.loginSetup({ channels: { default: ['whatsapp'] }, allowed_number_types: ['MOBILE'] });
    const res = await start(setup, '+14155550142');
    expect(res.status).toBe(400);
    expect(res.body.error_description).toBe('WhatsApp messages to FIXED_LINE_OR_MOBILE numbers are not enabled for this connection (allowed_number_types)');
  });

  it('counts codes sent by channel in /metrics', async () => {
    const setup = await h.loginSetup({ channels: CHANNELS });
    const value = async () => {
      const line = (await h.http().get('/metrics')).text.split('\n').find((l) => l.startsWith('sms_sent_total{') && l.includes('country="BR"') && l.includes('channel="whatsapp"'));
      return line ? Number(line.split(' ').pop()) : 0;
    };
    const before = await value();
    await start(setup, BRAZIL(5));
    expect(await value()).toBe(before + 1);
  });

  describe('after a receipt said the last code was not delivered', () => {
    it('tries the next channel first on the next start for that number', async () => {
      const setup = await h.loginSetup({ channels: CHANNELS });
      expect((await start(setup, BRAZIL(10))).body.channel).toBe('whatsapp');
      receipts.set(lastMessageId(), 'undelivered');
      const next = await start(setup, BRAZIL(10));
      expect(next.body.channel).toBe('sms');
      expect(deliveriesTo(BRAZIL(10)).map((d) => d.body.channel ?? 'sms')).toEqual(['whatsapp', 'sms']);
      // The gateway was asked about the first message, with the connection's URL beside /sms.
      expect(h.gateway.requests.some((r) => r.method === 'GET' && r.path === '/messages/msg-' + (messages - 1))).toBe(true);
    });

    it('keeps the connection’s order when the last code was delivered, or the gateway cannot say', async () => {
      const setup = await h.loginSetup({ channels: CHANNELS });
      await start(setup, BRAZIL(11));
      receipts.set(lastMessageId(), 'delivered');
      expect((await start(setup, BRAZIL(11))).body.channel).toBe('whatsapp');
      // No receipt for that one: 404 from the gateway.
      expect((await start(setup, BRAZIL(11))).body.channel).toBe('whatsapp');
    });

    it('never overrides the channel the user chose', async () => {
      const setup = await h.loginSetup({ channels: CHANNELS });
      await start(setup, BRAZIL(12));
      receipts.set(lastMessageId(), 'failed');
      expect((await start(setup, BRAZIL(12), { channel: 'whatsapp' })).body.channel).toBe('whatsapp');
    });
  });

  describe('options.channels through /api/v2', () => {
    it.each([
      [{ default: ['sms', 'fax'] }, 'options.channels.default.1'],
      [{ default: ['sms', 'sms'] }, 'options.channels.default'],
      [{ default: [] }, 'options.channels.default'],
      [{ br: ['sms'] }, 'options.channels.br'],
      [{ XX: ['sms'] }, 'options.channels.XX'],
    ])('refuses %j at %s', async (channels, path) => {
      const res = await h.management('post', '/connections', {
        name: `ch-${nextIp++}`,
        strategy: 'sms',
        options: { gateway_url: h.gateway.url(), template: 'Code @@password@@', channels },
      });
      expect(res.status).toBe(400);
      expect(JSON.stringify(res.body)).toContain(path);
    });

    it('shows the table, replaces it on PATCH and removes it with null (SMS only again)', async () => {
      const setup = await h.loginSetup({ channels: CHANNELS });
      expect((await h.management('get', `/connections/${setup.connectionId}`)).body.options.channels).toEqual(CHANNELS);
      const patched = await h.management('patch', `/connections/${setup.connectionId}`, { options: { channels: { default: ['voice', 'sms'] } } });
      expect(patched.body.options.channels).toEqual({ default: ['voice', 'sms'] });
      expect((await start(setup, GB(6))).body.channel).toBe('voice');
      const cleared = await h.management('patch', `/connections/${setup.connectionId}`, { options: { channels: null } });
      expect(cleared.body.options.channels).toBeUndefined();
      expect((await start(setup, GB(7))).body.channel).toBe('sms');
    });
  });
});
