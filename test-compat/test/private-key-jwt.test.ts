import { generateKeyPairSync } from 'node:crypto';
import { detachedKeyPair } from '@smsauth/test-support';
import { AuthClient } from '@auth0/auth0-auth-js';
import { AuthenticationClient } from 'auth0/legacy';
import { codeSentTo, compat, randomPhone, since, uniqueName } from '../src/fixtures';
import { managementClient } from '../src/sdk';

// private_key_jwt: an app that holds no secret but a private key, whose public key is registered
// with the app as Auth0 does it (client_authentication_methods on create). Both SDKs then sign a
// client assertion for every call. This is the only file that changes connection "sms" (one
// read-modify-write at a time), so that files running in parallel never undo each other.

const { privateKey, publicKey } = detachedKeyPair('rsa', { modulusLength: 2048 });
const privatePem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const publicPem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
let clientId: string;

beforeAll(async () => {
  const management = managementClient();
  const app = await management.clients.create({
    name: uniqueName('compat-private-key-jwt'),
    app_type: 'regular_web',
    client_authentication_methods: { private_key_jwt: { credentials: [{ credential_type: 'public_key', name: 'compat key', pem: publicPem, alg: 'RS256' }] } },
  });
  clientId = app.client_id!;
  const sms = await management.connections.get(compat.smsConnectionId);
  await management.connections.update(compat.smsConnectionId, { enabled_clients: [...(sms.enabled_clients ?? []), clientId] });
});

describe('private_key_jwt client authentication', () => {
  it('lets auth0/legacy send the SMS and sign in with a client assertion', async () => {
    const auth = new AuthenticationClient({ domain: compat.domain, clientId, clientAssertionSigningKey: privatePem });
    const phone = randomPhone();
    const sentAfter = since();
    await auth.passwordless.sendSMS({ phone_number: phone });
    const { data } = await auth.passwordless.loginWithSMS({ phone_number: phone, code: await codeSentTo(phone, sentAfter), scope: 'openid' });
    expect(data.id_token).toEqual(expect.any(String));
  });

  it('lets auth-js send the SMS and sign in with a client assertion', async () => {
    const auth = new AuthClient({ domain: compat.domain, clientId, clientAssertionSigningKey: privatePem });
    const phone = randomPhone();
    const sentAfter = since();
    await auth.passwordless.sendSms({ phoneNumber: phone });
    const tokens = await auth.getTokenByPasswordlessSms({ phoneNumber: phone, code: await codeSentTo(phone, sentAfter), scope: 'openid phone' });
    expect(tokens.claims).toMatchObject({ aud: clientId, phone_number: phone });
  });

  it('refuses an assertion signed with another key with 401 invalid_client', async () => {
    const stranger = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const auth = new AuthenticationClient({ domain: compat.domain, clientId, clientAssertionSigningKey: stranger });
    await expect(auth.passwordless.sendSMS({ phone_number: randomPhone() })).rejects.toMatchObject({ statusCode: 401, error: 'invalid_client' });
  });
});
