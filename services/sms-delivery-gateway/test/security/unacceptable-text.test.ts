import request from 'supertest';
import { buildGateway } from '../support/gateway';

// Express's router used to fail a malformed escape in a route parameter with a URIError (a 500),
// before any credential was checked; the service kit now answers 400 before any route.
describe('the delivery gateway, given a path it cannot decode', () => {
  it.each([
    ['GET', '/messages/%E0%A4%A'],
    ['POST', '/receipts/twilio/%E0%A4%A'],
    ['GET', '/messages/a%00b'],
  ])('answers 400 to %s %s without any credential', async (method, path) => {
    const { app } = buildGateway({ GATEWAY_PUBLIC_URL: 'https://gw.example.com' });
    const res = await request(app)[method === 'GET' ? 'get' : 'post'](path);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_request');
  });

  it('answers 400 to a delivery whose body holds a NUL', async () => {
    const { app } = buildGateway();
    const res = await request(app).post('/sms').send({ recipient: '+14155552671', body: 'code\u0000' });
    expect(res.status).toBe(400);
    expect(res.body.error_description).toBe('Body field body contains a NUL character');
  });
});
