import { createServiceApp, Lifecycle, type Logger, type ServiceApp } from '@smsauth/service-kit';
import { issuerOf, managementAudienceOf, type Config } from './config';
import { systemClock, type Clock } from './domain/clock';
import { clientCredentialsGrant } from './domain/oauth/client-credentials';
import { TokenGrantRegistry } from './domain/oauth/token-grants';
import type { ResolveHost } from './domain/passwordless/gateway-url-policy';
import type { KeyRing } from './domain/tokens/key-ring';
import { TokenSigner } from './domain/tokens/signer';
import { TokenVerifier } from './domain/tokens/verifier';
import { managementRouter } from './routes/management';
import { oauthTokenRouter } from './routes/oauth-token';
import { wellKnownRouter } from './routes/well-known';
import type { IdentityStore } from './store';

export interface AppDependencies {
  config: Config;
  logger: Logger;
  store: IdentityStore;
  keyRing: KeyRing;
  /** Time for token iat/exp and expiry checks; tests inject a fixed one. */
  clock?: Clock;
  /** DNS for the gateway URL policy; tests inject one. */
  resolveHost?: ResolveHost;
  lifecycle?: Lifecycle;
}

/** Builds the identity app from its dependencies; never listens. */
export function buildApp(deps: AppDependencies): ServiceApp {
  const { config, store, keyRing } = deps;
  const clock = deps.clock ?? systemClock;
  const issuer = issuerOf(config);
  const signer = new TokenSigner(keyRing, clock, issuer);
  const verifier = new TokenVerifier(keyRing, clock, issuer);
  const grants = new TokenGrantRegistry().register('client_credentials', clientCredentialsGrant({ store, signer }));

  const lifecycle = deps.lifecycle ?? new Lifecycle();
  lifecycle.addReadinessCheck('database', () => store.ping());

  return createServiceApp({
    name: 'identity',
    logger: deps.logger,
    lifecycle,
    urlencoded: true,
    trustProxy: config.TRUST_PROXY,
    routes: (app) => {
      app.use(wellKnownRouter({ keyRing, grants, authUrl: config.AUTH_URL, issuer }));
      app.use(oauthTokenRouter(grants));
      app.use(
        '/api/v2',
        managementRouter({
          store,
          keyRing,
          verifier,
          clock,
          audience: managementAudienceOf(config),
          connectionRules: { gatewayUrlPolicy: config.GATEWAY_URL_POLICY, resolveHost: deps.resolveHost },
        }),
      );
    },
  });
}
