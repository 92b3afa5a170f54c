import { randomBytes, randomInt } from 'node:crypto';
import { PASSWORDLESS_OTP_GRANT, StartResponseSchema } from '@smsauth/contracts';
import { ManagementClient, readCodeFromOutbox, requestJson } from '@smsauth/stack';
import jwt, { type JwtPayload } from 'jsonwebtoken';
import { JwksClient } from 'jwks-rsa';
import { targetsFromEnv } from './targets';

export const targets = targetsFromEnv();
export const admin = new ManagementClient(targets.authUrl, targets.adminClientId, targets.adminClientSecret);

/** Names unique per run, so the suite can run against any stack, repeatedly. */
export function uniqueName(prefix: string): string {
  return `${prefix}-${Date.now().toString(36)}-${randomBytes(3).toString('hex')}`;
}

/** A valid San Francisco number (+1 415 and an exchange 200-999: identity accepts only valid numbers), different for each call. */
export function randomPhone(): string {
  return `+1415${randomInt(2_000_000, 10_000_000)}`;
}

export type GatewayAuth = 'configured' | 'wrong-secret' | 'none';

export interface LoginSetup {
  clientId: string;
  connection: string;
}

/** A native client and an SMS connection of its own, delivering to the given gateway. */
export async function createLoginSetup(options: { gatewayUrl?: string; auth?: GatewayAuth; channels?: Record<string, string[]> } = {}): Promise<LoginSetup> {
  const client = await admin.createClient({ name: uniqueName('e2e-app'), app_type: 'native' });
  const connection = uniqueName('e2e-sms');
  const auth = options.auth ?? (targets.gatewayAuthSecret ? 'configured' : 'none');
  const gatewayAuthentication =
    auth === 'none'
      ? undefined
      : {
          method: 'bearer',
          subject: targets.gatewayAuthSubject ?? 'smsauth-identity',
          audience: targets.gatewayAuthAudience ?? targets.gatewayDeliveryUrl,
          secret: auth === 'configured' ? targets.gatewayAuthSecret : randomBytes(32).toString('base64url'),
          secret_base64_encoded: false,
        };
  await admin.createConnection({
    options: {
      name: connection,
      strategy: 'sms',
      provider: 'sms_gateway',
      gateway_url: options.gatewayUrl ?? targets.gatewayDeliveryUrl,
      from: '+14155550100',
      syntax: 'md_with_macros',
      template: 'Your code is @@password@@',
      totp: { time_step: 300, length: 6 },
      brute_force_protection: true,
      disable_signup: false,
      ...(gatewayAuthentication ? { gateway_authentication: gatewayAuthentication } : {}),
      ...(options.channels ? { channels: options.channels } : {}),
    },
    enabled_clients: [client.client_id],
  });
  return { clientId: client.client_id, connection };
}

export function startLogin(setup: LoginSetup, phoneNumber: string) {
  return requestJson(`${targets.authUrl}/passwordless/start`, {
    method: 'POST',
    json: {
      client_id: setup.clientId,
      connection: setup.connection,
      phone_number: phoneNumber,
      send: 'code',
      authParams: { scope: 'openid', state: 'e2e-state' },
    },
  });
}

/** start -> expect success -> the code the gateway received. */
export async function sendCode(setup: LoginSetup, phoneNumber: string): Promise<string> {
  const notBefore = new Date(Date.now() - 1000);
  const res = await startLogin(setup, phoneNumber);
  expect(res.status).toBe(200);
  StartResponseSchema.parse(res.body);
  return readCodeFromOutbox(targets.gatewayUrl, phoneNumber, { notBefore, outboxToken: targets.outboxToken });
}

export function exchangeAtRo(setup: LoginSetup, phoneNumber: string, code: string) {
  return requestJson(`${targets.authUrl}/oauth/ro`, {
    method: 'POST',
    json: {
      client_id: setup.clientId,
      connection: setup.connection,
      grant_type: 'password',
      username: phoneNumber,
      password: code,
      // `phone` releases phone_number(_verified) in the ID token (docs/identity.md, "Claims by scope").
      scope: 'openid phone',
      device: 'e2e',
    },
  });
}

export async function exchangeOtpGrant(setup: LoginSetup, phoneNumber: string, code: string, audience = targets.apiAudience) {
  if (audience === targets.apiAudience) await ensureAirportApi();
  return requestJson(`${targets.authUrl}/oauth/token`, {
    method: 'POST',
    json: { grant_type: PASSWORDLESS_OTP_GRANT, client_id: setup.clientId, realm: setup.connection, username: phoneNumber, otp: code, audience, scope: 'openid' },
  });
}

let apiEnsured: Promise<void> | undefined;

/** The airport API's resource server, created when the deployment under test has none. */
export function ensureAirportApi(): Promise<void> {
  apiEnsured ??= admin.listResourceServers().then(async (servers) => {
    if (!servers.some((s) => s.identifier === targets.apiAudience)) {
      await admin.createResourceServer({ name: uniqueName('Airport API'), identifier: targets.apiAudience });
    }
  });
  return apiEnsured;
}

/** An M2M client with a grant for `audience` (default: the airport API), and a token for it. */
export async function m2mToken(audience = targets.apiAudience): Promise<string> {
  if (audience === targets.apiAudience) await ensureAirportApi();
  const client = await admin.createClient({ name: uniqueName('e2e-m2m'), app_type: 'non_interactive', grant_types: ['client_credentials'] });
  await admin.createClientGrant({ client_id: client.client_id, audience, scope: [] });
  const res = await requestJson(`${targets.authUrl}/oauth/token`, {
    method: 'POST',
    json: { grant_type: 'client_credentials', client_id: client.client_id, client_secret: client.client_secret, audience },
  });
  expect(res.status).toBe(200);
  return (res.body as { access_token: string }).access_token;
}

const jwks = new JwksClient({ jwksUri: `${targets.authUrl}/.well-known/jwks.json`, cache: false });

/** Verifies a token the way a relying party would: keys from the JWKS, RS256, issuer with slash. */
export async function verifyAgainstJwks(token: string, audience: string): Promise<JwtPayload> {
  const decoded = jwt.decode(token, { complete: true });
  if (!decoded?.header.kid) throw new Error('token has no kid');
  const key = await jwks.getSigningKey(decoded.header.kid);
  return jwt.verify(token, key.getPublicKey(), { algorithms: ['RS256'], issuer: `${targets.authUrl}/`, audience }) as JwtPayload;
}

export function callAirport(iataCode: string | undefined, token?: string) {
  const query = iataCode === undefined ? '' : `?iataCode=${encodeURIComponent(iataCode)}`;
  return fetch(`${targets.baseUrl}/airportName${query}`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
}
