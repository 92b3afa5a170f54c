import {
  OpenApi2DocumentSchema,
  readSecurityExtensions,
  type JwtLocation,
  type OpenApi2Document,
} from '@smsauth/contracts';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { compilePathTemplate, type PathTemplate } from './path-template';

/** Where the token is looked for when a scheme lists no `x-<vendor>-jwt-locations`. */
export const DEFAULT_JWT_LOCATIONS: readonly JwtLocation[] = [
  { header: 'Authorization', value_prefix: 'Bearer ' },
  { query: 'access_token' },
];

/** One `securityDefinitions` entry that asks for a JWT. */
export interface JwtScheme {
  name: string;
  issuer: string;
  jwksUri: string;
  audiences: string[];
  jwtLocations: readonly JwtLocation[];
}

/** All schemes of one requirement must pass (AND); scopes listed must all be in the token. */
export interface SecurityRequirement {
  schemes: Array<{ scheme: JwtScheme; scopes: string[] }>;
}

export interface GatewayOperation {
  method: string;
  /** basePath + path template, e.g. `/v1/things/{id}`. */
  route: string;
  operationId: string;
  path: PathTemplate;
  /** Alternatives (OR). Empty: the operation is open. */
  security: SecurityRequirement[];
}

export interface CompiledDocument {
  document: OpenApi2Document;
  operations: GatewayOperation[];
  schemes: JwtScheme[];
}

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch'] as const;

const SecurityListSchema = z.array(z.record(z.string(), z.array(z.string())));
const OperationSchema = z.looseObject({
  operationId: z.string().min(1, 'operationId is required: handlers are bound by it'),
  security: SecurityListSchema.optional(),
});

/** Thrown for a document the gateway cannot enforce; the message names the problem. */
export class OpenApiDocumentError extends Error {
  constructor(message: string) {
    super(`OpenAPI document: ${message}`);
    this.name = 'OpenApiDocumentError';
  }
}

function describeZodError(error: z.ZodError): string {
  return error.issues.map((issue) => `${issue.path.map(String).join('.') || '(root)'}: ${issue.message}`).join('; ');
}

/** Parses YAML or JSON text (or takes an object) and checks it is an OpenAPI 2.0 document. */
export function loadOpenApiDocument(source: string | unknown): OpenApi2Document {
  let value: unknown = source;
  if (typeof source === 'string') {
    try {
      value = parseYaml(source);
    } catch (err) {
      throw new OpenApiDocumentError(`not valid YAML or JSON (${(err as Error).message})`);
    }
  }
  const parsed = OpenApi2DocumentSchema.safeParse(value);
  if (!parsed.success) throw new OpenApiDocumentError(describeZodError(parsed.error));
  return parsed.data;
}

function normalizeBasePath(basePath: string | undefined): string {
  if (!basePath || basePath === '/') return '';
  return `/${basePath.replace(/^\/+|\/+$/g, '')}`;
}

/**
 * Reads one security definition. When `x-<vendor>-audiences` is absent the reference
 * gateway requires the service name (the document's `host`) as audience; so do we.
 */
function readJwtScheme(name: string, definition: Record<string, unknown>, host: string | undefined): JwtScheme {
  const withAudience = { ...definition };
  const vendor = Object.keys(definition)
    .map((key) => /^x-([a-z0-9]+)-issuer$/.exec(key)?.[1])
    .find((found) => found !== undefined);
  if (vendor && withAudience[`x-${vendor}-audiences`] === undefined && host) {
    withAudience[`x-${vendor}-audiences`] = host;
  }
  try {
    const extensions = readSecurityExtensions(withAudience);
    return {
      name,
      issuer: extensions.issuer,
      jwksUri: extensions.jwksUri,
      audiences: extensions.audiences,
      jwtLocations: extensions.jwtLocations ?? DEFAULT_JWT_LOCATIONS,
    };
  } catch (err) {
    if (err instanceof z.ZodError) {
      throw new OpenApiDocumentError(`securityDefinitions.${name}: ${describeZodError(err)}`);
    }
    throw err;
  }
}

export function compileDocument(document: OpenApi2Document): CompiledDocument {
  const basePath = normalizeBasePath(document.basePath);
  const schemes = new Map<string, JwtScheme>();
  const schemeNamed = (name: string, where: string): JwtScheme => {
    const known = schemes.get(name);
    if (known) return known;
    const definition = document.securityDefinitions?.[name];
    if (!definition) throw new OpenApiDocumentError(`${where} names security scheme "${name}", which securityDefinitions lacks`);
    if (definition.type !== 'oauth2') {
      throw new OpenApiDocumentError(`security scheme "${name}" has type "${definition.type}"; only oauth2 (JWT) schemes are supported`);
    }
    const scheme = readJwtScheme(name, definition, document.host);
    schemes.set(name, scheme);
    return scheme;
  };
  const toRequirements = (list: z.infer<typeof SecurityListSchema>, where: string): SecurityRequirement[] =>
    list.map((requirement) => ({
      schemes: Object.entries(requirement).map(([name, scopes]) => ({ scheme: schemeNamed(name, where), scopes })),
    }));

  const documentSecurity = SecurityListSchema.safeParse(document.security ?? []);
  if (!documentSecurity.success) throw new OpenApiDocumentError(`security: ${describeZodError(documentSecurity.error)}`);
  const defaultSecurity = toRequirements(documentSecurity.data, 'security');

  const operations: GatewayOperation[] = [];
  const operationIds = new Set<string>();
  for (const [template, pathItem] of Object.entries(document.paths)) {
    if (template.startsWith('x-') || typeof pathItem !== 'object' || pathItem === null) continue;
    let path: PathTemplate;
    try {
      path = compilePathTemplate(`${basePath}${template}`);
    } catch (err) {
      throw new OpenApiDocumentError(`paths: ${(err as Error).message}`);
    }
    for (const method of HTTP_METHODS) {
      const raw = (pathItem as Record<string, unknown>)[method];
      if (raw === undefined) continue;
      const where = `paths.${template}.${method}`;
      const parsed = OperationSchema.safeParse(raw);
      if (!parsed.success) throw new OpenApiDocumentError(`${where}: ${describeZodError(parsed.error)}`);
      const { operationId, security } = parsed.data;
      if (operationIds.has(operationId)) throw new OpenApiDocumentError(`${where}: operationId "${operationId}" is used twice`);
      operationIds.add(operationId);
      operations.push({
        method: method.toUpperCase(),
        route: path.template,
        operationId,
        path,
        security: security ? toRequirements(security, `${where}.security`) : defaultSecurity,
      });
    }
  }
  return { document, operations, schemes: [...schemes.values()] };
}
