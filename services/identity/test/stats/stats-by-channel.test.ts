import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RecordedRequest } from '@smsauth/test-support';
import { rollUpLoginStats } from '../../src/domain/logs/stats-rollup';
import { describeOnEachDatabase, FlowHarness, type LoginSetup } from '../passwordless/flow-harness';

/*
 * Conversion by channel (issue 31 in the console's figures): each code counts under the channel
 * that carried it, a fallback under the channel that took the message, a refusal under the
 * channel the start would have gone by first, a login under its code's channel.
 */

const BRAZIL = (n: number) => `+55119876${String(n).padStart(5, '0')}`;
const GB = (n: number) => `+447400${String(n).padStart(6, '0')}`;

describeOnEachDatabase('the console figures by channel', (database) => {
  let h: FlowHarness;
  let setup: LoginSetup;
  let nextIp = 0;
  /** Channels whose deliveries the gateway fails (as when every provider of the route failed). */
  const down = new Set<string>();

  const ip = () => {
    nextIp += 1;
    return `198.21.${Math.floor(nextIp / 250)}.${(nextIp % 250) + 1}`;
  };
  const start = (phone: string) =>
    h.start({ client_id: setup.clientId, connection: setup.connection, phone_number: phone, send: 'code' }, ip());
  const login = async (phone: string) => {
    const who = { phone, ip: ip() };
    const res = await h.ro(setup, who, await h.sendCode(setup, who));
    expect(res.status).toBe(200);
  };
  const byChannel = async (query = '') => {
    const res = await h.management('get', `/stats/sms?from=2030-01-01&to=2030-01-01&group_by=channel${query}`);
    expect(res.status).toBe(200);
    return res.body as Array<{ key: string }>;
  };

  beforeAll(async () => {
    h = await FlowHarness.start({ PASSWORDLESS_START_LIMIT_PER_IP_PER_HOUR: '100000' }, { database });
    h.gateway.respondWith((_req: IncomingMessage, res: ServerResponse, recorded: RecordedRequest) => {
      const channel = (JSON.parse(recorded.body) as { channel?: string }).channel ?? 'sms';
      res.writeHead(down.has(channel) ? 500 : 200, { 'content-type': 'application/json' });
      res.end(down.has(channel) ? JSON.stringify({ error: 'provider_error', error_description: 'every provider failed' }) : '');
    });
    setup = await h.loginSetup({ channels: { default: ['sms'], BR: ['whatsapp', 'sms'] }, denied_countries: ['DE'] });
    // Two Brazilian codes by WhatsApp, one used; one Brazilian code by SMS after WhatsApp failed, used;
    // one British code by SMS, used; a German start refused (SMS is its first channel).
    await login(BRAZIL(1));
    expect((await start(BRAZIL(2))).body.channel).toBe('whatsapp');
    down.add('whatsapp');
    await login(BRAZIL(3));
    down.clear();
    await login(GB(1));
    expect((await start('+4915123456789')).status).toBe(400);
  });
  afterAll(() => h.close());

  // Spend at the built-in prices: by SMS one Brazilian (0.0525) and one British (0.0524) code, by WhatsApp two Brazilian (0.0315).
  const expected = [
    { period: '2030-01-01T00:00:00.000Z', key: 'sms', sent: 2, verified: 2, conversion: 1, refused: { country: 1 }, passkey_logins: 0, spend_usd: 0.1049, saved_usd: 0 },
    { period: '2030-01-01T00:00:00.000Z', key: 'whatsapp', sent: 2, verified: 1, conversion: 0.5, refused: {}, passkey_logins: 0, spend_usd: 0.063, saved_usd: 0 },
  ];

  it('counts each code under the channel that carried it, a fallback under the channel that took it', async () => {
    expect(await byChannel()).toEqual(expected);
  });

  it('answers the same once the rollup has counted the records, by day and by hour', async () => {
    expect(await rollUpLoginStats(h.identity.store)).toBeGreaterThan(0);
    expect(await byChannel()).toEqual(expected);
    expect(await byChannel('&interval=hour')).toEqual(expected);
  });

  it('records the channel in the tenant log: the login, the code sent and the refusal', async () => {
    const logs = (await h.management('get', '/logs?sort=date:1&per_page=100')).body as Array<{ type: string; details: Record<string, unknown> }>;
    const channelsOf = (type: string) => logs.filter((l) => l.type === type).map((l) => l.details.channel);
    expect(channelsOf('s')).toEqual(['whatsapp', 'sms', 'sms']);
    expect(channelsOf('cs')).toEqual(['whatsapp', 'whatsapp', 'sms', 'sms']);
    expect(channelsOf('sms_start_refused')).toEqual(['sms']);
  });
});
