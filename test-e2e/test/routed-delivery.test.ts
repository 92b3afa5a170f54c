import { DeliveryAttemptSchema, MessageStatusSchema, OutboxMessageListSchema, RoTokenResponseSchema } from '@smsauth/contracts';
import { readCodeFromOutbox, requestJson, ROUTED_GATEWAY_SENDER } from '@smsauth/stack';
import { createLoginSetup, exchangeAtRo, randomPhone, startLogin, targets } from '../src/fixtures';

/** The routed gateway's outbox, statuses and metrics (its outbox needs the token in a production deployment). */
const outboxHeaders = (): Record<string, string> => (targets.outboxToken ? { authorization: `Bearer ${targets.outboxToken}` } : {});

describe('a routed delivery that fails over', () => {
  it('routes a +1415 number to its regional provider, which is down, fails over to the next provider, and the login completes', async () => {
    const routed = targets.routedGatewayUrl;
    if (!routed) {
      console.warn('ROUTED_GATEWAY_URL is not set: the routed failover case cannot run against this deployment');
      return;
    }
    const setup = await createLoginSetup({ gatewayUrl: targets.routedGatewayDeliveryUrl!, auth: 'none' });
    const phone = randomPhone();
    const notBefore = new Date(Date.now() - 1000);

    const start = await startLogin(setup, phone);
    expect(start.status).toBe(200);
    const code = await readCodeFromOutbox(routed, phone, { notBefore, outboxToken: targets.outboxToken });
    const token = await exchangeAtRo(setup, phone, code);
    expect(token.status).toBe(200);
    RoTokenResponseSchema.parse(token.body);

    // The outbox took it with the route's sender, and the status says how it got there.
    const outbox = await requestJson(`${routed}/outbox/messages?recipient=${encodeURIComponent(phone)}`, { headers: outboxHeaders() });
    const [message] = OutboxMessageListSchema.parse(outbox.body);
    expect(message?.sender).toBe(ROUTED_GATEWAY_SENDER);
    const status = await requestJson(`${routed}/messages/${message?.id ?? 'missing'}`);
    expect(status.status).toBe(200);
    const record = MessageStatusSchema.parse(status.body);
    expect(record).toMatchObject({ status: 'accepted', provider: 'outbox' });
    expect(record.attempts.map((attempt) => DeliveryAttemptSchema.parse(attempt))).toEqual([
      { provider: 'regional-down', outcome: 'failed' },
      { provider: 'outbox', outcome: 'accepted' },
    ]);

    const metrics = await fetch(`${routed}/metrics`);
    const failovers = (await metrics.text())
      .split('\n')
      .find((line) => line.startsWith('sms_failovers_total{') && line.includes('from="regional-down"') && line.includes('to="outbox"'));
    expect(Number(failovers?.split(' ').at(-1))).toBeGreaterThanOrEqual(1);
  });

  it('falls back from WhatsApp, whose only provider is down, to SMS in the same start, and the login completes', async () => {
    const routed = targets.routedGatewayUrl;
    if (!routed) {
      console.warn('ROUTED_GATEWAY_URL is not set: the channel fallback case cannot run against this deployment');
      return;
    }
    const setup = await createLoginSetup({ gatewayUrl: targets.routedGatewayDeliveryUrl!, auth: 'none', channels: { default: ['whatsapp', 'sms'] } });
    const phone = randomPhone();
    const notBefore = new Date(Date.now() - 1000);

    const start = await startLogin(setup, phone);
    expect(start.status).toBe(200);
    expect(start.body).toMatchObject({ phone_number: phone, channel: 'sms' });
    const outbox = await requestJson(`${routed}/outbox/messages?recipient=${encodeURIComponent(phone)}`, { headers: outboxHeaders() });
    expect(OutboxMessageListSchema.parse(outbox.body).map((message) => message.channel)).toEqual(['sms']);
    const code = await readCodeFromOutbox(routed, phone, { notBefore, outboxToken: targets.outboxToken });
    const token = await exchangeAtRo(setup, phone, code);
    expect(token.status).toBe(200);
  });
});
