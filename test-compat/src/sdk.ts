import { ManagementClient } from 'auth0';
import { AuthenticationClient } from 'auth0/legacy';
import { AuthClient } from '@auth0/auth0-auth-js';
import { codeSentTo, compat, since } from './fixtures';

// The SDKs configured exactly as their READMEs show: a domain and credentials, nothing else.

export function managementClient(): ManagementClient {
  return new ManagementClient({ domain: compat.domain, clientId: compat.admin.clientId, clientSecret: compat.admin.clientSecret });
}

export function legacyAuthenticationClient(credentials = compat.app): AuthenticationClient {
  return new AuthenticationClient({ domain: compat.domain, clientId: credentials.clientId, clientSecret: credentials.clientSecret });
}

export function authJsClient(credentials = compat.app): AuthClient {
  return new AuthClient({ domain: compat.domain, clientId: credentials.clientId, clientSecret: credentials.clientSecret });
}

/** The options of an SMS connection delivering through the stack's gateway (Auth0's custom gateway shape). */
export function smsConnectionOptions(template = 'Your code is @@password@@') {
  return {
    provider: 'sms_gateway',
    gateway_url: compat.gatewayDeliveryUrl,
    from: '+14155550100',
    syntax: 'md_with_macros',
    template,
    totp: { time_step: 300, length: 6 },
    brute_force_protection: true,
    disable_signup: false,
  };
}

/** A user's sign-in as an app does it with auth-js: the SMS, the code from it, the OTP grant (`phone` releases the phone claims). */
export async function signInWithAuthJs(phone: string, scope = 'openid phone offline_access') {
  const auth = authJsClient();
  const sentAfter = since();
  await auth.passwordless.sendSms({ phoneNumber: phone });
  const code = await codeSentTo(phone, sentAfter);
  return auth.getTokenByPasswordlessSms({ phoneNumber: phone, code, scope, audience: compat.apiAudience });
}

/** An access token for the airport API from client_credentials, through the legacy AuthenticationClient. */
export async function machineAccessToken(): Promise<string> {
  const { data } = await legacyAuthenticationClient(compat.m2m).oauth.clientCredentialsGrant({ audience: compat.apiAudience });
  return data.access_token;
}
