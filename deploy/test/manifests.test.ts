import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseTenantDocument } from '@smsauth/identity/tenant-file';
import { parse } from 'yaml';
import {
  type ComposeFile,
  type ComposeService,
  fileExists,
  interpolateDefaults,
  objectShapeOf,
  type K8sContainer,
  type K8sDeploymentSpec,
  type K8sObject,
  readText,
  readYaml,
  readYamlDocuments,
  repoRoot,
  type ServiceName,
  serviceNames,
  services,
} from './support';

/** The example tenant file compose mounts and the k8s ConfigMap holds, as text. */
const TENANT_EXAMPLE = 'deploy/tenant.example.json';

/** The variables a tenant file names (`${NAME}`): identity reads them too, for the file. */
function tenantFileVariables(text: string): Set<string> {
  return new Set([...text.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g)].map((match) => match[1]!));
}

/** Env names a manifest sets that the service's config schema does not know (identity: nor its tenant file). */
function unknownNames(service: ServiceName, names: Iterable<string>): string[] {
  const tenantNames = service === 'identity' ? tenantFileVariables(readText(TENANT_EXAMPLE)) : new Set<string>();
  return [...names].filter((name) => !services[service].envNames.has(name) && !tenantNames.has(name));
}

/** What identity makes of a tenant file at start with this environment: the problem it would refuse to start with, or none. */
function tenantFileProblem(text: string, env: Record<string, string>): string | undefined {
  try {
    parseTenantDocument(JSON.parse(text), env, 'tenant file');
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

/** Runs the service's own config schema over an environment, as it would at start. */
function configProblems(service: ServiceName, env: Record<string, string>): string[] {
  const result = services[service].schema.safeParse(env);
  return result.success ? [] : result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
}

function withDefaults(environment: Record<string, string> | undefined): Record<string, string> {
  return Object.fromEntries(Object.entries(environment ?? {}).map(([name, value]) => [name, interpolateDefaults(String(value))]));
}

describe('deploy/compose.yaml', () => {
  const compose = readYaml<ComposeFile>('deploy/compose.yaml');
  const app = (name: ServiceName): ComposeService => {
    const service = compose.services[name];
    if (!service) throw new Error(`compose.yaml has no service ${name}`);
    return service;
  };

  it('runs the three services and PostgreSQL', () => {
    expect(Object.keys(compose.services).sort()).toEqual(['airport-api', 'identity', 'postgres', 'sms-delivery-gateway']);
  });

  describe.each(serviceNames)('%s', (name) => {
    const { port } = services[name];

    it('builds its image from its own Dockerfile at the repository root', () => {
      const service = app(name);
      expect(service.image).toMatch(new RegExp(`^smsauth/${name}:`));
      expect(service.build?.context).toBe('..');
      expect(service.build?.dockerfile).toBe(`deploy/Dockerfile.${name}`);
      expect(fileExists(`deploy/Dockerfile.${name}`)).toBe(true);
      expect(Object.keys(service.build?.args ?? {})).toContain('NODE_IMAGE');
      expect(interpolateDefaults(service.build?.args?.NODE_IMAGE ?? '')).toBe('node:20-bookworm-slim');
    });

    it('sets only environment variables the service reads', () => {
      expect(unknownNames(name, Object.keys(app(name).environment ?? {}))).toEqual([]);
    });

    it('gives an environment that passes the service config schema with the default values', () => {
      expect(configProblems(name, withDefaults(app(name).environment))).toEqual([]);
    });

    it('runs in production mode on the default port, published on loopback only', () => {
      const env = withDefaults(app(name).environment);
      expect(env.NODE_ENV).toBe('production');
      expect(Number(env.PORT)).toBe(port);
      expect(app(name).ports).toEqual([`127.0.0.1:${port}:${port}`]);
    });

    it('health-checks readiness on its own port', () => {
      const test = app(name).healthcheck?.test ?? [];
      expect(test[0]).toBe('CMD-SHELL');
      expect(test.join(' ')).toContain(`http://127.0.0.1:${port}/readyz`);
    });

    it('runs node as PID 1, as Kubernetes does, so the test stack stops the way pods stop', () => {
      expect(app(name).init).toBeUndefined();
    });
  });

  it('starts identity after PostgreSQL is healthy and connects to it by service name', () => {
    const identity = withDefaults(app('identity').environment);
    const postgres = withDefaults(compose.services.postgres?.environment);
    expect(app('identity').depends_on).toEqual({ postgres: { condition: 'service_healthy' } });
    const url = new URL(identity.DATABASE_URL ?? '');
    expect(url.protocol).toBe('postgres:');
    expect(url.hostname).toBe('postgres');
    expect(url.port).toBe('5432');
    expect(decodeURIComponent(url.username)).toBe(postgres.POSTGRES_USER);
    expect(decodeURIComponent(url.password)).toBe(postgres.POSTGRES_PASSWORD);
    expect(url.pathname).toBe(`/${postgres.POSTGRES_DB}`);
    expect(compose.services.postgres?.healthcheck?.test).toContain('pg_isready');
  });

  it('publishes identity at the AUTH_URL the host uses, and lets it deliver to the compose network', () => {
    const identity = withDefaults(app('identity').environment);
    expect(identity.AUTH_URL).toBe(`http://localhost:${services.identity.port}`);
    expect(identity.GATEWAY_URL_POLICY).toBe('any');
  });

  it("mounts the example tenant file read-only as identity's TENANT_FILE, which identity accepts with its environment", () => {
    const identity = withDefaults(app('identity').environment);
    expect(app('identity').volumes).toContain(`./tenant.example.json:${identity.TENANT_FILE}:ro`);
    expect(tenantFileProblem(readText(TENANT_EXAMPLE), identity)).toBeUndefined();
  });

  it("points the tenant file's connection at the gateway with the gateway's own settings, and its API at the airport API's audience", () => {
    const identity = withDefaults(app('identity').environment);
    const gateway = withDefaults(app('sms-delivery-gateway').environment);
    expect(identity.SMS_GATEWAY_URL).toBe(`http://sms-delivery-gateway:${services['sms-delivery-gateway'].port}/sms`);
    for (const name of ['GATEWAY_AUTH_SECRET', 'GATEWAY_AUTH_AUDIENCE', 'GATEWAY_AUTH_SUBJECT']) expect({ name, value: identity[name] }).toEqual({ name, value: gateway[name] });
    expect(identity.API_AUDIENCE).toBe(withDefaults(app('airport-api').environment).API_AUDIENCE);
    expect(identity.FIRST_OPERATOR_PHONE_NUMBER).toBeTruthy();
  });

  it('starts the airport API after identity is ready, with identity as its issuer', () => {
    const airport = withDefaults(app('airport-api').environment);
    expect(app('airport-api').depends_on).toEqual({ identity: { condition: 'service_healthy' } });
    expect(airport.AUTH_URL).toBe(withDefaults(app('identity').environment).AUTH_URL);
  });

  it('runs the gateway with the outbox readable by token and authenticated deliveries', () => {
    const gateway = withDefaults(app('sms-delivery-gateway').environment);
    expect(gateway.SMS_PROVIDER).toBe('outbox');
    expect(gateway.OUTBOX_TOKEN).toBeTruthy();
    expect(Buffer.byteLength(gateway.GATEWAY_AUTH_SECRET ?? '')).toBeGreaterThanOrEqual(32);
    // Tokens are pinned to this gateway: the audience is its delivery URL on the compose network.
    expect(gateway.GATEWAY_AUTH_AUDIENCE).toBe(`http://sms-delivery-gateway:${services['sms-delivery-gateway'].port}/sms`);
    expect(gateway.GATEWAY_AUTH_SUBJECT).toBeTruthy();
  });

  describe('the airport API document mounted as OPENAPI_FILE', () => {
    const airport = withDefaults(app('airport-api').environment);
    const mount = (app('airport-api').volumes ?? []).find((volume) => volume.split(':')[1] === airport.OPENAPI_FILE);
    const source = mount?.split(':')[0] ?? '';
    /** What the service does with its document at start: fill in AUTH_URL and API_AUDIENCE. */
    const rendered = (path: string) =>
      parse(
        readText(path)
          .replaceAll('${AUTH_URL}', airport.AUTH_URL ?? '')
          .replaceAll('${API_AUDIENCE}', airport.API_AUDIENCE ?? ''),
      ) as OpenApiDocument;
    const document = rendered(join('deploy', source));
    const [schemeName, scheme] = Object.entries(document.securityDefinitions ?? {})[0] ?? [];

    it('is mounted read-only from deploy/', () => {
      expect(mount).toBe(`./airport-api.openapi.yaml:${airport.OPENAPI_FILE}:ro`);
    });

    it('names the issuer the host sees and the JWKS address the container can reach', () => {
      expect(scheme?.type).toBe('oauth2');
      expect(scheme?.flow).toBe('implicit');
      expect(scheme?.['x-google-issuer']).toBe(`${airport.AUTH_URL}/`);
      expect(scheme?.authorizationUrl).toBe(`${airport.AUTH_URL}/authorize`);
      expect(scheme?.['x-google-jwks_uri']).toBe(`http://identity:${services.identity.port}/.well-known/jwks.json`);
      expect(scheme?.['x-google-audiences']).toBe(airport.API_AUDIENCE);
    });

    it('protects GET /airportName with that scheme', () => {
      const operation = document.paths?.['/airportName']?.get;
      expect(operation?.operationId).toBe('airportName');
      expect(operation?.security).toEqual([{ [schemeName ?? '']: [] }]);
    });

    it('is the service document with only the JWKS address changed', () => {
      const own = rendered('services/airport-api/openapi.yaml');
      const ownScheme = own.securityDefinitions?.[schemeName ?? ''];
      expect(ownScheme?.['x-google-jwks_uri']).toBe(`${airport.AUTH_URL}/.well-known/jwks.json`);
      if (ownScheme) ownScheme['x-google-jwks_uri'] = scheme?.['x-google-jwks_uri'] ?? '';
      expect(document).toEqual(own);
    });
  });
});

describe('deploy/compose.e2e.yaml and deploy/podman/compose.podman.yaml', () => {
  const e2e = readYaml<ComposeFile>('deploy/compose.e2e.yaml');
  const podman = readYaml<ComposeFile>('deploy/podman/compose.podman.yaml');

  it('adds a gateway whose provider always fails, configured with names the gateway reads', () => {
    const failing = e2e.services['sms-delivery-gateway-failing'];
    const env = withDefaults(failing?.environment);
    expect(failing?.image).toMatch(/^smsauth\/sms-delivery-gateway:/);
    expect(unknownNames('sms-delivery-gateway', Object.keys(env))).toEqual([]);
    expect(configProblems('sms-delivery-gateway', env)).toEqual([]);
    expect(env.SMS_PROVIDER).toBe('webhook');
  });

  it('builds the services on the local base image and PostgreSQL from its Containerfile', () => {
    for (const name of serviceNames) {
      expect(podman.services[name]?.build?.args?.NODE_IMAGE).toBe('localhost/node:20-bookworm-slim');
    }
    expect(podman.services.postgres?.image).toBe('localhost/smsauth/postgres:15');
    expect(fileExists(join('deploy/podman', podman.services.postgres?.build?.dockerfile ?? 'missing'))).toBe(true);
  });

  it('only overrides services that compose.yaml defines', () => {
    const base = readYaml<ComposeFile>('deploy/compose.yaml');
    expect(Object.keys(podman.services).filter((name) => !(name in base.services))).toEqual([]);
  });
});

describe('deploy/compose.production.yaml: the runbook stack behind TLS', () => {
  const text = readText('deploy/compose.production.yaml');
  const compose = readYaml<ComposeFile>('deploy/compose.production.yaml');
  const outbox = readYaml<ComposeFile>('deploy/compose.production.outbox.yaml');
  const podman = readYaml<ComposeFile>('deploy/podman/compose.production.podman.yaml');
  /** What the operator sets before `up` (docs/production.md, "The first start"). */
  const given: Record<string, string> = {
    AUTH_HOST: 'auth.example.com',
    GATEWAY_HOST: 'sms-gateway.example.com',
    FIRST_OPERATOR_PHONE_NUMBER: '+14155550123',
    TWILIO_ACCOUNT_SID: 'AC0123456789abcdef0123456789abcdef',
    TWILIO_FROM: '+14155550100',
  };
  /** Compose interpolation with `given` for the variables the operator sets, the file's defaults otherwise. */
  const interpolate = (value: string): string =>
    value
      .replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?])([^}]*))?\}/g, (_match, name: string, op?: string, argument?: string) => {
        if (given[name] !== undefined) return given[name]!;
        if (op?.endsWith('?')) throw new Error(`${name} is required (${argument})`);
        return argument ?? '';
      })
      .replace(/\$\$/g, '$');
  const service = (file: ComposeFile, name: string): ComposeService => {
    const found = file.services[name];
    if (!found) throw new Error(`no service ${name}`);
    return found;
  };
  const environment = (name: string, ...files: ComposeFile[]): Record<string, string> =>
    Object.fromEntries(
      [compose, ...files].flatMap((file) => Object.entries(file.services[name]?.environment ?? {})).map(([key, value]) => [key, interpolate(String(value))]),
    );
  /** The names a service's schema marks secret (they alone may come from `<NAME>_FILE`). */
  const secretNames = (name: ServiceName) =>
    Object.entries(objectShapeOf(services[name].schema))
      .filter(([, field]) => (field as unknown as { meta(): { secret?: boolean } | undefined }).meta()?.secret === true)
      .map(([key]) => key);
  /** Stand-ins for what the secret files hold, to run the schemas over. */
  const urls: Record<string, string> = { DATABASE_URL: 'postgres://smsauth:pw@postgres:5432/identity', REDIS_URL: 'redis://:pw@redis:6379' };
  const secretValue = (variable: string) => urls[variable] ?? 'a-secret-of-at-least-32-characters-long-0000';
  /** The environment the service sees once each `<NAME>_FILE` is read, as loadConfig does. */
  const resolved = (name: ServiceName, ...files: ComposeFile[]): Record<string, string> => {
    const env = environment(name, ...files);
    for (const key of Object.keys(env).filter((k) => k.endsWith('_FILE') && k !== 'TENANT_FILE')) {
      env[key.slice(0, -'_FILE'.length)] = secretValue(key.slice(0, -'_FILE'.length));
      delete env[key];
    }
    return env;
  };

  it('runs identity and the gateway behind a TLS terminator, with PostgreSQL and the gateway\'s Redis', () => {
    expect(Object.keys(compose.services).sort()).toEqual(['identity', 'postgres', 'redis', 'sms-delivery-gateway', 'tls-proxy']);
  });

  it('gives the gateway a Redis whose password is in files only: its config for Redis, its URL for the gateway', () => {
    const redis = service(compose, 'redis');
    expect(redis.command).toEqual(['redis-server', '/run/secrets/redis-config']);
    expect(redis.secrets).toEqual(['redis-config']);
    expect(redis.environment ?? {}).toEqual({});
    expect(environment('sms-delivery-gateway')).toMatchObject({ REDIS_URL_FILE: '/run/secrets/redis-url' });
    expect(service(compose, 'sms-delivery-gateway').depends_on).toEqual({ redis: { condition: 'service_healthy' } });
    expect(podman.services.redis?.image).toBe('localhost/smsauth/redis:7');
    const containerfile = readText('deploy/podman/Containerfile.redis');
    expect(containerfile).toMatch(/--uid 999 /);
    expect(containerfile).toMatch(/^USER redis$/m);
  });

  it('requires the host names, the first operator and the Twilio account, and has no default secret', () => {
    const required = [...text.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*):\?/g)].map((match) => match[1]);
    expect([...new Set(required)].sort()).toEqual(Object.keys(given).sort());
    for (const name of ['identity', 'sms-delivery-gateway'] as const) {
      const env = environment(name);
      for (const secret of secretNames(name)) expect({ secret, inEnvironment: secret in env }).toEqual({ secret, inEnvironment: false });
    }
  });

  it('publishes nothing but the TLS terminator', () => {
    for (const [name, svc] of Object.entries(compose.services)) {
      expect({ name, ports: svc.ports ?? [] }).toEqual({ name, ports: name === 'tls-proxy' ? ['${SMSAUTH_HTTPS_PUBLISH:-443}:8443'] : [] });
    }
  });

  describe.each(['identity', 'sms-delivery-gateway'] as const)('%s', (name) => {
    it('sets only variables the service reads, and reads every secret from a file compose mounts', () => {
      const env = environment(name, outbox);
      const files = Object.keys(env).filter((key) => key.endsWith('_FILE') && key !== 'TENANT_FILE');
      expect(unknownNames(name, Object.keys(env).filter((key) => !files.includes(key)))).toEqual([]);
      for (const fileVariable of files) {
        const secret = fileVariable.slice(0, -'_FILE'.length);
        // identity reads GATEWAY_AUTH_SECRET for its tenant file, by the same rules.
        expect({ fileVariable, secret: secretNames(name).includes(secret) || tenantFileVariables(readText(TENANT_EXAMPLE)).has(secret) }).toEqual({ fileVariable, secret: true });
        const mounted = env[fileVariable]!.replace('/run/secrets/', '');
        expect([...(service(compose, name).secrets ?? []), ...(outbox.services[name]?.secrets ?? [])]).toContain(mounted);
        expect({ ...compose.secrets, ...outbox.secrets }[mounted]?.file).toBe(`\${SMSAUTH_SECRETS_DIR:-./secrets}/${mounted}`);
      }
    });

    it('passes the service config schema in production, with and without the outbox', () => {
      for (const files of [[], [outbox]]) {
        const env = resolved(name, ...files);
        expect(configProblems(name, env)).toEqual([]);
        expect(env.NODE_ENV).toBe('production');
        expect(env.TRUST_PROXY).toBe('1');
      }
    });
  });

  it('gives identity its https AUTH_URL, PostgreSQL, the tenant file and the first operator', () => {
    const identity = environment('identity');
    expect(identity.AUTH_URL).toBe(`https://${given.AUTH_HOST}`);
    expect(service(compose, 'identity').depends_on).toEqual({ postgres: { condition: 'service_healthy' } });
    expect(service(compose, 'identity').volumes).toContain(`\${SMSAUTH_TENANT_FILE:-./tenant.example.json}:${identity.TENANT_FILE}:ro`);
    // The tenant file's ${GATEWAY_AUTH_SECRET} comes from the file GATEWAY_AUTH_SECRET_FILE names.
    const dir = mkdtempSync(join(tmpdir(), 'smsauth-deploy-'));
    try {
      writeFileSync(join(dir, 'gateway-auth-secret'), `${secretValue('GATEWAY_AUTH_SECRET')}\n`);
      const tenantEnv = { ...identity, GATEWAY_AUTH_SECRET_FILE: join(dir, 'gateway-auth-secret') };
      expect(tenantFileProblem(readText(TENANT_EXAMPLE), tenantEnv)).toBeUndefined();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expect(identity.FIRST_OPERATOR_PHONE_NUMBER).toBe(given.FIRST_OPERATOR_PHONE_NUMBER);
    const postgres = environment('postgres');
    expect(postgres.POSTGRES_PASSWORD_FILE).toBe('/run/secrets/postgres-password');
    expect(service(compose, 'postgres').secrets).toEqual(['postgres-password']);
  });

  it("delivers to the gateway with the gateway's own audience, subject and secret file", () => {
    const identity = environment('identity');
    const gateway = environment('sms-delivery-gateway');
    for (const name of ['GATEWAY_AUTH_SECRET_FILE', 'GATEWAY_AUTH_AUDIENCE', 'GATEWAY_AUTH_SUBJECT']) expect({ name, value: identity[name] }).toEqual({ name, value: gateway[name] });
    expect(identity.SMS_GATEWAY_URL).toBe(gateway.GATEWAY_AUTH_AUDIENCE);
    expect(gateway.GATEWAY_PUBLIC_URL).toBe(`https://${given.GATEWAY_HOST}`);
    expect(gateway.SMS_PROVIDER).toBe('twilio');
    expect(environment('sms-delivery-gateway', outbox)).toMatchObject({ SMS_PROVIDER: 'outbox', OUTBOX_TOKEN_FILE: '/run/secrets/outbox-token' });
  });

  it('gives the TLS terminator the host names, the certificate and its key, and routes each host to its service', () => {
    const proxy = service(compose, 'tls-proxy');
    expect(environment('tls-proxy')).toEqual({ AUTH_HOST: given.AUTH_HOST, GATEWAY_HOST: given.GATEWAY_HOST });
    expect(proxy.secrets).toEqual(['tls-certificate', 'tls-key']);
    expect(proxy.build?.context).toBe('tls');
    expect(proxy.depends_on).toEqual({ identity: { condition: 'service_healthy' }, 'sms-delivery-gateway': { condition: 'service_healthy' } });
    const caddyfile = readText('deploy/tls/Caddyfile');
    expect(caddyfile).toContain('tls /run/secrets/tls-certificate /run/secrets/tls-key');
    const site = (host: string) => new RegExp(`\\{\\$${host}\\} \\{[^}]*import tls_from_secrets[^}]*reverse_proxy ([^\\s]+)`).exec(caddyfile)?.[1];
    expect(site('AUTH_HOST')).toBe(`identity:${services.identity.port}`);
    expect(site('GATEWAY_HOST')).toBe(`sms-delivery-gateway:${services['sms-delivery-gateway'].port}`);
    expect(caddyfile).toMatch(/https_port 8443/);
  });

  it('builds the TLS terminator from Debian on a base-image argument, as a non-root user', () => {
    const dockerfile = readText('deploy/tls/Dockerfile');
    expect(dockerfile).toMatch(/^ARG DEBIAN_IMAGE=debian:bookworm-slim$/m);
    expect(dockerfile).toMatch(/^FROM \$\{DEBIAN_IMAGE\}$/m);
    expect(dockerfile).toMatch(/^USER 1000:1000$/m);
    expect(dockerfile).toMatch(/^CMD \["caddy", "run"/m);
    expect(podman.services['tls-proxy']?.build?.args?.DEBIAN_IMAGE).toBe('localhost/debian:bookworm-slim');
  });

  it('has podman and outbox overrides only for services it defines', () => {
    expect(Object.keys(podman.services).filter((name) => !(name in compose.services))).toEqual([]);
    expect(Object.keys(outbox.services)).toEqual(['sms-delivery-gateway']);
    expect(podman.services.postgres?.image).toBe('localhost/smsauth/postgres:15');
  });
});

describe('deploy/compose.redis.yaml: the gateway with Redis', () => {
  const base = readYaml<ComposeFile>('deploy/compose.yaml');
  const redis = readYaml<ComposeFile>('deploy/compose.redis.yaml');

  it('adds a health-checked Redis that is not published, and starts the gateway after it', () => {
    expect(redis.services.redis?.image).toMatch(/^redis:7/);
    expect(redis.services.redis?.healthcheck?.test).toEqual(['CMD', 'redis-cli', 'ping']);
    expect((redis.services.redis as { ports?: string[] }).ports).toBeUndefined();
    expect(redis.services['sms-delivery-gateway']?.depends_on).toEqual({ redis: { condition: 'service_healthy' } });
  });

  it('gives the gateway a REDIS_URL on the compose network that its config schema accepts', () => {
    const env = { ...withDefaults(base.services['sms-delivery-gateway']?.environment), ...withDefaults(redis.services['sms-delivery-gateway']?.environment) };
    expect(unknownNames('sms-delivery-gateway', Object.keys(env))).toEqual([]);
    expect(configProblems('sms-delivery-gateway', env)).toEqual([]);
    expect(env.REDIS_URL).toBe('redis://redis:6379');
  });

  it('only overrides services that compose.yaml defines, besides Redis itself', () => {
    expect(Object.keys(redis.services).filter((name) => !(name in base.services))).toEqual(['redis']);
  });
});

describe('deploy/k8s/redis: the Redis option as a kustomize Component', () => {
  interface Component {
    kind: string;
    resources: string[];
    patches: Array<{ target: { kind: string; name: string }; patch: string }>;
  }
  const component = readYaml<Component>('deploy/k8s/redis/kustomization.yaml');
  const secrets = readYamlDocuments('deploy/k8s')
    .map(({ doc }) => doc)
    .filter((doc) => doc.kind === 'Secret');
  const patchOf = (kind: string) =>
    parse(component.patches.find((p) => p.target.kind === kind && p.target.name === 'sms-delivery-gateway')?.patch ?? '[]') as Array<{
      op: string;
      path: string;
      value: unknown;
    }>;

  it('is a Component listing files that exist', () => {
    expect(component.kind).toBe('Component');
    for (const file of component.resources) expect(fileExists(join('deploy/k8s/redis', file))).toBe(true);
  });

  it('adds REDIS_URL to the gateway from a Secret the template defines, with a value the config schema accepts', () => {
    const [add] = patchOf('Deployment');
    expect(add).toMatchObject({ op: 'add', path: '/spec/template/spec/containers/0/env/-' });
    const entry = add?.value as { name: string; valueFrom: { secretKeyRef: { name: string; key: string } } };
    expect(entry.name).toBe('REDIS_URL');
    const secret = secrets.find((doc) => doc.metadata.name === entry.valueFrom.secretKeyRef.name);
    const value = secret?.stringData?.[entry.valueFrom.secretKeyRef.key] ?? '';
    expect(value).toMatch(/CHANGE_ME/);
    const env = { ...(readYamlDocuments('deploy/k8s').find(({ doc }) => doc.kind === 'ConfigMap' && doc.metadata.name === 'sms-delivery-gateway-config')?.doc.data ?? {}) };
    const gatewaySecrets = secrets.find((doc) => doc.metadata.name === 'sms-delivery-gateway-secrets')?.stringData ?? {};
    expect(configProblems('sms-delivery-gateway', { ...env, ...gatewaySecrets, REDIS_URL: value })).toEqual([]);
  });

  it('drops the client affinity and autoscales the gateway, since any pod can serve any retry', () => {
    expect(patchOf('Service')).toEqual([{ op: 'replace', path: '/spec/sessionAffinity', value: 'None' }]);
    const [hpa] = readYamlDocuments('deploy/k8s/redis').filter(({ doc }) => doc.kind === 'HorizontalPodAutoscaler');
    expect(hpa?.doc.spec).toMatchObject({ scaleTargetRef: { kind: 'Deployment', name: 'sms-delivery-gateway' }, minReplicas: 2 });
  });
});

interface OpenApiDocument {
  paths?: Record<string, Record<string, { operationId?: string; security?: unknown[] }>>;
  securityDefinitions?: Record<string, Record<string, string>>;
}

describe('deploy/k8s', () => {
  const objects = readYamlDocuments('deploy/k8s');
  const ofKind = (kind: string) => objects.filter(({ doc }) => doc.kind === kind).map(({ doc }) => doc);
  const named = (kind: string, name: string): K8sObject | undefined => ofKind(kind).find((doc) => doc.metadata.name === name);
  const deployment = (name: ServiceName) => {
    const doc = named('Deployment', name);
    if (!doc) throw new Error(`no Deployment ${name}`);
    return doc.spec as unknown as K8sDeploymentSpec;
  };
  const container = (name: ServiceName): K8sContainer => {
    const found = deployment(name).template.spec.containers.find((c) => c.name === name);
    if (!found) throw new Error(`Deployment ${name} has no container ${name}`);
    return found;
  };
  const secretsTemplate = ofKind('Secret');

  /** The environment a container gets: its ConfigMaps, then its env entries (Secret values from the template). */
  function environmentOf(name: ServiceName): Record<string, string> {
    const c = container(name);
    const env: Record<string, string> = {};
    for (const source of c.envFrom ?? []) {
      if (source.configMapRef) Object.assign(env, named('ConfigMap', source.configMapRef.name)?.data ?? {});
      if (source.secretRef) Object.assign(env, secretsTemplate.find((s) => s.metadata.name === source.secretRef?.name)?.stringData ?? {});
    }
    for (const entry of c.env ?? []) {
      const ref = entry.valueFrom?.secretKeyRef;
      env[entry.name] = ref ? (secretsTemplate.find((s) => s.metadata.name === ref.name)?.stringData?.[ref.key] ?? '') : (entry.value ?? '');
    }
    return env;
  }

  it('lists every manifest in the kustomization, and keeps the Secret template out of it', () => {
    const kustomization = readYaml<{ resources: string[]; images: Array<{ name: string }> }>('deploy/k8s/kustomization.yaml');
    const manifests = readdirSync(join(repoRoot, 'deploy/k8s')).filter(
      (file) => file.endsWith('.yaml') && file !== 'kustomization.yaml' && file !== 'secrets.template.yaml',
    );
    expect([...kustomization.resources].sort()).toEqual(manifests.sort());
    expect(kustomization.images.map((image) => image.name).sort()).toEqual(
      serviceNames.map((name) => container(name).image.replace(/:[^:/]+$/, '')).sort(),
    );
  });

  it('keeps only placeholders in the Secret template', () => {
    for (const secret of secretsTemplate) {
      for (const [key, value] of Object.entries(secret.stringData ?? {})) {
        expect({ key, placeholder: /CHANGE_ME|^AC0{32}$/.test(value) }).toEqual({ key, placeholder: true });
      }
    }
  });

  describe.each(serviceNames)('%s', (name) => {
    const { port } = services[name];

    it('runs the service image on the service port', () => {
      const c = container(name);
      expect(c.image).toMatch(new RegExp(`/smsauth/${name}:[\\w.-]+$`));
      expect(c.ports).toEqual([{ name: 'http', containerPort: port }]);
      const service = named('Service', name);
      expect(service?.spec).toMatchObject({ selector: deployment(name).selector.matchLabels, ports: [{ port, targetPort: 'http' }] });
    });

    it('selects its own pods', () => {
      expect(deployment(name).template.metadata.labels).toMatchObject(deployment(name).selector.matchLabels);
    });

    it('sets only environment variables the service reads', () => {
      expect(unknownNames(name, Object.keys(environmentOf(name)))).toEqual([]);
    });

    it('gives an environment that passes the service config schema, in production, on the default port', () => {
      const env = environmentOf(name);
      expect(configProblems(name, env)).toEqual([]);
      expect(env.NODE_ENV).toBe('production');
      expect(Number(env.PORT)).toBe(port);
    });

    it('takes secret values from Secrets that the template defines', () => {
      for (const entry of container(name).env ?? []) {
        const ref = entry.valueFrom?.secretKeyRef;
        expect(ref).toBeDefined();
        const secret = secretsTemplate.find((s) => s.metadata.name === ref?.name);
        expect(Object.keys(secret?.stringData ?? {})).toContain(ref?.key);
      }
    });

    it('probes liveness on /healthz and readiness on /readyz', () => {
      const c = container(name);
      expect(c.livenessProbe?.httpGet).toEqual({ path: '/healthz', port: 'http' });
      expect(c.readinessProbe?.httpGet).toEqual({ path: '/readyz', port: 'http' });
      expect(c.startupProbe?.httpGet).toEqual({ path: '/healthz', port: 'http' });
    });

    it('requests and limits CPU and memory', () => {
      const { resources } = container(name);
      for (const bound of [resources?.requests, resources?.limits]) {
        expect(Object.keys(bound ?? {}).sort()).toEqual(['cpu', 'memory']);
      }
    });

    it('runs as a non-root user on a read-only root filesystem without privileges', () => {
      const pod = deployment(name).template.spec;
      expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 1000, seccompProfile: { type: 'RuntimeDefault' } });
      expect(container(name).securityContext).toEqual({
        allowPrivilegeEscalation: false,
        readOnlyRootFilesystem: true,
        capabilities: { drop: ['ALL'] },
      });
    });

    it('gives the 10 s drain time to finish before the kill', () => {
      expect(deployment(name).template.spec.terminationGracePeriodSeconds).toBeGreaterThan(15);
    });

    it('has a PodDisruptionBudget over its pods that keeps one running', () => {
      const pdb = named('PodDisruptionBudget', name);
      expect(pdb?.spec).toEqual({ minAvailable: 1, selector: { matchLabels: deployment(name).selector.matchLabels } });
      expect(deployment(name).replicas).toBeGreaterThanOrEqual(2);
    });
  });

  it.each(['identity', 'airport-api'] as const)('autoscales %s on CPU from two replicas', (name) => {
    const hpa = named('HorizontalPodAutoscaler', name);
    expect(hpa?.apiVersion).toBe('autoscaling/v2');
    expect(hpa?.spec).toMatchObject({
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name },
      minReplicas: 2,
      metrics: [{ type: 'Resource', resource: { name: 'cpu' } }],
    });
  });

  it('does not autoscale the gateway, whose idempotency store is per pod, and pins callers to a pod', () => {
    expect(named('HorizontalPodAutoscaler', 'sms-delivery-gateway')).toBeUndefined();
    expect(named('Service', 'sms-delivery-gateway')?.spec).toMatchObject({ sessionAffinity: 'ClientIP' });
    expect(environmentOf('sms-delivery-gateway').SMS_PROVIDER).not.toBe('outbox');
  });

  it('mounts the identity-tenant ConfigMap, the example tenant file word for word, read-only at TENANT_FILE', () => {
    const env = environmentOf('identity');
    const pod = deployment('identity').template.spec as unknown as {
      volumes: Array<{ name: string; configMap?: { name: string } }>;
      containers: Array<{ name: string; volumeMounts: Array<{ name: string; mountPath: string; readOnly?: boolean }> }>;
    };
    const volume = pod.volumes.find((v) => v.configMap?.name === 'identity-tenant');
    const mount = pod.containers.find((c) => c.name === 'identity')?.volumeMounts.find((m) => m.name === volume?.name);
    expect(mount).toMatchObject({ readOnly: true });
    expect(`${mount?.mountPath}/tenant.json`).toBe(env.TENANT_FILE);
    const text = named('ConfigMap', 'identity-tenant')?.data?.['tenant.json'] ?? '';
    expect(JSON.parse(text)).toEqual(JSON.parse(readText(TENANT_EXAMPLE)));
    expect(tenantFileProblem(text, env)).toBeUndefined();
  });

  it("points the tenant file's connection at the gateway with the gateway's own settings, and its API at the airport API's audience", () => {
    const identity = environmentOf('identity');
    const gateway = environmentOf('sms-delivery-gateway');
    for (const name of ['GATEWAY_AUTH_SECRET', 'GATEWAY_AUTH_AUDIENCE', 'GATEWAY_AUTH_SUBJECT']) expect({ name, value: identity[name] }).toEqual({ name, value: gateway[name] });
    expect(identity.SMS_GATEWAY_URL).toBe(gateway.GATEWAY_AUTH_AUDIENCE);
    expect(identity.API_AUDIENCE).toBe(environmentOf('airport-api').API_AUDIENCE);
  });

  describe('ingress.yaml: TLS in front of identity and the gateway', () => {
    interface IngressSpec {
      ingressClassName?: string;
      tls: Array<{ hosts: string[]; secretName: string }>;
      rules: Array<{ host: string; http: { paths: Array<{ path: string; backend: { service: { name: string; port: { name: string } } } }> } }>;
    }
    const ingress = (name: ServiceName) => {
      const doc = named('Ingress', name);
      if (!doc) throw new Error(`no Ingress ${name}`);
      return doc.spec as unknown as IngressSpec;
    };

    it.each([
      ['identity', () => new URL(environmentOf('identity').AUTH_URL ?? '').hostname],
      ['sms-delivery-gateway', () => new URL(environmentOf('sms-delivery-gateway').GATEWAY_PUBLIC_URL ?? '').hostname],
    ] as const)('serves %s on its public host, over TLS only, at the Service port', (name, publicHost) => {
      const spec = ingress(name);
      expect(spec.rules.map((rule) => rule.host)).toEqual([publicHost()]);
      expect(spec.tls.flatMap((entry) => entry.hosts)).toEqual([publicHost()]);
      const backend = spec.rules[0]!.http.paths[0]!.backend.service;
      expect(backend.name).toBe(name);
      const servicePorts = (named('Service', name)?.spec as { ports: Array<{ name: string; port: number }> }).ports;
      expect(servicePorts.map((port) => port.name)).toContain(backend.port.name);
      // The TLS Secret is one the template defines, of the type controllers read.
      const secret = secretsTemplate.find((s) => s.metadata.name === spec.tls[0]!.secretName);
      expect(secret?.type).toBe('kubernetes.io/tls');
      expect(Object.keys(secret?.stringData ?? {}).sort()).toEqual(['tls.crt', 'tls.key']);
    });

    it('makes identity an https issuer that trusts one proxy, and delivers through the gateway host', () => {
      const identity = environmentOf('identity');
      expect(identity.AUTH_URL).toMatch(/^https:\/\//);
      expect(identity.TRUST_PROXY).toBe('1');
      expect(environmentOf('sms-delivery-gateway').TRUST_PROXY).toBe('1');
      expect(new URL(identity.SMS_GATEWAY_URL ?? '').origin).toBe(environmentOf('sms-delivery-gateway').GATEWAY_PUBLIC_URL);
    });

    it("keeps a retried delivery on one gateway pod, since the controller bypasses the Service's affinity", () => {
      expect(named('Ingress', 'sms-delivery-gateway')?.metadata).toMatchObject({
        annotations: { 'nginx.ingress.kubernetes.io/upstream-hash-by': '$binary_remote_addr' },
      });
    });
  });

  it('stores identity in PostgreSQL, never PGlite', () => {
    expect(environmentOf('identity').DATABASE_URL).toMatch(/^postgres(ql)?:\/\//);
  });

  it('uses the identity issuer as the airport API AUTH_URL', () => {
    expect(environmentOf('airport-api').AUTH_URL).toBe(environmentOf('identity').AUTH_URL);
  });
});
