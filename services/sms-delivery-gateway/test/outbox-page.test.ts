import request from 'supertest';
import { highlightCodes } from '../src/routes/outbox-page-view';
import { NOW, buildGateway, deliveryBody } from './support/gateway';

const OUTBOX_TOKEN = 'outbox-token-for-tests-0123456789';

describe('GET /outbox (HTML inbox page)', () => {
  it('lists messages newest first with time, recipient, sender and the code highlighted', async () => {
    let now = NOW;
    const { app } = buildGateway({}, { now: () => new Date(now) });
    await request(app).post('/sms').send(deliveryBody({ body: 'Your code is 111111' }));
    now += 1000;
    const { sender: _sender, ...noSender } = deliveryBody({ recipient: '+447700900123', body: 'Your code is 222222' });
    await request(app).post('/sms').send(noSender);

    const res = await request(app).get('/outbox');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.headers['cache-control']).toBe('no-store');
    const rows = res.text.split('<tr>').slice(2);
    expect(rows).toHaveLength(2);
    expect(rows[0]).toContain('<td data-label="Received"><time datetime="2025-01-15T12:00:01.000Z">2025-01-15 12:00:01 UTC</time>');
    expect(rows[0]).toContain('<td data-label="To">+447700900123</td>');
    expect(rows[0]).toContain('aria-label="no sender"');
    expect(rows[0]).toContain('Your code is <mark class="code">222222</mark>');
    expect(rows[1]).toContain('<td data-label="To">+14155550123</td>');
    expect(rows[1]).toContain('<td data-label="From">+15005550006</td>');
    expect(rows[1]).toContain('<mark class="code">111111</mark>');
    expect(res.text).toContain('<th scope="col">Message</th>');
  });

  it('reloads itself only when asked to (?watch=1), with a link to stop, and runs no script under its CSP', async () => {
    const { app } = buildGateway();
    const still = await request(app).get('/outbox');
    expect(still.text).not.toContain('http-equiv="refresh"');
    expect(still.text).toContain('<a href="/outbox?watch=1">reload every 5 seconds</a>');
    const watched = await request(app).get('/outbox?watch=1');
    expect(watched.text).toContain('<meta http-equiv="refresh" content="5; url=/outbox?watch=1">');
    expect(watched.text).toContain('<a href="/outbox">Stop reloading</a>');
    const res = still;
    expect(res.text).toContain('No messages yet.');
    expect(res.text).not.toContain('<script');
    const csp = res.headers['content-security-policy'] as string;
    expect(csp).toMatch(/^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/]+=*';/);
    expect(csp).not.toMatch(/script-src|unsafe-inline/);
  });

  it('escapes message bodies', async () => {
    const { app } = buildGateway();
    await request(app).post('/sms').send(deliveryBody({ body: '<script>alert(1)</script> code 123456' }));
    const res = await request(app).get('/outbox');
    expect(res.text).not.toContain('<script>');
    expect(res.text).toContain('&lt;script&gt;alert(1)&lt;/script&gt; code <mark class="code">123456</mark>');
  });

  it('highlights codes of 4 to 10 digits but not phone numbers or longer runs', () => {
    expect(highlightCodes('code 4821, call +14155550123 or 12345678901')).toBe('code <mark class="code">4821</mark>, call +14155550123 or 12345678901');
  });

  it('does not exist when the provider is not the outbox', async () => {
    const { app } = buildGateway({ SMS_PROVIDER: 'webhook', WEBHOOK_URL: 'http://127.0.0.1:9/hook' });
    expect((await request(app).get('/outbox')).status).toBe(404);
  });

  it('does not exist in production without OUTBOX_TOKEN', async () => {
    const { app } = buildGateway({ NODE_ENV: 'production', SMS_PROVIDER: 'outbox', GATEWAY_AUTH_SECRET: 'p'.repeat(32) });
    expect((await request(app).get('/outbox')).status).toBe(404);
  });
});

describe('GET /outbox with OUTBOX_TOKEN', () => {
  it('asks for the token with a form, showing no message', async () => {
    const { app } = buildGateway({ OUTBOX_TOKEN });
    await request(app).post('/sms').send(deliveryBody({ body: 'code 987654' }));
    const res = await request(app).get('/outbox');
    expect(res.status).toBe(401);
    expect(res.text).not.toContain('987654');
    expect(res.text).toContain('<label for="token">');
    expect(res.text).toMatch(/<input id="token" name="token" type="password"/);
  });

  it('moves a right ?token= into an HttpOnly cookie and redirects to the bare URL', async () => {
    const { app } = buildGateway({ OUTBOX_TOKEN });
    const res = await request(app).get(`/outbox?token=${OUTBOX_TOKEN}`);
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/outbox');
    const cookie = (res.headers['set-cookie'] as unknown as string[])[0]!;
    expect(cookie).toBe(`outbox_token=${OUTBOX_TOKEN}; Path=/outbox; HttpOnly; SameSite=Strict`);
  });

  it('serves the page to the cookie and to a bearer header', async () => {
    const { app } = buildGateway({ OUTBOX_TOKEN });
    await request(app).post('/sms').send(deliveryBody({ body: 'code 987654' }));
    const byCookie = await request(app).get('/outbox').set('Cookie', `other=1; outbox_token=${OUTBOX_TOKEN}`);
    expect(byCookie.status).toBe(200);
    expect(byCookie.text).toContain('<mark class="code">987654</mark>');
    expect((await request(app).get('/outbox').set('Authorization', `Bearer ${OUTBOX_TOKEN}`)).status).toBe(200);
  });

  it('refuses a wrong token in the query or the cookie', async () => {
    const { app } = buildGateway({ OUTBOX_TOKEN });
    const byQuery = await request(app).get('/outbox?token=wrong');
    expect(byQuery.status).toBe(401);
    expect(byQuery.headers['set-cookie']).toBeUndefined();
    expect(byQuery.text).toContain('That token is wrong.');
    expect((await request(app).get('/outbox').set('Cookie', 'outbox_token=wrong')).status).toBe(401);
  });

  it('does not accept ?token= on the JSON API', async () => {
    const { app } = buildGateway({ OUTBOX_TOKEN });
    expect((await request(app).get(`/outbox/messages?token=${OUTBOX_TOKEN}`)).status).toBe(401);
  });

  it('keeps the token out of the logs', async () => {
    const { app, logs } = buildGateway({ OUTBOX_TOKEN });
    await request(app).get(`/outbox?token=${OUTBOX_TOKEN}`);
    await request(app).get('/outbox?token=wrong-guess-token');
    await request(app).get('/outbox').set('Cookie', `outbox_token=${OUTBOX_TOKEN}`);
    const text = logs.text();
    expect(text).toContain('/outbox?token=[REDACTED]');
    expect(text).not.toContain(OUTBOX_TOKEN);
    expect(text).not.toContain('wrong-guess-token');
  });
});
