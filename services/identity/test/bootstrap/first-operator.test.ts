import { MANAGEMENT_SCOPES } from '@smsauth/contracts';
import { loadConfig } from '@smsauth/service-kit';
import { RecordingServer } from '@smsauth/test-support';
import { configSchema } from '../../src/config';
import { BUILT_IN_ROLES } from '../../src/domain/management/built-in-roles';
import { MANAGEMENT_AUDIENCE, startTestIdentity } from '../helpers';
import { describeOnEachDatabase, FlowHarness } from '../passwordless/flow-harness';
import { managementScopesOf, signInWithPkce } from '../rbac/operator-login';
import { tenantFile } from './tenant-harness';

const EVERY_MANAGEMENT_SCOPE = `openid offline_access ${MANAGEMENT_SCOPES.join(' ')}`;

/** An SMS connection delivering to `${GATEWAY_URL}`, as a deployment's tenant file has it. */
const SMS_CONNECTION = {
  connections: [{ name: 'sms', strategy: 'sms', options: { gateway_url: '${GATEWAY_URL}', template: 'Your code is @@password@@' } }],
};

/** The code in the newest message `gateway` received for `phone`. */
function codeSentTo(gateway: RecordingServer): (phone: string) => string {
  return (phone) => {
    const message = [...gateway.requests].reverse().map((r) => JSON.parse(r.body) as { recipient: string; body: string }).find((m) => m.recipient === phone);
    return /\d{6}/.exec(message?.body ?? '')?.[0] ?? `no code was sent to ${phone}`;
  };
}

describeOnEachDatabase('the first operator from the environment', (database) => {
  let gateway: RecordingServer;
  let h: FlowHarness;
  const operator = { phone: '+14155550100', ip: '198.51.100.7' };

  beforeAll(async () => {
    gateway = await RecordingServer.start({ path: '/sms' });
    h = await FlowHarness.start(
      { TENANT_FILE: tenantFile(SMS_CONNECTION), FIRST_OPERATOR_PHONE_NUMBER: '+1 415 555 0100' },
      { database, tenantFileVariables: { GATEWAY_URL: gateway.url() } },
    );
  });
  afterAll(async () => {
    await h.close();
    await gateway.close();
  });

  it('signs in to the console with a code by SMS and holds every management scope (Admin by default)', async () => {
    const settings = (await h.http().get('/console/config.json').expect(200)).body as { client_id: string; redirect_uri: string; audience: string };
    const res = await signInWithPkce(h, { clientId: settings.client_id }, operator, EVERY_MANAGEMENT_SCOPE, settings.audience, {
      redirectUri: settings.redirect_uri,
      codeSentTo: codeSentTo(gateway),
    });
    expect(res.status).toBe(200);
    expect(managementScopesOf(res.body.scope, MANAGEMENT_SCOPES)).toEqual([...MANAGEMENT_SCOPES].sort());
    const { claims } = await h.verifyWithJwks(res.body.access_token, MANAGEMENT_AUDIENCE);
    expect(claims.azp).toBe(settings.client_id);
    const users = await h.http().get('/api/v2/users').set('authorization', `Bearer ${res.body.access_token}`).expect(200);
    expect(users.body).toEqual([expect.objectContaining({ user_id: claims.sub, phone_number: operator.phone })]);
    const roles = await h.http().get(`/api/v2/users/${encodeURIComponent(claims.sub!)}/roles`).set('authorization', `Bearer ${res.body.access_token}`).expect(200);
    expect(roles.body.map((r: { name: string }) => r.name)).toEqual(['Admin']);
  });
});

describe('FIRST_OPERATOR_* that identity refuses to start with', () => {
  it('names a role that does not exist, listing those that do', async () => {
    const file = tenantFile(SMS_CONNECTION);
    const env = { TENANT_FILE: file, FIRST_OPERATOR_PHONE_NUMBER: '+14155550100', FIRST_OPERATOR_ROLE: 'Support, Root' };
    await expect(startTestIdentity(env, { tenantFileVariables: { GATEWAY_URL: 'http://127.0.0.1:4100/sms' } })).rejects.toThrow(
      `FIRST_OPERATOR_ROLE: no role is named Root; the roles are: ${BUILT_IN_ROLES.map((r) => r.name).join(', ')}`,
    );
  });

  it('names a connection that does not exist', async () => {
    await expect(startTestIdentity({ FIRST_OPERATOR_PHONE_NUMBER: '+14155550100', FIRST_OPERATOR_CONNECTION: 'operators' })).rejects.toThrow(
      'FIRST_OPERATOR_CONNECTION: no connection is named operators',
    );
  });

  it('names a number that is not a phone number, and reads the roles as a list', () => {
    expect(() => loadConfig(configSchema, { FIRST_OPERATOR_PHONE_NUMBER: '+1 415' })).toThrow('FIRST_OPERATOR_PHONE_NUMBER: is too short');
    expect(loadConfig(configSchema, { FIRST_OPERATOR_PHONE_NUMBER: '+1 (415) 555-0100', FIRST_OPERATOR_ROLE: 'Support, Viewer' })).toMatchObject({
      FIRST_OPERATOR_PHONE_NUMBER: '+14155550100',
      FIRST_OPERATOR_ROLE: ['Support', 'Viewer'],
      FIRST_OPERATOR_CONNECTION: 'sms',
    });
    expect(loadConfig(configSchema, {}).FIRST_OPERATOR_ROLE).toEqual(['Admin']);
  });
});
