import { toErrorDetails, toJsonSchema } from '@smsauth/contracts';
import type { Request, RequestHandler, Response, Router } from 'express';
import type { z } from 'zod';
import { HttpError, validationError } from './errors';

// One declaration per HTTP operation: the schemas that validate a request are the ones the
// OpenAPI document publishes, and the handler only ever sees values those schemas parsed.

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';
type Json = Record<string, unknown>;

/** A request body: its schema (published in input form, under `component` when named). */
export interface OperationBody<B extends z.ZodType> {
  schema: B;
  component?: string;
  examples?: Record<string, { summary: string; value: unknown }>;
  /** Media types the body may come in; application/json when absent. */
  mediaTypes?: readonly string[];
}

/** One documented answer. `schema` (zod, output form) or `jsonSchema` describes its body; neither: no body. */
export interface OperationResponse {
  description: string;
  schema?: z.ZodType;
  /** Publish `schema` under components/schemas with this name and refer to it. */
  component?: string;
  jsonSchema?: Json;
  /** Components `jsonSchema` refers to, published with it (with `projection`: also `<name>Projection`). */
  uses?: ReadonlyArray<{ component: string; schema: z.ZodType; projection?: boolean }>;
  contentType?: string;
  headers?: Json;
}

/**
 * A body the handler reads itself, because what it means depends on its exact bytes (a
 * signature over them is checked first): documented, never parsed by the kit, one schema per
 * media type. The handler's `body` is undefined; a guard installs the parser it needs.
 */
export interface OperationRawBody {
  content: Record<string, { schema: z.ZodType; component?: string }>;
  description?: string;
}

export interface OperationInput<P, Q, B, H = undefined> {
  params: P;
  query: Q;
  body: B;
  /** The declared request headers, parsed (undefined when the operation declares none). */
  headers: H;
  req: Request;
  res: Response;
}

type Parsed<S> = S extends z.ZodType ? z.output<S> : undefined;

/** An OpenAPI security requirement list: `[{}]` is "no credential", `[{scheme: []}]` one scheme. */
export type SecurityRequirements = ReadonlyArray<Record<string, readonly string[]>>;

/**
 * Who refuses bad input. `kit` (the default): mounting parses params, query, headers and body with
 * the declared schemas and answers a 400 (`invalid`) before the handler runs. `handler`: the
 * schemas are published as they are, and the handler (the domain) validates with the same schemas
 * and answers its own refusals (the Auth0-compatible errors, the hosted login's error pages); it
 * gets the raw params, query and body, so it reads them (and any header) from `req`.
 */
export type Validation = 'kit' | 'handler';

interface DeclarationParts<
  P extends z.ZodType | undefined,
  Q extends z.ZodType | undefined,
  B extends z.ZodType | undefined,
  H extends z.ZodType | undefined,
> {
  method: HttpMethod;
  /** Express form, `/clients/:id`; the document shows `/clients/{id}`. */
  path: string;
  operationId?: string;
  summary: string;
  description?: string;
  tags?: readonly string[];
  /** The OAuth scopes the caller needs (all of them). */
  scopes?: readonly string[];
  /** The operation's security requirements as published, when they are not its `scopes` (client authentication, a bearer token). */
  security?: SecurityRequirements;
  /** Path parameters as an object schema; every `:name` of the path is a string otherwise. */
  params?: P;
  paramDescriptions?: Record<string, string>;
  query?: Q;
  queryDescriptions?: Record<string, string>;
  /**
   * Request headers as an object schema keyed by the header's name as documented
   * (`Idempotency-Key`); each is read case-insensitively and, when the kit validates, a refused
   * value is a 400 naming it (with `validation: 'handler'` they are published and the handler reads `req`).
   */
  headers?: H;
  headerDescriptions?: Record<string, string>;
  body?: B extends z.ZodType ? OperationBody<B> : undefined;
  /** Instead of `body`: a body the handler reads from its bytes (see OperationRawBody). */
  rawBody?: OperationRawBody;
  /**
   * Exactly one 2xx and any other answers, by status. The handler's value goes out with the 2xx
   * unless the handler answered itself (a page, a redirect, a 302 or 303 it chose).
   */
  responses: Record<string, OperationResponse | Json>;
}

/** One operation: validated by the kit (the handler gets parsed, typed values) or by its handler (it gets what came). */
export type OperationDeclaration<
  P extends z.ZodType | undefined,
  Q extends z.ZodType | undefined,
  B extends z.ZodType | undefined,
  H extends z.ZodType | undefined = undefined,
> = DeclarationParts<P, Q, B, H> &
  (
    | { validation?: 'kit'; handle(input: OperationInput<Parsed<P>, Parsed<Q>, Parsed<B>, Parsed<H>>): Promise<unknown> | unknown }
    | { validation: 'handler'; handle(input: OperationInput<unknown, unknown, unknown, unknown>): Promise<unknown> | unknown }
  );

/** A declared operation with its types erased, as routers and documents hold them. */
export interface Operation {
  readonly method: HttpMethod;
  readonly path: string;
  readonly operationId?: string;
  readonly summary: string;
  readonly description?: string;
  readonly tags?: readonly string[];
  readonly scopes?: readonly string[];
  readonly security?: SecurityRequirements;
  readonly params?: z.ZodType;
  readonly paramDescriptions?: Record<string, string>;
  readonly query?: z.ZodType;
  readonly queryDescriptions?: Record<string, string>;
  readonly headers?: z.ZodType;
  readonly headerDescriptions?: Record<string, string>;
  readonly body?: OperationBody<z.ZodType>;
  readonly rawBody?: OperationRawBody;
  readonly validation?: Validation;
  readonly responses: Record<string, OperationResponse | Json>;
  /** The status of the answer the handler's value goes out with. */
  readonly successStatus: number;
  handle(input: OperationInput<unknown, unknown, unknown, unknown>): Promise<unknown> | unknown;
}

const pathParameterNames = (path: string): string[] => [...path.matchAll(/:(\w+)/g)].map((m) => m[1]!);

/** Checks a declaration once, at start-up: one success status, documented path parameters. */
export function defineOperation<
  P extends z.ZodType | undefined = undefined,
  Q extends z.ZodType | undefined = undefined,
  B extends z.ZodType | undefined = undefined,
  H extends z.ZodType | undefined = undefined,
>(declaration: OperationDeclaration<P, Q, B, H>): Operation {
  const key = `${declaration.method.toUpperCase()} ${declaration.path}`;
  if (declaration.body && declaration.rawBody) throw new Error(`${key} declares both a body and a raw body`);
  const successes = Object.keys(declaration.responses).filter((status) => /^2\d\d$/.test(status));
  if (successes.length !== 1) throw new Error(`${key} must declare exactly one 2xx response, not ${successes.length}`);
  if (declaration.params) {
    const declared = Object.keys((toJsonSchema(declaration.params) as { properties?: Json }).properties ?? {}).sort();
    const inPath = pathParameterNames(declaration.path).sort();
    if (declared.join() !== inPath.join()) throw new Error(`${key} declares params ${declared.join(', ')} but its path has ${inPath.join(', ')}`);
  }
  return { ...(declaration as unknown as Omit<Operation, 'successStatus'>), successStatus: Number(successes[0]) };
}

export interface MountOptions {
  /** Handlers run before validation, given the operation (scope checks: a 403 comes before a 400). */
  guards?: (operation: Operation) => RequestHandler[];
  /** The 400 for input a schema refused; the kit's validationError when absent. */
  invalid?: (issues: readonly z.core.$ZodIssue[]) => HttpError;
}

/** 400 for refused request headers: `<Name> header: <problem>`, `details` naming each header. */
function headerValidationError(error: z.ZodError): HttpError {
  const details = toErrorDetails(error.issues);
  const description = details.map((d) => (d.path ? `${d.path} header: ${d.message}` : d.message)).join('; ');
  return new HttpError(400, 'invalid_request', description, { details });
}

/**
 * Adds each operation to the router: guards, then params, query, body and headers parsed by
 * their schemas, then the handler. The handler's value is the success answer: JSON, or sent as
 * it is when the success response declares another content type (the handler may set its own
 * Content-Type first). A handler that writes the response itself (a page, a redirect) wins.
 */
export function mountOperations<R extends Pick<Router, HttpMethod>>(router: R, operations: readonly Operation[], options: MountOptions = {}): R {
  const refuse = (error: z.ZodError) => (options.invalid ? options.invalid(error.issues) : validationError(error));
  const parse = (schema: z.ZodType | undefined, value: unknown, refusal = refuse) => {
    if (!schema) return undefined;
    const result = schema.safeParse(value);
    if (!result.success) throw refusal(result.error);
    return result.data;
  };
  const refuseHeaders = (error: z.ZodError) => (options.invalid ? options.invalid(error.issues) : headerValidationError(error));
  for (const operation of operations) {
    const success = operation.responses[String(operation.successStatus)];
    const bodyless = !responseHasBody(success);
    const contentType = isDeclaredResponse(success) ? success.contentType : undefined;
    const sendsJson = contentType === undefined || /[/+]json\b/.test(contentType);
    const byKit = operation.validation !== 'handler';
    const headerNames = operation.headers && byKit ? Object.keys((jsonSchemaOf(operation.headers) as { properties?: Json }).properties ?? {}) : [];
    const handler: RequestHandler = async (req, res) => {
      const params = operation.params && byKit ? parse(operation.params, { ...req.params }) : { ...req.params };
      const query = byKit ? parse(operation.query, req.query) : req.query;
      const body = byKit ? parse(operation.body?.schema, req.body ?? {}) : req.body;
      const headers = byKit ? parse(operation.headers, Object.fromEntries(headerNames.map((name) => [name, req.get(name)])), refuseHeaders) : undefined;
      const answer = await operation.handle({ params, query, body, headers, req, res });
      if (res.headersSent) return;
      res.status(operation.successStatus);
      if (bodyless) res.end();
      else if (sendsJson) res.json(answer);
      else {
        if (!res.get('Content-Type')) res.type(contentType!);
        res.send(answer);
      }
    };
    router[operation.method](operation.path, ...(options.guards?.(operation) ?? []), handler);
  }
  return router;
}

/** An answer whose body is text of one media type (an HTML page, a style sheet, a script). */
export function textResponse(description: string, contentType = 'text/html', headers?: Json): OperationResponse {
  return { description, contentType, jsonSchema: { type: 'string' }, ...(headers ? { headers } : {}) };
}

/** An answer with no body that sends the client elsewhere (302, 303): its `Location`. */
export function redirectResponse(description: string): OperationResponse {
  return { description, headers: { Location: { schema: { type: 'string' } } } };
}

export interface ServedRoute {
  method: string;
  path: string;
}

interface RouterLayer {
  route?: { path: string; methods: Record<string, boolean> };
}

/** The routes a router (not its mounted sub-routers) serves, read from its own table. */
export function servedRoutesOf(router: Router): ServedRoute[] {
  return (router as unknown as { stack: RouterLayer[] }).stack.flatMap(({ route }) =>
    route ? Object.keys(route.methods).filter((method) => route.methods[method] && method !== '_all').map((method) => ({ method, path: route.path })) : [],
  );
}

/**
 * Start-up check: the routes served are exactly the declared operations (a route added without
 * a declaration, or a declaration nothing serves, is an error naming it).
 */
export function checkRoutesDeclared(served: readonly ServedRoute[], operations: readonly Operation[], where: string): void {
  const key = (method: string, path: string) => `${method.toUpperCase()} ${path}`;
  const declared = new Set(operations.map((operation) => key(operation.method, operation.path)));
  const undeclared = served.map((route) => key(route.method, route.path)).filter((route) => !declared.has(route));
  if (undeclared.length) throw new Error(`The OpenAPI document does not describe the ${where} route ${undeclared.join(', ')}`);
  const servedKeys = new Set(served.map((route) => key(route.method, route.path)));
  const stale = [...declared].filter((route) => !servedKeys.has(route));
  if (stale.length) throw new Error(`The OpenAPI document describes ${where} routes that do not exist: ${stale.join(', ')}`);
}

function isDeclaredResponse(response: OperationResponse | Json | undefined): response is OperationResponse {
  return response !== undefined && !('content' in response);
}

function responseHasBody(response: OperationResponse | Json | undefined): boolean {
  if (!response) return false;
  if ('content' in response) return true;
  const declared = response as OperationResponse;
  return declared.schema !== undefined || declared.jsonSchema !== undefined;
}

/** components/schemas built from the operations' named schemas; one name, one schema. */
export class SchemaComponents {
  private readonly schemas = new Map<string, { schema: z.ZodType; io: 'input' | 'output'; json: Json }>();

  /** Publishes `schema` under `name` (input: what callers send; output: closed objects) and answers its `$ref`. */
  ref(name: string, schema: z.ZodType, io: 'input' | 'output'): Json {
    const known = this.schemas.get(name);
    if (known && (known.schema !== schema || known.io !== io)) throw new Error(`Two different schemas are published as ${name}`);
    if (!known) this.schemas.set(name, { schema, io, json: jsonSchemaOf(schema, io) });
    return { $ref: `#/components/schemas/${name}` };
  }

  /**
   * `name` and `<name>Projection`: the record's properties with none required, what a
   * `fields` / `include_fields` projection answers. Answers the `$ref` of the projection.
   */
  projectionRef(name: string, schema: z.ZodType): Json {
    this.ref(name, schema, 'output');
    const projection = `${name}Projection`;
    if (!this.schemas.has(projection)) {
      const { required: _all, ...whole } = jsonSchemaOf(schema, 'output');
      const description = `${name} projected by \`fields\` / \`include_fields\`: any of its fields may be left out.`;
      this.schemas.set(projection, { schema, io: 'output', json: { ...whole, description } });
    }
    return { $ref: `#/components/schemas/${projection}` };
  }

  has(name: string): boolean {
    return this.schemas.has(name);
  }

  toJson(): Record<string, Json> {
    return Object.fromEntries([...this.schemas].map(([name, { json }]) => [name, json]));
  }
}

/** A zod schema as an OpenAPI 3.1 schema (JSON Schema 2020-12 without its `$schema` marker). */
export function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output' = 'input'): Json {
  const { $schema: _ignored, ...rest } = toJsonSchema(schema, io) as Json;
  return rest;
}

/** `/connections/:id` -> `/connections/{id}`. */
export function toOpenApiPath(expressPath: string): string {
  return expressPath.replace(/:(\w+)/g, '{$1}');
}

/** An object schema's fields as OpenAPI parameters (query, path or header), each with its JSON Schema. */
export function parametersOf(schema: z.ZodType, where: 'query' | 'path' | 'header', descriptions: Record<string, string> = {}): Json[] {
  const jsonSchema = jsonSchemaOf(schema) as { properties?: Record<string, Json>; required?: string[] };
  return Object.entries(jsonSchema.properties ?? {}).map(([name, property]) => ({
    name,
    in: where,
    required: where === 'path' || (jsonSchema.required?.includes(name) ?? false),
    schema: property,
    ...(descriptions[name] ? { description: descriptions[name] } : {}),
  }));
}

export interface OpenApiPathOptions {
  /** Mount point of the router the operations are on (`/api/v2`). */
  prefix?: string;
  /** The security scheme the operations' scopes belong to. */
  securityScheme?: string;
  components: SchemaComponents;
  /** Path parameter description when the declaration gives none. */
  defaultParamDescription?: string;
}

/** `get` + `/api/v2/clients/{id}` -> `getApiV2ClientsId`. */
function defaultOperationId(method: string, path: string): string {
  return `${method}${path.replace(/[^A-Za-z0-9]+(\w)?/g, (_m, c: string | undefined) => (c ?? '').toUpperCase())}`;
}

function responseObject(response: OperationResponse | Json, components: SchemaComponents): Json {
  if (!isDeclaredResponse(response)) return response;
  const { description, schema, component, jsonSchema, uses = [], contentType = 'application/json', headers } = response;
  for (const used of uses) {
    if (used.projection) components.projectionRef(used.component, used.schema);
    else components.ref(used.component, used.schema, 'output');
  }
  const body = schema ? (component ? components.ref(component, schema, 'output') : jsonSchemaOf(schema, 'output')) : jsonSchema;
  return { description, ...(headers ? { headers } : {}), ...(body ? { content: { [contentType]: { schema: body } } } : {}) };
}

/** The OpenAPI `paths` of the operations, their schemas added to `components`. */
export function openApiPathsOf(operations: readonly Operation[], options: OpenApiPathOptions): Record<string, Json> {
  const paths: Record<string, Json> = {};
  const { components } = options;
  for (const operation of operations) {
    const path = `${options.prefix ?? ''}${toOpenApiPath(operation.path)}`;
    if ((paths[path] as Json | undefined)?.[operation.method]) throw new Error(`${operation.method.toUpperCase()} ${path} is declared twice`);
    const pathParameters: Json[] = operation.params
      ? parametersOf(operation.params, 'path', operation.paramDescriptions)
      : pathParameterNames(operation.path).map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } }));
    const described = pathParameters.map((parameter) =>
      parameter.description || !options.defaultParamDescription
        ? parameter
        : { ...parameter, description: operation.paramDescriptions?.[parameter.name as string] ?? options.defaultParamDescription },
    );
    const parameters = [
      ...described,
      ...(operation.headers ? parametersOf(operation.headers, 'header', operation.headerDescriptions) : []),
      ...(operation.query ? parametersOf(operation.query, 'query', operation.queryDescriptions) : []),
    ];
    const body = operation.body;
    const bodySchema = body ? (body.component ? components.ref(body.component, body.schema, 'input') : jsonSchemaOf(body.schema, 'input')) : undefined;
    const mediaTypes = body?.mediaTypes ?? ['application/json'];
    paths[path] = {
      ...paths[path],
      [operation.method]: {
        ...(operation.tags ? { tags: [...operation.tags] } : {}),
        operationId: operation.operationId ?? defaultOperationId(operation.method, path),
        summary: operation.summary,
        ...(operation.description ? { description: operation.description } : {}),
        ...(operation.security
          ? { security: operation.security.map((requirement) => Object.fromEntries(Object.entries(requirement).map(([name, scopes]) => [name, [...scopes]]))) }
          : operation.scopes && options.securityScheme
            ? { security: [{ [options.securityScheme]: [...operation.scopes] }] }
            : {}),
        ...(parameters.length ? { parameters } : {}),
        ...(body
          ? {
              requestBody: {
                required: true,
                content: Object.fromEntries(
                  mediaTypes.map((type, index) => [type, { schema: bodySchema, ...(index === 0 && body.examples ? { examples: body.examples } : {}) }]),
                ),
              },
            }
          : {}),
        ...(operation.rawBody ? { requestBody: rawRequestBody(operation.rawBody, components) } : {}),
        responses: Object.fromEntries(Object.entries(operation.responses).map(([status, response]) => [status, responseObject(response, components)])),
      },
    };
  }
  return paths;
}

/** The requestBody of a raw body: one schema per media type, input form. */
function rawRequestBody(rawBody: OperationRawBody, components: SchemaComponents): Json {
  const content = Object.fromEntries(
    Object.entries(rawBody.content).map(([type, { schema, component }]) => [
      type,
      { schema: component ? components.ref(component, schema, 'input') : jsonSchemaOf(schema, 'input') },
    ]),
  );
  return { required: true, ...(rawBody.description ? { description: rawBody.description } : {}), content };
}
