import { compat, uniqueName } from '../fixtures';
import { managementClient, smsConnectionOptions } from '../sdk';

/** A client as Auth0's dashboard configures one for a browser or web-server library. */
export interface WebClientSettings {
  app_type: 'spa' | 'regular_web';
  token_endpoint_auth_method: 'none' | 'client_secret_post' | 'client_secret_basic';
  grant_types: string[];
  callbacks: string[];
  web_origins?: string[];
  allowed_origins?: string[];
  allowed_logout_urls?: string[];
  /** Auth0's OpenID Connect logout settings (back-channel logout URLs), and identity's front-channel URL. */
  oidc_logout?: { backchannel_logout_urls: string[]; frontchannel_logout_url?: string };
  /** Embedded login (Lock, auth0-js passwordlessLogin): POST /co/authenticate from the web origins. */
  cross_origin_authentication?: boolean;
  /** The app's page running auth0-js crossOriginVerification(), for browsers without third-party cookies. */
  cross_origin_loc?: string;
  refresh_token?: {
    rotation_type: 'rotating' | 'non-rotating';
    expiration_type: 'expiring' | 'non-expiring';
    token_lifetime?: number;
    idle_token_lifetime?: number;
    leeway?: number;
  };
}

export interface WebClient {
  clientId: string;
  clientSecret?: string;
  /** The name of the SMS connection created for the clients (what Lock's allowedConnections and auth0-js's `connection` name). */
  connection: string;
}

/**
 * Creates the clients through the management API (with Auth0's SDK: the client shapes are part
 * of what is proven), and an SMS connection of their own enabled for all of them, so that the
 * hosted login needs no `connection` parameter and no other test file's edit of the seeded
 * connection can race with this one.
 */
export async function createWebClients<K extends string>(prefix: string, settings: Record<K, WebClientSettings>): Promise<Record<K, WebClient>> {
  const management = managementClient();
  const clients = {} as Record<K, WebClient>;
  for (const [key, wanted] of Object.entries(settings) as Array<[K, WebClientSettings]>) {
    const created = await management.clients.create({ name: uniqueName(`${prefix}-${key}`), oidc_conformant: true, ...wanted } as never);
    clients[key] = { clientId: created.client_id!, ...(created.client_secret ? { clientSecret: created.client_secret } : {}), connection: '' };
  }
  const connection = uniqueName(prefix);
  for (const client of Object.values<WebClient>(clients)) client.connection = connection;
  await management.connections.create({
    name: connection,
    strategy: 'sms',
    options: {
      ...smsConnectionOptions('Your code is @@password@@'),
      gateway_authentication: {
        method: 'bearer',
        subject: compat.gatewayAuthSubject,
        audience: compat.gatewayDeliveryUrl,
        secret: compat.gatewayAuthSecret,
        secret_base64_encoded: false,
      },
    },
    enabled_clients: Object.values<WebClient>(clients).map((c) => c.clientId),
  } as never);
  return clients;
}

/** A SPA's grants as Auth0 sets them: code (+ PKCE), implicit, refresh. */
export const SPA_GRANTS = ['authorization_code', 'implicit', 'refresh_token'];
/** A SPA that signs users in from its own pages (Lock Passwordless, auth0-js passwordlessLogin): the SPA's grants and Auth0's "Passwordless OTP". */
export const EMBEDDED_SPA_GRANTS = [...SPA_GRANTS, 'http://auth0.com/oauth/grant-type/passwordless/otp'];
/** A regular web app's grants as Auth0 sets them. */
export const REGULAR_WEB_GRANTS = ['authorization_code', 'implicit', 'refresh_token', 'client_credentials'];

export const ROTATING_REFRESH_TOKENS = { rotation_type: 'rotating', expiration_type: 'expiring', token_lifetime: 2_592_000, idle_token_lifetime: 1_296_000, leeway: 0 } as const;
