import { logRecord, recordEvents } from '../../src/domain/logs/tenant-log';
import { adminToken } from '../helpers';
import { describeOnEachDatabase, FlowHarness, type LoginSetup } from '../passwordless/flow-harness';

/*
 * SMS economics (issue 47): the prices spend is counted at (built-in list prices, the tenant's
 * own over them), spend and what passkeys saved in /stats/sms, and the time from a code sent to
 * its login.
 */

const GB = (n: number) => `+447400${String(n).padStart(6, '0')}`;
const US = (n: number) => `+1415555${String(n).padStart(4, '0')}`;

describeOnEachDatabase('SMS economics: prices, spend, saved and time to verify', (database) => {
  let h: FlowHarness;
  let setup: LoginSetup;
  let nextIp = 0;

  const ip = () => {
    nextIp += 1;
    return `198.22.${Math.floor(nextIp / 250)}.${(nextIp % 250) + 1}`;
  };
  /** A code sent, typed `seconds` later. */
  const login = async (phone: string, seconds: number) => {
    const who = { phone, ip: ip() };
    const code = await h.sendCode(setup, who);
    h.clock.advance(seconds);
    expect((await h.ro(setup, who, code)).status).toBe(200);
  };
  const prices = () => h.management('get', '/stats/sms-prices');
  const setPrices = (body: unknown) => h.management('patch', '/stats/sms-prices', body);
  const priceOf = (list: Array<{ country: string; channel: string; price: number; source: string }>, country: string, channel: string) =>
    list.find((p) => p.country === country && p.channel === channel);
  const byCountry = async () => {
    const res = await h.management('get', '/stats/sms?from=2030-01-01&to=2030-01-01&group_by=country');
    expect(res.status).toBe(200);
    return res.body as Array<{ key: string; sent: number; passkey_logins: number; spend_usd: number; saved_usd: number }>;
  };

  beforeAll(async () => {
    h = await FlowHarness.start({ PASSWORDLESS_START_LIMIT_PER_IP_PER_HOUR: '100000' }, { database });
    setup = await h.loginSetup({});
    // 2030-01-01: four British logins typed after 10, 20, 30 and 40 s, a US one after 100 s; a British code never typed.
    for (const [i, seconds] of [10, 20, 30, 40].entries()) await login(GB(i + 1), seconds);
    await login(US(1), 100);
    await h.sendCode(setup, { phone: GB(9), ip: ip() });
    // A passkey login of a British user, recorded as the passkey sign-in records it.
    await recordEvents(
      h.identity.store,
      logRecord('s', { clientId: setup.clientId, connection: { name: setup.connection, id: 'con_x' }, userId: 'sms|x', phoneNumber: GB(1) }, h.clock.now(), { via: 'passkey' }),
    );
  });
  afterAll(() => h.close());

  it('answers the built-in list prices, every other country (*) first', async () => {
    const res = await prices();
    expect(res.status).toBe(200);
    expect(res.body.currency).toBe('USD');
    expect(res.body.prices.slice(0, 3)).toEqual([
      { country: '*', channel: 'sms', price: 0.1, source: 'default' },
      { country: '*', channel: 'whatsapp', price: 0.03, source: 'default' },
      { country: '*', channel: 'voice', price: 0.1, source: 'default' },
    ]);
    expect(priceOf(res.body.prices, 'GB', 'sms')).toEqual({ country: 'GB', channel: 'sms', price: 0.0524, source: 'default' });
  });

  it('counts spend and what passkeys saved at the built-in prices', async () => {
    const figures = await byCountry();
    expect(figures.map((f) => [f.key, f.sent, f.passkey_logins, f.spend_usd, f.saved_usd])).toEqual([
      ['GB', 5, 1, 0.262, 0.0524],
      ['US', 1, 0, 0.0083, 0],
    ]);
  });

  it('counts at the tenant’s prices once set, and at the built-in ones again once dropped; the change is recorded', async () => {
    const set = await setPrices({ prices: [{ country: 'GB', channel: 'sms', price: 0.04 }, { country: '*', channel: 'sms', price: 0.2 }, { country: 'US', channel: 'sms', price: 0 }] });
    expect(set.status).toBe(200);
    expect(priceOf(set.body.prices, 'GB', 'sms')).toEqual({ country: 'GB', channel: 'sms', price: 0.04, source: 'tenant' });
    expect(priceOf((await prices()).body.prices, '*', 'sms')).toEqual({ country: '*', channel: 'sms', price: 0.2, source: 'tenant' });
    expect((await byCountry()).map((f) => [f.key, f.spend_usd, f.saved_usd])).toEqual([
      ['GB', 0.2, 0.04],
      ['US', 0, 0],
    ]);

    // Kept to the millionth.
    expect(priceOf((await setPrices({ prices: [{ country: 'FR', channel: 'voice', price: 0.1234567 }] })).body.prices, 'FR', 'voice')?.price).toBe(0.123457);
    await setPrices({ prices: [{ country: 'FR', channel: 'voice', price: null }] });

    const dropped = await setPrices({ prices: [{ country: 'GB', channel: 'sms', price: null }, { country: 'US', channel: 'sms', price: null }] });
    expect(priceOf(dropped.body.prices, 'GB', 'sms')?.source).toBe('default');
    expect(priceOf(dropped.body.prices, '*', 'sms')?.price).toBe(0.2);
    expect((await byCountry()).map((f) => f.spend_usd)).toEqual([0.262, 0.0083]);

    const logs = await h.management('get', `/logs?q=${encodeURIComponent('type:sapi')}`);
    expect(logs.body.filter((l: { description: string }) => l.description === 'Set SMS prices')).toHaveLength(4);
  });

  it('refuses prices it cannot count with a 400 naming the field', async () => {
    for (const [body, path] of [
      [{ prices: [{ country: 'XX', channel: 'sms', price: 0.1 }] }, 'prices.0.country'],
      [{ prices: [{ country: 'gb', channel: 'sms', price: 0.1 }] }, 'prices.0.country'],
      [{ prices: [{ country: 'GB', channel: 'telegram', price: 0.1 }] }, 'prices.0.channel'],
      [{ prices: [{ country: 'GB', channel: 'sms', price: -1 }] }, 'prices.0.price'],
      [{ prices: [{ country: 'GB', channel: 'sms', price: 11 }] }, 'prices.0.price'],
      [{ prices: [{ country: 'GB', channel: 'sms', price: '0.1' }] }, 'prices.0.price'],
      [{ prices: [{ country: 'GB', channel: 'sms', price: 0.1 }, { country: 'GB', channel: 'sms', price: 0.2 }] }, 'prices.1'],
      [{ prices: [] }, 'prices'],
      [{ prices: [{ country: 'GB', channel: 'sms', price: 0.1, currency: 'EUR' }] }, 'prices.0.currency'],
    ] as const) {
      const res = await setPrices(body);
      expect([JSON.stringify(body), res.status]).toEqual([JSON.stringify(body), 400]);
      expect(res.body.error).toBe('invalid_request');
      expect(res.body.details[0].path).toBe(path);
    }
    expect(priceOf((await prices()).body.prices, 'GB', 'sms')?.source).toBe('default');
  });

  it('needs read:stats to read the prices and update:tenant_settings to set them', async () => {
    const reader = await adminToken(h.identity.app, 'read:stats');
    expect((await h.http().get('/api/v2/stats/sms-prices').set('authorization', `Bearer ${reader}`)).status).toBe(200);
    const refused = await h.http().patch('/api/v2/stats/sms-prices').set('authorization', `Bearer ${reader}`).send({ prices: [{ country: 'GB', channel: 'sms', price: 1 }] });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toBe('insufficient_scope');
  });

  it('shows each record’s number country in the tenant log, as the console’s attempts list reads it', async () => {
    const sent = await h.management('get', `/logs?sort=date:1&q=${encodeURIComponent('type:cs')}`);
    expect(sent.body.map((l: { phone_country?: string }) => l.phone_country)).toEqual(['GB', 'GB', 'GB', 'GB', 'US', 'GB']);
  });

  it('answers time to verify as percentiles of the seconds from each code sent to its login', async () => {
    const res = await h.management('get', '/stats/time-to-verify?from=2030-01-01&to=2030-01-01');
    expect(res.status).toBe(200);
    // 10, 20, 30, 40, 100 s: linear percentiles; the passkey login and the code never typed count for nothing.
    expect(res.body).toEqual({ from: '2030-01-01T00:00:00.000Z', to: '2030-01-02T00:00:00.000Z', verified: 5, p50: 30, p90: 76, p99: 97.6 });
    const empty = await h.management('get', '/stats/time-to-verify?from=2030-02-01&to=2030-02-02');
    expect(empty.body).toEqual({ from: '2030-02-01T00:00:00.000Z', to: '2030-02-03T00:00:00.000Z', verified: 0, p50: null, p90: null, p99: null });
    expect((await h.management('get', '/stats/time-to-verify?from=2030-02-01&to=2029-01-01')).status).toBe(400);
  });
});
