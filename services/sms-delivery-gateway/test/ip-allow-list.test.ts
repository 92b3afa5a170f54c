import request from 'supertest';
import { buildGateway, deliveryBody, metricValue } from './support/gateway';

function deliverFrom(app: Parameters<typeof request>[0], forwardedFor?: string) {
  const req = request(app).post('/sms');
  if (forwardedFor) req.set('X-Forwarded-For', forwardedFor);
  return req.send(deliveryBody());
}

describe('ALLOWED_IPS', () => {
  // Behind a trusted proxy, X-Forwarded-For decides the client address, which lets the
  // tests present any IPv4 or IPv6 caller.
  const proxied = { TRUST_PROXY: 'loopback', ALLOWED_IPS: '10.0.0.0/8, 192.0.2.7, 2001:db8:1::/48' };

  it('lets an IPv4 caller inside an allowed range deliver', async () => {
    const { app } = buildGateway(proxied);
    expect((await deliverFrom(app, '10.20.30.40')).status).toBe(200);
  });

  it('lets a single allowed IPv4 address deliver', async () => {
    const { app } = buildGateway(proxied);
    expect((await deliverFrom(app, '192.0.2.7')).status).toBe(200);
  });

  it('refuses an IPv4 caller outside every range with 403 and delivers nothing', async () => {
    const { app, metrics } = buildGateway(proxied);
    const res = await deliverFrom(app, '192.0.2.8');
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: 'forbidden', error_description: expect.any(String) });
    expect((await request(app).get('/outbox/messages')).body).toEqual([]);
    expect(await metricValue(metrics, 'sms_delivery_rejections_total', { reason: 'forbidden' })).toBe(1);
  });

  it('lets an IPv6 caller inside an allowed range deliver', async () => {
    const { app } = buildGateway(proxied);
    expect((await deliverFrom(app, '2001:db8:1:ffff::5')).status).toBe(200);
  });

  it('refuses an IPv6 caller outside every range with 403', async () => {
    const { app } = buildGateway(proxied);
    expect((await deliverFrom(app, '2001:db8:2::5')).status).toBe(403);
  });

  it('matches an IPv4-mapped IPv6 caller against IPv4 ranges', async () => {
    const { app } = buildGateway(proxied);
    expect((await deliverFrom(app, '::ffff:10.1.2.3')).status).toBe(200);
    expect((await deliverFrom(app, '::ffff:172.16.0.1')).status).toBe(403);
  });

  it('matches a direct IPv4 caller on a dual-stack socket (::ffff:127.0.0.1) against 127.0.0.0/8', async () => {
    const { app } = buildGateway({ ALLOWED_IPS: '127.0.0.0/8' });
    expect((await deliverFrom(app)).status).toBe(200);
  });

  it('ignores X-Forwarded-For unless TRUST_PROXY trusts the proxy', async () => {
    const { app } = buildGateway({ ALLOWED_IPS: '10.0.0.0/8' });
    expect((await deliverFrom(app, '10.0.0.1')).status).toBe(403);
  });

  it('checks the address before the token, so outsiders get 403 whatever they send', async () => {
    const { app } = buildGateway({ ...proxied, GATEWAY_AUTH_SECRET: 'x'.repeat(32) });
    expect((await deliverFrom(app, '203.0.113.9')).status).toBe(403);
  });
});
