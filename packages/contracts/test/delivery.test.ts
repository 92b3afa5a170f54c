import { DeliveryRequestSchema } from '../src';
import { deliveryRequestExample } from './examples';
import { issuePaths } from './helpers';

describe('DeliveryRequestSchema', () => {
  it('accepts the delivery request the spec shows', () => {
    expect(DeliveryRequestSchema.parse(deliveryRequestExample)).toEqual(deliveryRequestExample);
  });

  it('accepts a request without sender, for a connection without from', () => {
    const { sender: _sender, ...withoutSender } = deliveryRequestExample;
    expect(DeliveryRequestSchema.safeParse(withoutSender).success).toBe(true);
  });

  it('accepts the forwarded caller details', () => {
    const request = { ...deliveryRequestExample, req: { ip: '203.0.113.7', 'user-agent': 'curl/8.5.0' } };
    expect(DeliveryRequestSchema.parse(request)).toEqual(request);
  });

  it('drops fields it does not know instead of rejecting them', () => {
    expect(DeliveryRequestSchema.parse({ ...deliveryRequestExample, priority: 'high' })).toEqual(deliveryRequestExample);
  });

  it.each([
    ['a recipient that is not E.164', { recipient: '4155550123' }, ['recipient']],
    ['an empty body', { body: '' }, ['body']],
    ['a body over 1600 characters', { body: 'x'.repeat(1601) }, ['body']],
    ['req without ip', { req: { 'user-agent': 'curl' } }, ['req', 'ip']],
  ])('rejects %s', (_rule, changes, path) => {
    expect(issuePaths(DeliveryRequestSchema.safeParse({ ...deliveryRequestExample, ...changes }))).toEqual([path]);
  });
});
