import { DEFAULT_MESSAGE_TEMPLATE } from '@smsauth/contracts';
import { FlowHarness, describeOnEachDatabase, type LoginSetup } from './flow-harness';

/*
 * The default messages over real HTTP: a start against the service (its database PGlite and
 * PostgreSQL), delivered to a recording gateway. A connection that keeps the shipped template
 * speaks the user's language, chosen from the start's language, else the number's country;
 * a tenant's own template is sent as written.
 */

interface Delivered {
  recipient: string;
  body: string;
  channel?: string;
  code?: string;
  language?: string;
}

const FRANCE = (n: number) => `+3361234${String(n).padStart(4, '0')}`;
const JAPAN = (n: number) => `+8190123${String(n).padStart(5, '0')}`;
const BRAZIL = (n: number) => `+55119876${String(n).padStart(5, '0')}`;
const US = (n: number) => `+1415555${String(n).padStart(4, '0')}`;
const SHIPPED = { template: DEFAULT_MESSAGE_TEMPLATE };

describeOnEachDatabase('default messages in the user’s language', (database) => {
  let h: FlowHarness;
  let nextIp = 0;
  beforeAll(async () => {
    h = await FlowHarness.start({ PASSWORDLESS_START_LIMIT_PER_IP_PER_HOUR: '100000' }, { database });
  });
  afterAll(() => h.close());

  const start = (setup: LoginSetup, phone: string, headers: Record<string, string> = {}, extra: Record<string, unknown> = {}) => {
    nextIp += 1;
    const req = h.http().post('/passwordless/start').set('X-Forwarded-For', `198.30.0.${nextIp}`);
    for (const [name, value] of Object.entries(headers)) req.set(name, value);
    return req.send({ client_id: setup.clientId, connection: setup.connection, phone_number: phone, send: 'code', ...extra });
  };
  const deliveredTo = (phone: string): Delivered => {
    const found = h.gateway.requests.filter((r) => r.method === 'POST').map((r) => JSON.parse(r.body) as Delivered).filter((d) => d.recipient === phone);
    expect(found).toHaveLength(1);
    return found[0]!;
  };

  it('sends the French text to a US number when the start asks for French (Accept-Language), and that code signs in', async () => {
    const setup = await h.loginSetup(SHIPPED);
    const res = await start(setup, US(1), { 'Accept-Language': 'fr-FR,fr;q=0.9,en;q=0.5' });
    expect(res.status).toBe(200);
    const sms = deliveredTo(US(1));
    expect(sms.body).toMatch(/^\d{6} est votre code Flow App$/);
    // An SMS carries only the spec's fields: no channel, no language.
    expect(sms.channel).toBeUndefined();
    expect(sms.language).toBeUndefined();
    const login = await h.ro(setup, { phone: US(1), ip: '198.30.1.1' }, sms.body.slice(0, 6));
    expect(login.status).toBe(200);
  });

  it('sends Japanese to a +81 number when the start names no language', async () => {
    const setup = await h.loginSetup(SHIPPED);
    expect((await start(setup, JAPAN(1))).status).toBe(200);
    expect(deliveredTo(JAPAN(1)).body).toMatch(/^\d{6} はFlow Appの認証コードです$/);
  });

  it('follows the number’s country when the start’s language is not bundled, and the start’s language over the country', async () => {
    const setup = await h.loginSetup(SHIPPED);
    await start(setup, JAPAN(2), { 'x-request-language': 'sw-KE' });
    expect(deliveredTo(JAPAN(2)).body).toMatch(/^\d{6} はFlow Appの認証コードです$/);
    await start(setup, JAPAN(3), { 'x-request-language': 'de' });
    expect(deliveredTo(JAPAN(3)).body).toMatch(/^\d{6} ist Ihr Code für Flow App$/);
  });

  it('keeps the code first and the domain-bound line last, dropping the app name where it would need a second segment', async () => {
    const setup = await h.loginSetup({ ...SHIPPED, webotp: { origin: 'https://signin.acme-travel-rewards.com' } }, { name: 'Acme Travel Rewards!' });
    await start(setup, JAPAN(4));
    const sms = deliveredTo(JAPAN(4));
    const code = sms.body.slice(0, 6);
    expect(sms.body).toBe(`${code} は認証コードです\n\n@signin.acme-travel-rewards.com #${code}`);
    await start(setup, FRANCE(1));
    expect(deliveredTo(FRANCE(1)).body).toMatch(/^(\d{6}) est votre code Acme Travel Rewards!\n\n@signin\.acme-travel-rewards\.com #\1$/);
  });

  it('sends a tenant’s own template as written, whatever the language', async () => {
    const setup = await h.loginSetup({ template: 'Your code is @@password@@' });
    await start(setup, FRANCE(2), { 'Accept-Language': 'fr' });
    expect(deliveredTo(FRANCE(2)).body).toMatch(/^Your code is \d{6}$/);
    const liquid = await h.loginSetup({ syntax: 'liquid', template: '{{ code }} - {{ request_language }}' });
    await start(liquid, JAPAN(5), { 'Accept-Language': 'fr' });
    expect(deliveredTo(JAPAN(5)).body).toMatch(/^\d{6} - fr$/);
  });

  it('calls in the language of the number’s country, with that language’s voice', async () => {
    const setup = await h.loginSetup({ ...SHIPPED, channels: { default: ['sms', 'voice'] } });
    await start(setup, JAPAN(6), {}, { channel: 'voice' });
    const call = deliveredTo(JAPAN(6));
    expect(call).toMatchObject({ channel: 'voice', language: 'ja-JP', code: expect.stringMatching(/^\d{6}$/) });
    const spoken = call.code!.split('').join(', ');
    expect(call.body).toBe(`Flow Appの認証コードは: ${spoken}. もう一度言います。認証コードは: ${spoken}.`);
    // The start's own language wins, with its regional accent.
    await start(setup, JAPAN(7), { 'x-request-language': 'es-MX' }, { channel: 'voice' });
    expect(deliveredTo(JAPAN(7))).toMatchObject({ channel: 'voice', language: 'es-MX', body: expect.stringMatching(/^Tu código de Flow App es: /) });
  });

  it('sends WhatsApp the language’s text and tag, and a tenant template without a language', async () => {
    const setup = await h.loginSetup({ ...SHIPPED, channels: { default: ['whatsapp', 'sms'] } });
    await start(setup, BRAZIL(1));
    const message = deliveredTo(BRAZIL(1));
    expect(message).toMatchObject({ channel: 'whatsapp', language: 'pt-BR' });
    expect(message.body).toBe(`${message.code} é o seu código de verificação do Flow App. Não compartilhe com ninguém.`);
    const own = await h.loginSetup({ template: 'Your code is @@password@@', channels: { default: ['whatsapp', 'sms'] } });
    await start(own, BRAZIL(2));
    const plain = deliveredTo(BRAZIL(2));
    expect(plain).toMatchObject({ channel: 'whatsapp', body: `Your code is ${plain.code}` });
    expect(plain.language).toBeUndefined();
  });

  it('shows the default message of the asked language in the template test', async () => {
    const setup = await h.loginSetup(SHIPPED);
    const test = (variables: Record<string, unknown>) =>
      h.management('post', `/connections/${setup.connectionId}/sms-template/test`, { variables: { application_name: 'Acme', ...variables } });
    const french = await test({ request_language: 'fr' });
    expect(french.status).toBe(200);
    expect(french.body).toEqual({ body: '123456 est votre code Acme', encoding: 'GSM-7', characters: 26, segments: 1, fits_one_segment: true });
    const japanese = await test({ phone_number: '+819012345678' });
    expect(japanese.body).toMatchObject({ body: '123456 はAcmeの認証コードです', encoding: 'UCS-2', segments: 1 });
  });
});
