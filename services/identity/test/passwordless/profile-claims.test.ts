import { IdTokenClaimsSchema, UserInfoResponseSchema, UserRecordSchema } from '@smsauth/contracts';
import { ADMIN_CLIENT_ID, ADMIN_CLIENT_SECRET, clientCredentialsToken } from '../helpers';
import { describeOnEachDatabase, FlowHarness, type LoginSetup } from './flow-harness';

const API = 'https://profile-claims.flow.test';
const STANDARD = ['aud', 'exp', 'iat', 'iss', 'sub'];

/** Which claims each scope releases, in the ID token and at /userinfo (docs/identity.md, "Claims by scope"). */
describeOnEachDatabase('profile claims by scope: ID token, /userinfo and the management API', (database) => {
  let h: FlowHarness;
  let setup: LoginSetup;

  beforeAll(async () => {
    h = await FlowHarness.start({}, { database });
    await h.createApi({ name: 'Profile API', identifier: API, scopes: [{ value: 'read:things' }] });
    setup = await h.loginSetup();
  });
  afterAll(() => h.close());

  async function login(scope: string, extra: Record<string, unknown> = {}) {
    const who = h.caller();
    const res = await h.otp(setup, who, await h.sendCode(setup, who), { scope, ...extra });
    expect(res.status).toBe(200);
    const user = (await h.identity.store.users.findByPhone(setup.connectionId, who.phone))!;
    const id = IdTokenClaimsSchema.strict().parse((await h.verifyWithJwks(res.body.id_token, setup.clientId)).claims);
    const info = await h.http().get('/userinfo').set('authorization', `Bearer ${res.body.access_token}`);
    expect(info.status).toBe(200);
    return { phone: who.phone, user, id, userinfo: UserInfoResponseSchema.strict().parse(info.body) };
  }

  it('releases only sub (and the standard claims) for `openid` alone', async () => {
    const { user, id, userinfo } = await login('openid');
    expect(Object.keys(id).sort()).toEqual(STANDARD);
    expect(userinfo).toEqual({ sub: user.user_id });
  });

  it('releases name, nickname (the number) and updated_at for `profile`, and no phone claims', async () => {
    const { phone, user, id, userinfo } = await login('openid profile');
    const profile = { name: phone, nickname: phone, updated_at: Math.floor(user.updated_at.getTime() / 1000) };
    expect(id).toMatchObject(profile);
    expect(Object.keys(id).sort()).toEqual([...STANDARD, 'name', 'nickname', 'updated_at'].sort());
    expect(userinfo).toEqual({ sub: user.user_id, ...profile });
  });

  it('releases phone_number and phone_number_verified for `phone`, and no profile claims', async () => {
    const { phone, user, id, userinfo } = await login('openid phone');
    expect(id).toMatchObject({ phone_number: phone, phone_number_verified: true });
    expect(id).not.toHaveProperty('name');
    expect(userinfo).toEqual({ sub: user.user_id, phone_number: phone, phone_number_verified: true });
  });

  it('releases both for `openid profile phone`, and /userinfo follows the scope of a JWT access token for an API too', async () => {
    const { phone, user, userinfo } = await login('openid profile phone read:things', { audience: API });
    expect(userinfo).toEqual({
      sub: user.user_id,
      name: phone,
      nickname: phone,
      updated_at: Math.floor(user.updated_at.getTime() / 1000),
      phone_number: phone,
      phone_number_verified: true,
    });
  });

  it('shows name and nickname (the number) and no picture in the management API user, its list and its search', async () => {
    const { phone, user } = await login('openid');
    const token = await clientCredentialsToken(h.identity.app, { clientId: ADMIN_CLIENT_ID, clientSecret: ADMIN_CLIENT_SECRET });
    const one = await h.http().get(`/api/v2/users/${encodeURIComponent(user.user_id)}`).set('authorization', `Bearer ${token}`);
    expect(one.status).toBe(200);
    expect(UserRecordSchema.strict().parse(one.body)).toMatchObject({ name: phone, nickname: phone, updated_at: user.updated_at.toISOString() });
    expect(one.body).not.toHaveProperty('picture');
    const search = await h.http().get('/api/v2/users').query({ q: `phone_number:${phone}` }).set('authorization', `Bearer ${token}`);
    expect(search.status).toBe(200);
    expect(search.body).toEqual([expect.objectContaining({ user_id: user.user_id, name: phone, nickname: phone })]);
  });
});
