import type { IncomingMessage, ServerResponse } from 'node:http';
import { PROVIDER_HEADER } from '@smsauth/contracts';
import type { RecordedRequest } from '@smsauth/test-support';
import { rollUpLoginStats } from '../../src/domain/logs/stats-rollup';
import { describeOnEachDatabase, FlowHarness, type LoginSetup } from '../passwordless/flow-harness';

/*
 * The console's figures per provider (issue 46): the gateway names the provider that accepted
 * each message (SMS-Provider); a code counts under it when sent and when its login verifies it.
 * A gateway that names none (older ones) counts under `unknown`.
 */

const GB = (n: number) => `+447400${String(n).padStart(6, '0')}`;
const US = (n: number) => `+1415555${String(n).padStart(4, '0')}`;
const FR = (n: number) => `+3361234${String(n).padStart(4, '0')}`;

describeOnEachDatabase('the console figures by provider', (database) => {
  let h: FlowHarness;
  let setup: LoginSetup;
  let nextIp = 0;

  const ip = () => {
    nextIp += 1;
    return `198.22.${Math.floor(nextIp / 250)}.${(nextIp % 250) + 1}`;
  };
  const start = (phone: string) => h.start({ client_id: setup.clientId, connection: setup.connection, phone_number: phone, send: 'code' }, ip());
  const login = async (phone: string) => {
    const who = { phone, ip: ip() };
    const res = await h.ro(setup, who, await h.sendCode(setup, who));
    expect(res.status).toBe(200);
  };
  const byProvider = async (query = '') => {
    const res = await h.management('get', `/stats/sms?from=2030-01-01&to=2030-01-01&group_by=provider${query}`);
    expect(res.status).toBe(200);
    return res.body as Array<{ key: string }>;
  };

  beforeAll(async () => {
    h = await FlowHarness.start({ PASSWORDLESS_START_LIMIT_PER_IP_PER_HOUR: '100000' }, { database });
    // As a gateway routing by country: Vonage for the UK, Twilio for the US; France through an
    // older gateway that names no provider.
    h.gateway.respondWith((_req: IncomingMessage, res: ServerResponse, recorded: RecordedRequest) => {
      const recipient = (JSON.parse(recorded.body) as { recipient: string }).recipient;
      const provider = recipient.startsWith('+44') ? 'vonage-eu' : recipient.startsWith('+1') ? 'twilio' : undefined;
      res.writeHead(200, provider ? { [PROVIDER_HEADER]: provider } : {});
      res.end();
    });
    setup = await h.loginSetup({ denied_countries: ['DE'] });
    // Two British codes, one used; one American code, used; one French code, used; a German start refused.
    await login(GB(1));
    expect((await start(GB(2))).status).toBe(200);
    await login(US(1));
    await login(FR(1));
    expect((await start('+4915123456789')).status).toBe(400);
  });
  afterAll(() => h.close());

  const period = '2030-01-01T00:00:00.000Z';
  const expected = [
    // Spend at the built-in list prices (GET /stats/sms-prices): one US SMS, one French, two British.
    { period, key: '', sent: 0, verified: 0, conversion: null, refused: { country: 1 }, passkey_logins: 0, spend_usd: 0, saved_usd: 0 },
    { period, key: 'twilio', sent: 1, verified: 1, conversion: 1, refused: {}, passkey_logins: 0, spend_usd: 0.0083, saved_usd: 0 },
    { period, key: 'unknown', sent: 1, verified: 1, conversion: 1, refused: {}, passkey_logins: 0, spend_usd: 0.0822, saved_usd: 0 },
    { period, key: 'vonage-eu', sent: 2, verified: 1, conversion: 0.5, refused: {}, passkey_logins: 0, spend_usd: 0.1048, saved_usd: 0 },
  ];

  it('counts each code, sent and verified, under the provider the gateway named, `unknown` where it named none', async () => {
    expect(await byProvider()).toEqual(expected);
  });

  it('answers the same once the rollup has counted the records, by day and by hour', async () => {
    expect(await rollUpLoginStats(h.identity.store)).toBeGreaterThan(0);
    expect(await byProvider()).toEqual(expected);
    expect(await byProvider('&interval=hour')).toEqual(expected);
  });

  it('records the provider in the tenant log: the code sent and the login', async () => {
    const logs = (await h.management('get', '/logs?sort=date:1&per_page=100')).body as Array<{ type: string; details: Record<string, unknown> }>;
    const providersOf = (type: string) => logs.filter((l) => l.type === type).map((l) => l.details.provider);
    expect(providersOf('cs')).toEqual(['vonage-eu', 'vonage-eu', 'twilio', 'unknown']);
    expect(providersOf('s')).toEqual(['vonage-eu', 'twilio', 'unknown']);
  });
});
