import { join } from 'node:path';
import { startDemoApp, type RunningDemoApp } from './demo-app';
import { freePort, isPortInUse } from './ports';
import { echoWithPrefix, repoRoot, type RunningService, type ServiceName, spawnService, waitForReady } from './processes';
import { DEMO_TENANT_SECRETS, demoAppCallbackUrl, readDemoTenant, writeDemoTenantFile, type SeededTenant } from './seed';
import { DEMO_PHONE_NUMBER } from './demo-number';
import { loadOrCreateState, saveState } from './state';

export const DEFAULT_API_AUDIENCE = 'https://airport-api.example.com';
export const GATEWAY_AUTH_SUBJECT = 'smsauth-identity';

/**
 * The delivery gateway's provider settings (see its configuration reference) that `pnpm start`
 * passes through from its own environment, so `SMS_PROVIDER=twilio TWILIO_... pnpm start` sends
 * real SMS. Without them the gateway keeps its development default, the outbox.
 */
export const GATEWAY_PROVIDER_VARIABLES = /^(SMS_PROVIDER|SMS_PROVIDER_INSTANCES(?:_FILE)?|SMS_ROUTES|SMS_BREAKER_[A-Z_]+|TWILIO_[A-Z_]+|WEBHOOK_[A-Z_]+|GATEWAY_PUBLIC_URL|REDIS_URL(?:_FILE)?|REDIS_KEY_PREFIX|OUTBOX_[A-Z_]+)$/;

/** The provider settings in `env` that the gateway of `pnpm start` gets (GATEWAY_PROVIDER_VARIABLES, non-empty). */
export function gatewayProviderSettings(env: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(env).filter((entry): entry is [string, string] => GATEWAY_PROVIDER_VARIABLES.test(entry[0]) && Boolean(entry[1])),
  );
}

/** The ports of `pnpm start`. */
export const DEFAULT_PORTS = { identity: 4000, gateway: 4100, airport: 4200, demoApp: 4300 };

export interface LaunchOptions {
  /** Default DEFAULT_PORTS; given without demoApp, the demo web app gets a free port. */
  ports?: { identity: number; gateway: number; airport: number; demoApp?: number };
  /** Where the PGlite database and the stack's generated secrets live. */
  dataDir?: string;
  /** Overrides the identity database (default: PGlite in dataDir). */
  databaseUrl?: string;
  apiAudience?: string;
  /** Print each service's log lines with a prefix. */
  echo?: boolean;
  /** Also run a gateway whose provider always fails (the e2e suite's provider-failure case). */
  withFailingGateway?: boolean;
  /**
   * Also run a gateway with SMS_ROUTES: numbers starting +1415 (the e2e suite's) go first to a regional webhook
   * that is down, then fail over to the outbox (with the route's sender, ROUTED_GATEWAY_SENDER);
   * the e2e suite's routed delivery case. Its WhatsApp route has only the provider that is down
   * (the e2e suite's channel fallback case).
   */
  withRoutedGateway?: boolean;
  env?: Record<string, string | undefined>;
  /**
   * The URL users reach identity at, when something sits in front of it (e.g. a TLS terminator):
   * identity's AUTH_URL (so its issuer and management audience), the airport API's AUTH_URL and
   * the URL seeding uses. Default: http://localhost:<identity port>.
   */
  publicAuthUrl?: string;
  /** Set on every service process on top of the launcher's own settings (e.g. NODE_EXTRA_CA_CERTS). */
  serviceEnv?: Record<string, string>;
  /**
   * Aborting it while the stack starts (a Ctrl-C, a supervisor's SIGTERM) stops every service
   * already spawned, spawns no more, and rejects: nothing is left holding the ports.
   */
  signal?: AbortSignal;
}

export interface StackUrls {
  authUrl: string;
  gatewayUrl: string;
  baseUrl: string;
  /** The gateway's delivery endpoint as the identity service calls it. */
  gatewayDeliveryUrl: string;
  failingGatewayDeliveryUrl?: string;
  /** The routed gateway's base URL (withRoutedGateway): deliveries at /sms, its outbox and /messages there. */
  routedGatewayUrl?: string;
  /** The demo web app (a page signing in through the hosted login, then calling the airport API). */
  demoAppUrl: string;
}

/** The sender of the routed gateway's +1415 route. */
export const ROUTED_GATEWAY_SENDER = '+14155550999';

export interface LaunchedStack {
  urls: StackUrls;
  tenant: SeededTenant;
  adminClientId: string;
  adminClientSecret: string;
  gatewayAuthSecret: string;
  apiAudience: string;
  /** How the main gateway delivers: `outbox` (the development default) or the passed-through SMS_PROVIDER / SMS_ROUTES. */
  gatewayDelivery: { provider: string; routes: boolean };
  services: Map<string, RunningService>;
  restart(name: ServiceName): Promise<void>;
  stop(): Promise<void>;
}

interface ServicePlan {
  key: string;
  name: ServiceName;
  port: number;
  env: Record<string, string>;
}

/**
 * The LOG_FORMAT the services get. Their stdout is a pipe, so on their own they would log JSON;
 * when their lines are echoed to a person's terminal (and not in production) they log readable
 * lines instead. A LOG_FORMAT the user set always wins.
 */
export function childLogFormat(env: Record<string, string | undefined>, echoedToTerminal: boolean): string | undefined {
  if (env.LOG_FORMAT) return env.LOG_FORMAT;
  return echoedToTerminal && env.NODE_ENV !== 'production' ? 'pretty' : undefined;
}

/**
 * Starts identity (which applies the demo tenant file and makes the demo number its first
 * operator), gateway and airport-api as processes, waits for readiness, reads the tenant's ids.
 */
export async function launchStack(options: LaunchOptions = {}): Promise<LaunchedStack> {
  const env = options.env ?? process.env;
  const ports = options.ports ?? DEFAULT_PORTS;
  const demoAppPort = ports.demoApp ?? (await freePort());
  const dataDir = options.dataDir ?? join(repoRoot, '.data');
  const state = loadOrCreateState(join(dataDir, 'stack.json'), env);
  const apiAudience = options.apiAudience ?? env.API_AUDIENCE ?? DEFAULT_API_AUDIENCE;
  const authUrl = options.publicAuthUrl ?? `http://localhost:${ports.identity}`;
  const gatewayUrl = `http://localhost:${ports.gateway}`;
  const urls: StackUrls = {
    authUrl,
    gatewayUrl,
    baseUrl: `http://localhost:${ports.airport}`,
    gatewayDeliveryUrl: `${gatewayUrl}/sms`,
    demoAppUrl: `http://localhost:${demoAppPort}`,
  };
  // The demo tenant is a tenant file identity applies at every start (its TENANT_FILE), and the
  // demo number its first operator: the same mechanism a deployment uses (docs/tenant-file.md).
  const tenantFile = join(dataDir, 'tenant.json');
  const providerSettings = gatewayProviderSettings(env);
  const gatewayDelivery = { provider: providerSettings.SMS_PROVIDER ?? 'outbox', routes: providerSettings.SMS_ROUTES !== undefined };
  const logFormat = childLogFormat(env, Boolean(options.echo && process.stdout.isTTY));
  const common = { ...options.serviceEnv, HOST: '127.0.0.1', NODE_ENV: 'development', LOG_LEVEL: env.LOG_LEVEL ?? 'info', ...(logFormat ? { LOG_FORMAT: logFormat } : {}) };

  const plans: ServicePlan[] = [
    {
      key: 'identity',
      name: 'identity',
      port: ports.identity,
      env: {
        ...common,
        AUTH_URL: authUrl,
        DATABASE_URL: options.databaseUrl ?? `pglite:${join(dataDir, 'identity')}`,
        ADMIN_CLIENT_ID: state.adminClientId,
        ADMIN_CLIENT_SECRET: state.adminClientSecret,
        // Generated once and kept in stack.json: signing keys and gateway secrets stored sealed,
        // as in production, and no warning on every start.
        KEY_ENCRYPTION_SECRET: env.KEY_ENCRYPTION_SECRET ?? state.keyEncryptionSecret,
        GATEWAY_URL_POLICY: 'any',
        TENANT_FILE: tenantFile,
        // What the tenant file's ${...} name: it holds no secret itself.
        [DEMO_TENANT_SECRETS.gatewayAuthSecret]: state.gatewayAuthSecret,
        [DEMO_TENANT_SECRETS.m2mClientSecret]: state.m2mClientSecret,
        FIRST_OPERATOR_PHONE_NUMBER: DEMO_PHONE_NUMBER,
        FIRST_OPERATOR_ROLE: 'Admin',
        // Every local request comes from 127.0.0.1: the production default (50 starts an hour per
        // IP) would lock the demo out after 25 `pnpm demo` runs. Per-number limits stay as shipped.
        PASSWORDLESS_START_LIMIT_PER_IP_PER_HOUR: env.PASSWORDLESS_START_LIMIT_PER_IP_PER_HOUR ?? '1000',
      },
    },
    {
      key: 'sms-delivery-gateway',
      name: 'sms-delivery-gateway',
      port: ports.gateway,
      env: {
        ...common,
        SMS_PROVIDER: 'outbox',
        ...providerSettings,
        GATEWAY_AUTH_SECRET: state.gatewayAuthSecret,
        GATEWAY_AUTH_AUDIENCE: urls.gatewayDeliveryUrl,
        GATEWAY_AUTH_SUBJECT: GATEWAY_AUTH_SUBJECT,
      },
    },
    {
      key: 'airport-api',
      name: 'airport-api',
      port: ports.airport,
      env: { ...common, AUTH_URL: authUrl, API_AUDIENCE: apiAudience },
    },
  ];
  if (options.withFailingGateway) {
    const port = await freePort();
    const deadPort = await freePort();
    urls.failingGatewayDeliveryUrl = `http://localhost:${port}/sms`;
    plans.push({
      key: 'failing-gateway',
      name: 'sms-delivery-gateway',
      port,
      // The webhook provider points at a port where nothing listens: every delivery fails.
      env: { ...common, SMS_PROVIDER: 'webhook', WEBHOOK_URL: `http://127.0.0.1:${deadPort}/nowhere` },
    });
  }

  if (options.withRoutedGateway) {
    const port = await freePort();
    const deadPort = await freePort();
    urls.routedGatewayUrl = `http://localhost:${port}`;
    plans.push({
      key: 'routed-gateway',
      name: 'sms-delivery-gateway',
      port,
      env: {
        ...common,
        SMS_PROVIDER: 'outbox',
        // Nothing listens on deadPort: the regional provider always fails, the outbox takes over.
        SMS_PROVIDER_INSTANCES: JSON.stringify({
          'regional-down': { provider: 'webhook', WEBHOOK_URL: `http://127.0.0.1:${deadPort}/send`, WEBHOOK_TIMEOUT_MS: '2000' },
        }),
        // WhatsApp goes only to the provider that is down: identity falls back to its next channel (the e2e channel fallback case).
        SMS_ROUTES: JSON.stringify({
          '+1415': { providers: ['regional-down', 'outbox'], sender: ROUTED_GATEWAY_SENDER },
          default: ['outbox'],
          'whatsapp:default': ['regional-down'],
        }),
      },
    });
  }

  // Otherwise another process answering /readyz there would pass for ours.
  for (const { port, key } of [...plans, { port: demoAppPort, key: 'demo web app' }]) {
    if (await isPortInUse(port)) {
      throw new Error(`port ${port} (${key}) is already in use: stop what runs there, or is a stack already up?`);
    }
  }

  writeDemoTenantFile(tenantFile, {
    gatewayDeliveryUrl: urls.gatewayDeliveryUrl,
    gatewayAuthAudience: urls.gatewayDeliveryUrl,
    gatewayAuthSubject: GATEWAY_AUTH_SUBJECT,
    apiAudience,
    demoAppUrl: urls.demoAppUrl,
  });

  const services = new Map<string, RunningService>();
  let demoApp: RunningDemoApp | undefined;
  const notAborted = () => {
    if (options.signal?.aborted) throw new Error('the stack was stopped while it started');
  };
  const start = async (plan: ServicePlan) => {
    notAborted();
    const service = spawnService({
      name: plan.name,
      env: { ...plan.env, PORT: String(plan.port) },
      ...(options.echo ? { onLine: echoWithPrefix(plan.key, plan.name) } : {}),
    });
    // In the map before it is ready, so that a failure elsewhere stops it too.
    services.set(plan.key, service);
    await waitForReady(`http://127.0.0.1:${plan.port}`, service);
  };
  const stop = async () => {
    await Promise.all([...services.values()].map((s) => s.stop()).concat(demoApp ? [demoApp.close()] : []));
  };

  // An abort ends the launch at once (the steps under way fail against stopped services, and
  // spawn nothing more: notAborted).
  const aborted = new Promise<never>((_resolve, reject) => {
    const onAbort = () => reject(new Error('the stack was stopped while it started'));
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener('abort', onAbort, { once: true });
  });
  const launch = launchServices();
  // Whichever of the two loses still settles; nobody waits for it.
  aborted.catch(() => undefined);
  launch.catch(() => undefined);
  try {
    return await Promise.race([launch, aborted]);
  } catch (err) {
    await stop();
    throw err;
  }

  async function launchServices(): Promise<LaunchedStack> {
    // The airport API fetches identity's JWKS at start, so it waits for identity; the gateways
    // need nothing from it and boot meanwhile (a warm `pnpm start` is then as long as identity's
    // boot plus the airport API's, not the sum of all three).
    const [identity, ...others] = plans;
    const afterIdentity = others.filter((plan) => plan.key === 'airport-api');
    await Promise.all([
      start(identity!).then(() => Promise.all(afterIdentity.map(start))),
      ...others.filter((plan) => !afterIdentity.includes(plan)).map(start),
    ]);
    const tenant = await readDemoTenant({
      authUrl,
      adminClientId: state.adminClientId,
      adminClientSecret: state.adminClientSecret,
      apiAudience,
      demoAppUrl: urls.demoAppUrl,
      m2mClientSecret: state.m2mClientSecret,
      operatorPhoneNumber: DEMO_PHONE_NUMBER,
    });
    saveState(join(dataDir, 'stack.json'), { ...state, m2mClientId: tenant.m2mClientId, demoClientId: tenant.demoClientId });
    notAborted();
    demoApp = await startDemoApp({
      port: demoAppPort,
      appUrl: urls.demoAppUrl,
      callbackUrl: demoAppCallbackUrl(urls.demoAppUrl),
      authUrl,
      apiUrl: urls.baseUrl,
      clientId: tenant.demoAppClientId!, // seeded: demoAppUrl was given above
      audience: apiAudience,
      connection: tenant.connectionName,
    });
    // Aborted while the demo app started: stop() ran before it existed.
    if (options.signal?.aborted) await demoApp.close();
    notAborted();

    return {
      urls,
      tenant,
      adminClientId: state.adminClientId,
      adminClientSecret: state.adminClientSecret,
      gatewayAuthSecret: state.gatewayAuthSecret,
      apiAudience,
      gatewayDelivery,
      services,
      stop,
      async restart(name) {
        const plan = plans.find((p) => p.key === name);
        const running = services.get(name);
        if (!plan || !running) throw new Error(`unknown service ${name}`);
        await running.stop();
        await start(plan);
      },
    };
  }
}
