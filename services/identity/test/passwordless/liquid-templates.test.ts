import { SmsTemplateTestResponseSchema } from '@smsauth/contracts';
import { adminToken, connectionBody } from '../helpers';
import { describeOnEachDatabase, FlowHarness, type LoginSetup } from './flow-harness';

/** The template of docs/identity.md: one message in Spanish, French or English by the caller's language. */
const BY_LANGUAGE = [
  "{%- assign language = request_language | default: 'en' | slice: 0, 2 | downcase -%}",
  "{%- case language -%}",
  "{%- when 'es' -%}Tu código de {{ application.name }} es {{ code }}",
  "{%- when 'fr' -%}Votre code {{ application.name }} est {{ code }}",
  '{%- else -%}Your {{ application.name }} code is {{ code }}',
  '{%- endcase -%}',
].join('\n');

const EVERY_VARIABLE =
  'code={{ code }} password={{ password }} phone={{ phone_number }} app={{ application.name }} connection={{ connection.name }} language={{ request_language }} send={{ send }}';

describeOnEachDatabase('Liquid SMS templates (syntax: "liquid")', (database) => {
  let h: FlowHarness;

  beforeAll(async () => {
    h = await FlowHarness.start({ PASSWORDLESS_START_LIMIT_PER_IP_PER_HOUR: '1000' }, { database });
  });
  afterEach(() => h.gateway.reset());
  afterAll(() => h.close());

  const liquid = (template: string, extra: Record<string, unknown> = {}) => ({ syntax: 'liquid', template, ...extra });
  const delivered = () => h.gateway.requests.map((r) => JSON.parse(r.body) as { recipient: string; body: string });
  const startBody = (setup: LoginSetup, phone: string) => ({ client_id: setup.clientId, connection: setup.connection, phone_number: phone, send: 'code' });
  const createConnection = (options: Record<string, unknown>) =>
    h.management('post', '/connections', connectionBody({ gateway_url: h.gateway.url(), ...options }));

  describe('rendering', () => {
    it('renders every variable: code, its alias password, phone_number, application.name, connection.name, request_language and send', async () => {
      const setup = await h.loginSetup(liquid(EVERY_VARIABLE), { name: 'Acme Travel' });
      const { phone } = h.caller();
      const res = await h.http().post('/passwordless/start').set('x-request-language', 'pt-BR').send(startBody(setup, phone));
      expect(res.status).toBe(200);
      const [message] = delivered();
      const code = /code=(\d{6}) /.exec(message!.body)![1];
      expect(message!.body).toBe(
        `code=${code} password=${code} phone=${phone} app=Acme Travel connection=${setup.connection} language=pt-BR send=code`,
      );
      // The code in the message is the one the exchange accepts.
      expect((await h.otp(setup, { phone, ip: '198.51.100.7' }, code!)).status).toBe(200);
    });

    it('keeps md_with_macros the default: a connection without syntax renders @@password@@ as before', async () => {
      const created = await createConnection({ syntax: undefined, template: 'Code @@password@@ {{ code }}' });
      expect(created.status).toBe(201);
      expect(created.body.options.syntax).toBe('md_with_macros');
      const setup = await h.loginSetup({ syntax: undefined, template: 'Code @@password@@ {{ code }}' });
      const { phone } = h.caller();
      expect((await h.start(startBody(setup, phone))).status).toBe(200);
      expect(delivered()[0]!.body).toMatch(/^Code \d{6} \{\{ code \}\}$/);
    });

    it.each([
      ['x-request-language: es', { 'x-request-language': 'es' }, /^Tu código de Acme es \d{6}$/],
      ['Accept-Language preferring French by q-weight', { 'accept-language': 'en;q=0.4, fr-CA;q=0.9, de;q=0.1' }, /^Votre code Acme est \d{6}$/],
      ['x-request-language over Accept-Language', { 'x-request-language': 'es-MX', 'accept-language': 'fr' }, /^Tu código de Acme es \d{6}$/],
      ['no language at all (English)', {}, /^Your Acme code is \d{6}$/],
      ['a language the template does not know (English)', { 'accept-language': 'de-DE' }, /^Your Acme code is \d{6}$/],
    ])('branches on the language: %s', async (_case, headers: Record<string, string>, expected) => {
      const setup = await h.loginSetup(liquid(BY_LANGUAGE), { name: 'Acme' });
      const { phone } = h.caller();
      const res = await h.http().post('/passwordless/start').set(headers).send(startBody(setup, phone));
      expect(res.status).toBe(200);
      expect(delivered()[0]!.body).toMatch(expected);
    });
  });

  describe('the sandbox', () => {
    it.each([
      ['{% include %}', "Code {{ code }}\n{% include 'secrets' %}", 'line 2, column 1: tag "include" is not allowed in SMS templates'],
      ['{% render %} of a file', "{{ code }}{% render '/etc/passwd' %}", 'line 1, column 11: tag "render" is not allowed in SMS templates'],
      ['{% layout %}', "{% layout '../../package.json' %}{{ code }}", 'line 1, column 1: tag "layout" is not allowed in SMS templates'],
      ['an unknown filter', '{{ code | shell: "ls" }}', 'line 1, column 1: undefined filter: shell'],
    ])('refuses %s at create with a 400 naming the line', async (_case, template, reason) => {
      const res = await createConnection(liquid(template));
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        error: 'invalid_request',
        error_description: `options.template: ${reason}`,
        details: [{ path: 'options.template', message: reason }],
      });
    });

    it('reads no JavaScript internals through variables', async () => {
      const setup = await h.loginSetup(liquid('{{ code }}|{{ code.constructor }}|{{ application.constructor.name }}|{{ application.__proto__ }}'));
      const { phone } = h.caller();
      expect((await h.start(startBody(setup, phone))).status).toBe(200);
      expect(delivered()[0]!.body).toMatch(/^\d{6}\|\|\|$/);
    });

    it.each([
      ['an endless nested loop', '{{ code }}{% for a in (1..1000) %}{% for b in (1..1000) %}{% for c in (1..1000) %}{% endfor %}{% endfor %}{% endfor %}', 'rendering takes more than 10000 steps (a loop too long?)'],
      ['a huge range', '{{ code }}{% for a in (1..100000000) %}x{% endfor %}', 'allocates more than 100000 characters or items'],
      ['a string doubled 30 times', "{{ code }}{% assign s = 'xxxx' %}{% for i in (1..30) %}{% assign s = s | append: s %}{% endfor %}{{ s }}", 'allocates more than 100000 characters or items'],
      ['a message longer than 1600 characters', '{{ code }}{% for i in (1..1000) %}{{ code }}{% endfor %}', 'the message is longer than 1600 characters'],
    ])('refuses %s at create: its sample render is cut off', async (_case, template, reason) => {
      const res = await createConnection(liquid(template));
      expect(res.status).toBe(400);
      expect(res.body.details).toEqual([{ path: 'options.template', message: expect.stringContaining(reason) }]);
    });

    it('cuts off a loop reached only at start: a clear 400, nothing sent, no code kept', async () => {
      // The sample render at create has no language, so it does not reach the loop.
      const loop = "{{ code }}{% if request_language == 'xx' %}{% for a in (1..1000) %}{% for b in (1..1000) %}{% for c in (1..1000) %}{% endfor %}{% endfor %}{% endfor %}{% endif %}";
      const setup = await h.loginSetup(liquid(loop));
      const { phone } = h.caller();
      const res = await h.http().post('/passwordless/start').set('x-request-language', 'xx').send(startBody(setup, phone));
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        error: 'bad.connection',
        error_description: expect.stringMatching(/^The connection's SMS template could not be rendered: line 1, column \d+: rendering takes more than 10000 steps \(a loop too long\?\)$/),
      });
      expect(h.gateway.requests).toHaveLength(0);
      expect(await h.identity.store.codes.find(setup.connectionId, phone)).toBeUndefined();
    });
  });

  describe('create and PATCH', () => {
    it('refuses a template that does not parse, at create and at PATCH, naming the line', async () => {
      const broken = 'Your code:\n{{ code }}\n{% if request_language %}\nunclosed';
      const created = await createConnection(liquid(broken));
      expect(created.status).toBe(400);
      expect(created.body.error_description).toBe('options.template: line 3, column 1: tag {% if request_language %} not closed');

      const ok = await createConnection(liquid('Code {{ code }}'));
      expect(ok.status).toBe(201);
      const patched = await h.management('patch', `/connections/${ok.body.id}`, { options: { template: 'Code {{ code }}\n{{ code | nope }}' } });
      expect(patched.status).toBe(400);
      expect(patched.body.details).toEqual([{ path: 'options.template', message: 'line 2, column 1: undefined filter: nope' }]);
      const unchanged = await h.management('get', `/connections/${ok.body.id}`);
      expect(unchanged.body.options.template).toBe('Code {{ code }}');
    });

    it('refuses a liquid template that never outputs the code', async () => {
      const res = await createConnection(liquid('Hello {{ phone_number }}'));
      expect(res.status).toBe(400);
      expect(res.body.details).toEqual([{ path: 'options.template', message: 'must output the code: {{ code }} (or {{ password }})' }]);
    });

    it('switches an existing connection to liquid by PATCHing syntax and template together', async () => {
      const created = await createConnection({});
      const patched = await h.management('patch', `/connections/${created.body.id}`, { options: liquid('Code {{ code }}') });
      expect(patched.status).toBe(200);
      expect(patched.body.options).toMatchObject({ syntax: 'liquid', template: 'Code {{ code }}' });
    });
  });

  describe('domain-bound codes (webotp)', () => {
    it('ends the message with the Android app hash line and then the origin-bound line, nothing after it', async () => {
      const setup = await h.loginSetup({
        template: 'Your code is @@password@@\n',
        webotp: { origin: 'https://login.example.com', app_hashes: ['FA+9qCX9VSu'] },
      });
      const { phone } = h.caller();
      expect((await h.start(startBody(setup, phone))).status).toBe(200);
      const { body } = delivered()[0]!;
      const code = /is (\d{6})/.exec(body)![1];
      expect(body).toBe(`Your code is ${code}\n\nFA+9qCX9VSu\n@login.example.com #${code}`);
    });

    it('adds only the origin-bound line without app hashes, after a Liquid message too', async () => {
      const setup = await h.loginSetup(liquid(BY_LANGUAGE, { webotp: { origin: 'https://login.example.com' } }), { name: 'Acme' });
      const { phone } = h.caller();
      expect((await h.http().post('/passwordless/start').set('accept-language', 'fr').send(startBody(setup, phone))).status).toBe(200);
      const { body } = delivered()[0]!;
      const code = /est (\d{6})/.exec(body)![1];
      expect(body).toBe(`Votre code Acme est ${code}\n\n@login.example.com #${code}`);
    });

    it.each([
      ['an origin with a path', { origin: 'https://login.example.com/login' }, 'options.webotp.origin'],
      ['an http origin', { origin: 'http://login.example.com' }, 'options.webotp.origin'],
      ['an app hash of 12 characters', { origin: 'https://login.example.com', app_hashes: ['FA+9qCX9VSuX'] }, 'options.webotp.app_hashes.0'],
    ])('refuses %s', async (_case, webotp, path) => {
      const res = await createConnection({ webotp });
      expect(res.status).toBe(400);
      expect(res.body.details.map((d: { path: string }) => d.path)).toEqual([path]);
    });

    it('removes webotp on PATCH null', async () => {
      const created = await createConnection({ webotp: { origin: 'https://login.example.com' } });
      expect(created.body.options.webotp).toEqual({ origin: 'https://login.example.com', app_hashes: [] });
      const patched = await h.management('patch', `/connections/${created.body.id}`, { options: { webotp: null } });
      expect(patched.status).toBe(200);
      expect(patched.body.options).not.toHaveProperty('webotp');
    });
  });

  describe('POST /api/v2/connections/{id}/sms-template/test', () => {
    let connectionId: string;
    beforeAll(async () => {
      connectionId = (await createConnection(liquid(BY_LANGUAGE, { totp: { time_step: 300, length: 6 } }))).body.id;
    });
    const test = (body: Record<string, unknown>) => h.management('post', `/connections/${connectionId}/sms-template/test`, body);
    /** A template whose message is `filler` + the 6-digit sample code. */
    const padded = (filler: string) => ({ template: `${filler}{{ code }}` });

    it('renders the stored template with sample variables and a language (ó is not GSM-7, so Spanish goes as UCS-2)', async () => {
      const res = await test({ variables: { request_language: 'es-ES', application_name: 'Acme' } });
      expect(res.status).toBe(200);
      expect(SmsTemplateTestResponseSchema.strict().parse(res.body)).toEqual({
        body: 'Tu código de Acme es 123456',
        encoding: 'UCS-2',
        characters: 27,
        segments: 1,
        fits_one_segment: true,
      });
    });

    it.each([
      ['160 GSM-7 characters: one segment', 'a'.repeat(154), { encoding: 'GSM-7', characters: 160, segments: 1, fits_one_segment: true }],
      ['161 GSM-7 characters: two segments', 'a'.repeat(155), { encoding: 'GSM-7', characters: 161, segments: 2, fits_one_segment: false }],
      ['306 GSM-7 characters: two parts of 153', 'a'.repeat(300), { encoding: 'GSM-7', characters: 306, segments: 2, fits_one_segment: false }],
      ['307 GSM-7 characters: three parts', 'a'.repeat(301), { encoding: 'GSM-7', characters: 307, segments: 3, fits_one_segment: false }],
      ['GSM-7 extension characters counting two: 77 euro signs + 6 digits = 160', '€'.repeat(77), { encoding: 'GSM-7', characters: 160, segments: 1, fits_one_segment: true }],
      ['GSM-7 extension characters counting two: [] pushing past 160', '[]' + 'a'.repeat(152), { encoding: 'GSM-7', characters: 162, segments: 2, fits_one_segment: false }],
      ['an accent outside GSM-7 (ç) making it UCS-2: 70 characters fit', 'ç'.repeat(64), { encoding: 'UCS-2', characters: 70, segments: 1, fits_one_segment: true }],
      ['UCS-2 with 71 characters: two segments', 'ç'.repeat(65), { encoding: 'UCS-2', characters: 71, segments: 2, fits_one_segment: false }],
      ['an emoji taking two UTF-16 units', '😀'.repeat(32), { encoding: 'UCS-2', characters: 70, segments: 1, fits_one_segment: true }],
      ['one more emoji: 72 units, two segments', '😀'.repeat(33), { encoding: 'UCS-2', characters: 72, segments: 2, fits_one_segment: false }],
      ['UCS-2 parts of 67: 134 units in two', 'ç'.repeat(128), { encoding: 'UCS-2', characters: 134, segments: 2, fits_one_segment: false }],
      ['UCS-2 parts of 67: 135 units in three', 'ç'.repeat(129), { encoding: 'UCS-2', characters: 135, segments: 3, fits_one_segment: false }],
    ])('counts %s', async (_case, filler, expected) => {
      const res = await test(padded(filler));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ body: `${filler}123456`, ...expected });
    });

    it('counts the domain-bound lines a start would add', async () => {
      const res = await test({ template: 'Code {{ code }}', webotp: { origin: 'https://login.example.com', app_hashes: ['FA+9qCX9VSu'] } });
      expect(res.body).toMatchObject({ body: 'Code 123456\n\nFA+9qCX9VSu\n@login.example.com #123456', characters: 51, segments: 1 });
    });

    it('answers 400 naming the line for a draft that does not parse, and saves nothing', async () => {
      const res = await test({ template: '{{ code }}\n{% render "x" %}' });
      expect(res.status).toBe(400);
      expect(res.body.details).toEqual([{ path: 'options.template', message: 'line 2, column 1: tag "render" is not allowed in SMS templates' }]);
      expect((await h.management('get', `/connections/${connectionId}`)).body.options.template).toBe(BY_LANGUAGE);
    });

    it('needs read:connections, and answers 404 for an unknown connection', async () => {
      const reader = await adminToken(h.identity.app, 'read:connections');
      const allowed = await h.http().post(`/api/v2/connections/${connectionId}/sms-template/test`).set('authorization', `Bearer ${reader}`).send({});
      expect(allowed.status).toBe(200);
      const other = await adminToken(h.identity.app, 'read:clients');
      const refused = await h.http().post(`/api/v2/connections/${connectionId}/sms-template/test`).set('authorization', `Bearer ${other}`).send({});
      expect(refused.status).toBe(403);
      expect((await h.management('post', '/connections/con_doesnotexist/sms-template/test', {})).status).toBe(404);
    });
  });
});
