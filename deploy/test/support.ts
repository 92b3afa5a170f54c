import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { configSchema as airportApiSchema } from '@smsauth/airport-api/config';
import { configSchema as identitySchema } from '@smsauth/identity/config';
import { configSchema as gatewaySchema } from '@smsauth/sms-delivery-gateway/config';
import { parse, parseAllDocuments } from 'yaml';
import type { z } from 'zod';

export const deployDir = resolve(__dirname, '..');
export const repoRoot = resolve(deployDir, '..');

export type ServiceName = 'identity' | 'sms-delivery-gateway' | 'airport-api';

export interface ServiceFacts {
  name: ServiceName;
  schema: z.ZodType;
  /** Names the service reads from its environment: the keys of its config schema. */
  envNames: Set<string>;
  /** The schema's PORT default: the port the service listens on unless told otherwise. */
  port: number;
}

const schemas: Record<ServiceName, z.ZodType> = {
  identity: identitySchema,
  'sms-delivery-gateway': gatewaySchema,
  'airport-api': airportApiSchema,
};

export const serviceNames = Object.keys(schemas) as ServiceName[];

export const services: Record<ServiceName, ServiceFacts> = Object.fromEntries(
  serviceNames.map((name) => {
    const shape = objectShapeOf(schemas[name]);
    const portField = shape.PORT;
    if (!portField) throw new Error(`${name}: config schema has no PORT`);
    return [name, { name, schema: schemas[name], envNames: new Set(Object.keys(shape)), port: Number(portField.parse(undefined)) }];
  }),
) as Record<ServiceName, ServiceFacts>;

interface ZodInternals {
  _zod: { def: { type: string; shape?: Record<string, z.ZodType>; in?: z.ZodType; out?: z.ZodType; innerType?: z.ZodType; getter?: () => z.ZodType } };
}

/**
 * The field map of a config schema, through the wrappers zod 4 puts around a z.object:
 * `.transform()` and `.pipe()` make a pipe (the object is its input, or its output for
 * preprocess), `.superRefine()` keeps the object, optional/default/readonly/catch wrap it.
 */
export function objectShapeOf(schema: z.ZodType): Record<string, z.ZodType> {
  const def = (schema as unknown as ZodInternals)._zod.def;
  switch (def.type) {
    case 'object':
      return def.shape ?? {};
    case 'pipe':
      for (const side of [def.in, def.out]) {
        if (!side) continue;
        try {
          return objectShapeOf(side);
        } catch {
          // this side is a transform: try the other one
        }
      }
      break;
    case 'optional':
    case 'nullable':
    case 'default':
    case 'prefault':
    case 'readonly':
    case 'catch':
      if (def.innerType) return objectShapeOf(def.innerType);
      break;
    case 'lazy':
      if (def.getter) return objectShapeOf(def.getter());
      break;
  }
  throw new Error(`not an object schema (zod type "${def.type}")`);
}

export function readText(path: string): string {
  return readFileSync(join(repoRoot, path), 'utf8');
}

export function fileExists(path: string): boolean {
  return existsSync(join(repoRoot, path));
}

export function readYaml<T = unknown>(path: string): T {
  return parse(readText(path)) as T;
}

/** Every document of every .yaml file in a directory, with the file it came from. */
export function readYamlDocuments(dir: string): Array<{ file: string; doc: K8sObject }> {
  return readdirSync(join(repoRoot, dir))
    .filter((file) => file.endsWith('.yaml'))
    .sort()
    .flatMap((file) =>
      parseAllDocuments(readText(join(dir, file))).map((document) => {
        if (document.errors.length > 0) throw new Error(`${dir}/${file}: ${document.errors[0]?.message}`);
        return { file, doc: document.toJS() as K8sObject };
      }),
    );
}

/**
 * Compose-style interpolation with the defaults written in the file: `${X:-default}`,
 * `${X-default}`, `${X}` (empty) and `$$`. What a plain `docker compose up` uses.
 */
export function interpolateDefaults(value: string): string {
  return value
    .replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::?-([^}]*))?\}/g, (_match, _name: string, fallback?: string) => fallback ?? '')
    .replace(/\$\$/g, '$');
}

// ---- the parts of the manifests the tests read ------------------------------------------------

export interface ComposeFile {
  services: Record<string, ComposeService>;
  volumes?: Record<string, unknown>;
  secrets?: Record<string, { file?: string }>;
}

export interface ComposeService {
  image?: string;
  command?: string[];
  build?: { context?: string; dockerfile?: string; args?: Record<string, string> };
  environment?: Record<string, string>;
  ports?: string[];
  volumes?: string[];
  depends_on?: Record<string, { condition?: string }>;
  healthcheck?: { test?: string[] };
  init?: boolean;
  secrets?: string[];
}

export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  data?: Record<string, string>;
  stringData?: Record<string, string>;
  spec?: Record<string, unknown>;
  [key: string]: unknown;
}

export interface K8sProbe {
  httpGet?: { path?: string; port?: string | number };
}

export interface K8sContainer {
  name: string;
  image: string;
  ports?: Array<{ name?: string; containerPort: number }>;
  envFrom?: Array<{ configMapRef?: { name: string }; secretRef?: { name: string } }>;
  env?: Array<{ name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string }; configMapKeyRef?: { name: string; key: string } } }>;
  livenessProbe?: K8sProbe;
  readinessProbe?: K8sProbe;
  startupProbe?: K8sProbe;
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  securityContext?: {
    allowPrivilegeEscalation?: boolean;
    readOnlyRootFilesystem?: boolean;
    runAsNonRoot?: boolean;
    capabilities?: { drop?: string[] };
  };
}

export interface K8sPodSpec {
  securityContext?: { runAsNonRoot?: boolean; runAsUser?: number; seccompProfile?: { type?: string } };
  containers: K8sContainer[];
  terminationGracePeriodSeconds?: number;
}

export interface K8sDeploymentSpec {
  replicas?: number;
  selector: { matchLabels: Record<string, string> };
  template: { metadata: { labels: Record<string, string> }; spec: K8sPodSpec };
}
