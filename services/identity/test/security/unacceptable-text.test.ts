import request from 'supertest';
import { adminToken, startTestIdentity, type TestIdentity } from '../helpers';

// Text PostgreSQL cannot hold (NUL) and malformed percent escapes used to reach the database or
// Express's router and come back as 500s; the service kit now refuses them before any route.
describe('identity, given text it cannot store or decode', () => {
  let identity: TestIdentity;
  let token: string;

  beforeAll(async () => {
    identity = await startTestIdentity();
    token = await adminToken(identity.app);
  });
  afterAll(() => identity.close());

  it.each([
    ['POST /oauth/token', '/oauth/token', { grant_type: 'client_credentials', client_id: 'a\u0000b', client_secret: 'x', audience: 'y' }, 'Body field client_id contains a NUL character'],
    ['POST /oauth/ro', '/oauth/ro', { client_id: 'c', connection: 'sms\u0000', grant_type: 'password', username: '+14155552671', password: '123456' }, 'Body field connection contains a NUL character'],
    ['POST /passwordless/start', '/passwordless/start', { client_id: 'c', connection: 'sms', phone_number: '+1415555\u00002671', send: 'code' }, 'Body field phone_number contains a NUL character'],
  ])('answers 400 to %s with a NUL in a field, without credentials', async (_name, path, body, description) => {
    const res = await request(identity.app).post(path).send(body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'invalid_request', error_description: description });
  });

  it.each([
    ['GET /authorize', '/authorize?client_id=a%00b&response_type=token'],
    ['GET /v2/logout', '/v2/logout?client_id=%00&returnTo=http://x'],
  ])('answers 400 to %s with a NUL in the query', async (_name, path) => {
    const res = await request(identity.app).get(path);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_request');
  });

  it.each([
    ['a malformed escape', '/api/v2/clients/%E0%A4%A', 'The path is not valid percent-encoding of UTF-8'],
    ['an escaped NUL', '/api/v2/clients/a%00b', 'The path contains a NUL character'],
    ['a malformed escape in a user id', '/api/v2/users/sms%7C%ZZ/logs', 'The path is not valid percent-encoding of UTF-8'],
  ])('answers 400 to a management path with %s', async (_name, path, description) => {
    const res = await request(identity.app).get(path).set('authorization', `Bearer ${token}`);
    expect(res.status).toBe(400);
    expect(res.body.error_description).toBe(description);
  });

  it('logs none of these as an unhandled error', () => {
    expect(identity.logs()).not.toContain('unhandled error');
  });
});
