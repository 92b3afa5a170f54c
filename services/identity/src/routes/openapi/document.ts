import {
  ClientCredentialsRequestSchema,
  ErrorCodes,
  OAuthErrorBodySchema,
  OtpGrantRequestSchema,
  RefreshTokenRequestSchema,
} from '@smsauth/contracts';
import {
  checkRoutesDeclared,
  openApiPathsOf,
  SchemaComponents,
  probeDeclarations,
  withInputGuardRefusals,
  type Operation,
  type ServedRoute,
} from '@smsauth/service-kit';
import type { z } from 'zod';
import type { ManagementRoute } from '../management';
import { errorBodySchema } from '../management/responses';
import { declaredIdentityOperations } from '../operations';
import { openApiOperation } from './operation';

// The identity service's OpenAPI 3.1 document, generated from the operations' declarations:
// the management API (routes/management/<group>.ts), authentication, discovery and the hosted
// login (routes/*.ts, routes/authorize/*.ts) and the service kit's own routes. The schemas shown
// are the ones that validate. What is here is what no single operation owns: info, tags,
// security schemes, shared components, and the start-up checks that routes and declarations agree.

export interface IdentityOpenApiOptions {
  version: string;
  /** The management router's routes and scopes (paths relative to /api/v2). */
  managementRoutes: readonly ManagementRoute[];
  /** The management operations declared with the service kit: they describe themselves. */
  managementOperations?: readonly Operation[];
  /** The management API's audience, named in the client-credentials flow. */
  managementAudience?: string;
  /** The app's other operations (authentication, discovery, hosted login, /openapi.json); absent: their declarations alone. */
  operations?: readonly Operation[];
  /** The service kit's operations (health, readiness, metrics); absent: their declarations alone. */
  kitOperations?: readonly Operation[];
  /** The routes the app serves outside /api/v2 (start-up check: exactly `operations`). */
  routes?: readonly ServedRoute[];
}

type Json = Record<string, unknown>;

/**
 * Components no single operation publishes: the error body every refusal refers to, and each
 * grant's own request (the token endpoint's body is their union, inlined).
 */
const SHARED_SCHEMAS = {
  ErrorBody: { schema: OAuthErrorBodySchema, io: 'output' },
  OtpGrantRequest: { schema: OtpGrantRequestSchema, io: 'input' },
  ClientCredentialsRequest: { schema: ClientCredentialsRequestSchema, io: 'input' },
  RefreshTokenRequest: { schema: RefreshTokenRequestSchema, io: 'input' },
} satisfies Record<string, { schema: z.ZodType; io: 'input' | 'output' }>;

const TAGS = [
  { name: 'Management', description: 'The `/api/v2` management API; each route needs one scope.' },
  { name: 'Authentication', description: 'Passwordless start, code exchange, tokens, userinfo.' },
  { name: 'Discovery', description: 'Keys and metadata for relying parties.' },
  { name: 'Hosted login', description: 'The browser login pages (HTML).' },
  { name: 'Operations', description: 'Health, readiness and metrics.' },
];

/** The operations in the order of their tags (then as declared), so the document reads group by group. */
function byTag(operations: readonly Operation[]): Operation[] {
  const rank = (operation: Operation) => TAGS.findIndex((tag) => tag.name === operation.tags?.[0]);
  return operations.map((operation, index) => ({ operation, index })).sort((a, b) => rank(a.operation) - rank(b.operation) || a.index - b.index).map(({ operation }) => operation);
}

// --- Management API ------------------------------------------------------------------------------

/**
 * The management API's paths, from its declared operations. Start-up check: the router serves
 * exactly the declared operations, each behind its scope (a route added without a declaration,
 * or a declaration the router does not serve, stops the service from starting).
 */
function managementPaths(routes: readonly ManagementRoute[], declared: readonly Operation[], components: SchemaComponents): Json {
  checkRoutesDeclared(routes, declared, 'management');
  const unscoped = routes.find((route) => !route.scope);
  if (unscoped) throw new Error(`The management route ${unscoped.method.toUpperCase()} ${unscoped.path} names no scope`);
  return openApiPathsOf(declared, { prefix: '/api/v2', securityScheme: 'managementApi', components, defaultParamDescription: 'Record id.' });
}

// --- The document --------------------------------------------------------------------------------

/** The identity service's OpenAPI 3.1 document (`GET /openapi.json`). */
export function buildIdentityOpenApiDocument(options: IdentityOpenApiOptions): Json {
  const managementAudience = options.managementAudience ?? 'http://localhost:4000/api/v2/';
  // The scopes are the declarations' own; the served routes are read only to check that the router serves and guards exactly those.
  const scopes = [...new Set((options.managementOperations ?? []).flatMap((operation) => operation.scopes ?? []))].sort();
  const components = new SchemaComponents();
  for (const [name, { schema, io }] of Object.entries(SHARED_SCHEMAS)) components.ref(name, schema, io);
  const management = managementPaths(options.managementRoutes, options.managementOperations ?? [], components);
  const operations = options.operations ?? [...declaredIdentityOperations(managementAudience), openApiOperation(() => ({}))];
  if (options.routes) checkRoutesDeclared(options.routes, operations, 'identity');
  const kitOperations = options.kitOperations ?? probeDeclarations();
  return {
    // No jsonSchemaDialect: OpenAPI 3.1's default dialect is JSON Schema 2020-12 with OpenAPI's
    // vocabulary, what the schemas are; naming plain 2020-12 made Swagger UI warn on every page.
    openapi: '3.1.0',
    info: {
      title: 'smsauth identity',
      version: options.version,
      description:
        'Passwordless SMS login (Auth0-compatible): the management API, the passwordless and token endpoints, userinfo, discovery and the hosted login. Every error body is `{error, error_description, details?}`.',
    },
    tags: TAGS,
    paths: withInputGuardRefusals(
      { ...management, ...openApiPathsOf(byTag([...operations, ...kitOperations]), { components }) },
      errorBodySchema([ErrorCodes.INVALID_REQUEST]),
    ),
    components: {
      schemas: components.toJson(),
      securitySchemes: {
        managementApi: {
          type: 'oauth2',
          description: `An RS256 access token for the management API audience (${managementAudience}), from the client_credentials grant.`,
          flows: {
            clientCredentials: {
              tokenUrl: '/oauth/token',
              scopes: Object.fromEntries(scopes.map((scope) => [scope, scope.replace(':', ' ').replace(/_/g, ' ')])),
            },
          },
        },
        clientSecretBasic: { type: 'http', scheme: 'basic', description: 'client_id and client_secret (client_secret_basic).' },
        userAccessToken: { type: 'http', scheme: 'bearer', description: 'An access token issued by this service (opaque or JWT).' },
      },
    },
  };
}
