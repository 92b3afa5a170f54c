import http from 'node:http';
import SwaggerParser from '@apidevtools/swagger-parser';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { RUNS } from './property';

// A fuzzer driven only by a service's published OpenAPI 3.x document: requests are sampled
// from the document's own schemas (json-schema-faker), some of them then spoiled (a field
// replaced, text no database takes, a malformed percent escape), sent over real HTTP, and
// each answer is checked against the document (Ajv, JSON Schema 2020-12): no 5xx, no status
// the operation does not list, no content type or body its answer does not describe.

type Json = Record<string, unknown>;
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

export interface FuzzRequest {
  /** Every part of it keeps to the document's schemas (nothing spoiled, the credential sent). */
  allowed: boolean;
  method: string;
  /** Path and query string, encoded as sent. */
  path: string;
  headers: Record<string, string>;
  body?: string;
}

export interface FuzzResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

export interface FuzzFinding {
  operation: string;
  request: FuzzRequest;
  status: number;
  problem: string;
}

export interface FuzzOptions {
  /** Base URL of the running service (http://127.0.0.1:port). */
  baseUrl: string;
  document: Json;
  seed: number;
  runs: number;
  /** Headers that satisfy each security scheme, by scheme name. */
  credentials?: Record<string, Record<string, string>>;
  /** Values that exist (ids), by path parameter name: half the time a path parameter is one of them. */
  knownValues?: Record<string, readonly string[]>;
  /** Headers every request carries (X-Forwarded-For, ...), or a function of the run index. */
  headers?: (run: number) => Record<string, string>;
  /** Operations not fuzzed, keyed `METHOD /path` as in the document, each with its reason. */
  skip?: Record<string, string>;
  /**
   * Refusals (400) of requests the document's schemas allow that the document still states in
   * words, because JSON Schema cannot say them: the service's state (an unknown transaction, a
   * name already taken), a rule across fields, a check only a parser can make (a PEM key, a
   * phone number's numbering plan). Any other 400 to such a request is a finding: a rule the
   * document does not state.
   */
  documentedRefusals?: readonly DocumentedRefusal[];
}

export interface DocumentedRefusal {
  /** `METHOD /path` as in the document, or a pattern over those. */
  operation: string | RegExp;
  /** Matches the answer's body (the error description, or the page's text). */
  answer: RegExp;
  /** Where the document states it, or why no schema can. */
  reason: string;
}

/**
 * FUZZ_SEED replays a run; FUZZ_RUNS changes its length. Without them the soak's FC_SEED and
 * FC_NUM_RUNS (scaled as property runs are) drive it; without those, a fresh seed and `runs`.
 */
export function fuzzSettings(runs: number, env: NodeJS.ProcessEnv = process.env): { seed: number; runs: number } {
  const seedText = (env.FUZZ_SEED ?? env.FC_SEED)?.trim();
  const seed = seedText ? Number(seedText) : Math.floor(Math.random() * 2 ** 31);
  if (!Number.isSafeInteger(seed)) throw new Error(`FUZZ_SEED must be an integer, got "${seedText}"`);
  const runsText = env.FUZZ_RUNS?.trim();
  const scale = env.FC_NUM_RUNS?.trim() ? Number(env.FC_NUM_RUNS) / RUNS : 1;
  const count = runsText ? Number(runsText) : Math.ceil(runs * scale);
  if (!Number.isSafeInteger(count) || count < 1) throw new Error(`FUZZ_RUNS must be a positive integer, got "${runsText ?? env.FC_NUM_RUNS}"`);
  return { seed, runs: count };
}

/** mulberry32: small, seeded, good enough to choose what to send. */
function randomSource(seed: number) {
  let state = seed | 0;
  const next = () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    chance: (p: number) => next() < p,
    int: (max: number) => Math.floor(next() * max),
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!,
  };
}
type Random = ReturnType<typeof randomSource>;

/** Text a generated client could send that no service should choke on. */
const SPOILED_TEXT = ['a\u0000b', '\u0000', 'x\ud800y', '\udfff', '', ' ', '..', '__proto__', 'constructor', '%', '%zz', '\u202e\u0301', 'x'.repeat(5000), '0', '-1', 'null', '{}'];
/** Raw (already encoded) path segments: malformed escapes, encoded NUL and lone surrogates. */
const SPOILED_SEGMENTS = ['%E0%A4%A', '%', '%zz', '%00', 'a%00b', '%ED%A0%80', '%C0%AF', '%FF', '..%2F..', '%2e%2e'];

interface FuzzOperation {
  key: string;
  method: string;
  path: string;
  operation: Json;
}

function operationsOf(document: Json, skip: Record<string, string>): FuzzOperation[] {
  const paths = (document.paths ?? {}) as Record<string, Json>;
  return Object.entries(paths).flatMap(([path, item]) =>
    METHODS.filter((method) => item[method]).flatMap((method) => {
      const key = `${method.toUpperCase()} ${path}`;
      return key in skip ? [] : [{ key, method, path, operation: item[method] as Json }];
    }),
  );
}

type Sampler = (schema: unknown, seed: number) => unknown;

async function loadSampler(): Promise<Sampler> {
  const { generateSync } = await import('json-schema-faker');
  return (schema, seed) => {
    try {
      return generateSync(schema as never, { seed, maxDepth: 4, maxDefaultItems: 2, optionalsProbability: 0.4, maxLength: 64, failOnInvalidTypes: false });
    } catch {
      // Schemas whose constraints the sampler cannot meet: an empty value is input too.
      return undefined;
    }
  };
}

function percentEncode(text: string): string {
  try {
    return encodeURIComponent(text);
  } catch {
    // A lone surrogate: sent as the (invalid) UTF-8 bytes a careless client would produce.
    return [...text].map((c) => (/[\ud800-\udfff]/.test(c) ? '%ED%A0%80' : encodeURIComponent(c))).join('');
  }
}

function scalarText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined) return '';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/** A value for a spoiled field: any JSON, or text no database takes. */
function spoiledValue(random: Random): unknown {
  return random.pick<unknown>([random.pick(SPOILED_TEXT), null, -1, 1e308, true, [], {}, [random.pick(SPOILED_TEXT)], { a: random.pick(SPOILED_TEXT) }]);
}

/** Form encoding of an object, nested with brackets (`authParams[scope]=...`), as qs reads it. */
function formEncode(value: unknown, prefix = ''): string[] {
  if (value !== null && typeof value === 'object') {
    return Object.entries(value as Json).flatMap(([key, child]) => formEncode(child, prefix ? `${prefix}[${Array.isArray(value) ? '' : key}]` : key));
  }
  return [`${percentEncode(prefix)}=${percentEncode(scalarText(value))}`];
}

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  schema?: Json;
}

function buildRequest(target: FuzzOperation, options: FuzzOptions, random: Random, sample: Sampler, run: number, keeps: Keeps): FuzzRequest {
  const spoil = random.chance(0.35);
  // Whether the request keeps to the document: the sampler may miss a pattern or a format, so
  // each value it made is checked against its schema rather than trusted.
  let allowed = !spoil;
  const parameters = ((target.operation.parameters ?? []) as Parameter[]).filter(Boolean);
  const valueOf = (parameter: Parameter) => {
    const value = sample(parameter.schema ?? { type: 'string' }, random.int(2 ** 31));
    if (!keeps(parameter.schema, value)) allowed = false;
    return value;
  };
  let path = target.path;
  for (const parameter of parameters.filter((p) => p.in === 'path')) {
    const known = options.knownValues?.[parameter.name] ?? [];
    let segment: string;
    if (spoil && random.chance(0.3)) segment = random.chance(0.5) ? random.pick(SPOILED_SEGMENTS) : percentEncode(random.pick(SPOILED_TEXT)) || 'x';
    else if (known.length && random.chance(0.6)) segment = percentEncode(random.pick(known));
    else {
      const text = scalarText(valueOf(parameter));
      // An empty segment is a different path: not the operation the document describes.
      if (!text) allowed = false;
      segment = percentEncode(text) || 'x';
    }
    path = path.replace(`{${parameter.name}}`, segment);
  }
  const query: string[] = [];
  for (const parameter of parameters.filter((p) => p.in === 'query')) {
    if (!parameter.required && !random.chance(0.3)) continue;
    const value = spoil && random.chance(0.2) ? random.pick(SPOILED_TEXT) : valueOf(parameter);
    // An array or object in a query string has a serialisation the document would have to name.
    if (value !== null && typeof value === 'object') allowed = false;
    for (const item of Array.isArray(value) ? value : [value]) query.push(`${percentEncode(parameter.name)}=${percentEncode(scalarText(item))}`);
  }
  if (spoil && random.chance(0.15)) query.push(random.pick(['a=%E0%A4%A', 'fields=%00', 'page[x]=1', '__proto__[a]=1', 'include_totals=maybe']));
  const headers: Record<string, string> = { ...options.headers?.(run) };
  const security = (target.operation.security ?? (options.document.security as unknown)) as Array<Record<string, unknown>> | undefined;
  const scheme = security?.map((requirement) => Object.keys(requirement)[0]).find((name) => name !== undefined && options.credentials?.[name]);
  // Now and then without the credential: the 401 must be a documented answer too.
  if (scheme && !random.chance(0.05)) Object.assign(headers, options.credentials![scheme]);
  else if (security?.length) allowed = false;
  for (const parameter of parameters.filter((p) => p.in === 'header')) {
    if (parameter.required || random.chance(0.2)) {
      const text = scalarText(valueOf(parameter));
      const sent = text.replace(/[^\x21-\x7e]/g, '') || 'x';
      if (sent !== text) allowed = false;
      headers[parameter.name] = sent;
    }
  }
  let body: string | undefined;
  const requestBody = target.operation.requestBody as { content?: Record<string, { schema?: unknown }> } | undefined;
  if (requestBody?.content) {
    const types = Object.keys(requestBody.content);
    const type = random.chance(0.8) ? types[0]! : random.pick(types);
    let value = sample(requestBody.content[type]?.schema ?? {}, random.int(2 ** 31));
    if (!keeps(requestBody.content[type]?.schema, value)) allowed = false;
    if (spoil && value !== null && typeof value === 'object' && !Array.isArray(value)) {
      const fields = Object.keys(value as Json);
      const field = fields.length && random.chance(0.7) ? random.pick(fields) : random.pick(['extra', '__proto__', 'a\u0000']);
      value = random.chance(0.2) ? Object.fromEntries(Object.entries(value as Json).filter(([key]) => key !== field)) : { ...(value as Json), [field]: spoiledValue(random) };
    }
    headers['content-type'] = type;
    body = type.includes('json') ? JSON.stringify(value ?? {}) : type.includes('x-www-form-urlencoded') ? formEncode(value ?? {}).join('&') : scalarText(value);
  }
  return { allowed, method: target.method.toUpperCase(), path: query.length ? `${path}?${query.join('&')}` : path, headers, ...(body !== undefined ? { body } : {}) };
}

function send(baseUrl: string, request: FuzzRequest): Promise<FuzzResponse> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        method: request.method,
        path: request.path,
        // Node frames a DELETE body neither by length nor chunked unless told: the server would read it as a second request.
        headers: { ...request.headers, connection: 'close', ...(request.body !== undefined ? { 'content-length': String(Buffer.byteLength(request.body)) } : {}) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(request.body);
  });
}

/** Whether a generated value keeps to its schema (no schema: anything does). */
type Keeps = (schema: unknown, value: unknown) => boolean;

/** Why an answer breaks the document, or undefined when it keeps to it. */
function checkAnswer(
  target: FuzzOperation,
  request: FuzzRequest,
  response: FuzzResponse,
  validatorOf: (schema: unknown) => ValidateFunction,
  documentedRefusals: readonly DocumentedRefusal[],
): string | undefined {
  if (response.status >= 500) return `a ${response.status}: ${response.text.slice(0, 200)}`;
  const documented = (refusal: DocumentedRefusal) =>
    (typeof refusal.operation === 'string' ? refusal.operation === target.key : refusal.operation.test(target.key)) && refusal.answer.test(response.text);
  if (response.status === 400 && request.allowed && !documentedRefusals.some(documented)) {
    return `a request the document allows was refused by a rule it does not state: ${response.text.slice(0, 300)}`;
  }
  const responses = (target.operation.responses ?? {}) as Record<string, { content?: Record<string, { schema?: unknown }> }>;
  const listed = responses[String(response.status)] ?? responses[`${String(response.status)[0]}XX`] ?? responses.default;
  if (!listed) return `status ${response.status} is not among the documented ${Object.keys(responses).join(', ')}: ${response.text.slice(0, 200)}`;
  if (!listed.content || response.status === 204 || response.status === 304 || !response.text) return undefined;
  const contentType = String(response.headers['content-type'] ?? '').split(';')[0]!.trim();
  const media = listed.content[contentType];
  if (!media) return `content type ${contentType || '(none)'} where the document says ${Object.keys(listed.content).join(', ')}`;
  if (!contentType.includes('json') || media.schema === undefined) return undefined;
  let body: unknown;
  try {
    body = JSON.parse(response.text);
  } catch {
    return `a body that is not JSON: ${response.text.slice(0, 200)}`;
  }
  const validate = validatorOf(media.schema);
  if (validate(body)) return undefined;
  const errors = (validate.errors ?? []).slice(0, 4).map((e) => `${e.instancePath || '/'} ${e.message ?? ''} ${JSON.stringify(e.params)}`);
  return `a body its schema refuses (${errors.join('; ')}): ${response.text.slice(0, 300)}`;
}

/**
 * Sends `runs` requests sampled from the document and answers what in the answers broke it.
 * The same seed, document and service state send the same requests.
 */
export interface FuzzResult {
  findings: FuzzFinding[];
  /** How many answers had each status: a run that only met 401s tested little. */
  statuses: Record<string, number>;
}

/** The keywords a Swagger 2.0 non-body parameter carries beside `in`, which are its schema. */
const SWAGGER2_SCHEMA_KEYWORDS = ['type', 'format', 'pattern', 'enum', 'items', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'minLength', 'maxLength', 'minItems', 'maxItems', 'default'];

/**
 * A dereferenced Swagger 2.0 document in the shape the fuzzer reads (OpenAPI 3's): parameter
 * keywords become each parameter's `schema`, the body parameter a `requestBody`, and each
 * response's `schema` the content of every type the operation `produces`; `basePath` prefixes paths.
 */
function fromSwagger2(document: Json): Json {
  const basePath = typeof document.basePath === 'string' && document.basePath !== '/' ? document.basePath.replace(/\/$/, '') : '';
  const paths = Object.fromEntries(
    Object.entries((document.paths ?? {}) as Record<string, Json>).map(([path, item]) => {
      const shared = (item.parameters ?? []) as Json[];
      const operations = METHODS.filter((method) => item[method]).map((method) => {
        const operation = item[method] as Json;
        const parameters = [...shared, ...((operation.parameters ?? []) as Json[])];
        const consumes = (operation.consumes ?? document.consumes ?? ['application/json']) as string[];
        const produces = (operation.produces ?? document.produces ?? ['application/json']) as string[];
        const body = parameters.find((parameter) => parameter.in === 'body');
        const responses = Object.fromEntries(
          Object.entries((operation.responses ?? {}) as Record<string, Json>).map(([status, response]) => [
            status,
            response.schema === undefined ? response : { ...response, content: Object.fromEntries(produces.map((type) => [type, { schema: response.schema }])) },
          ]),
        );
        return [
          method,
          {
            ...operation,
            parameters: parameters
              .filter((parameter) => parameter.in !== 'body')
              .map((parameter) => ({ ...parameter, schema: Object.fromEntries(SWAGGER2_SCHEMA_KEYWORDS.filter((k) => k in parameter).map((k) => [k, parameter[k]])) })),
            ...(body ? { requestBody: { content: Object.fromEntries(consumes.map((type) => [type, { schema: body.schema }])) } } : {}),
            responses,
          },
        ];
      });
      return [`${basePath}${path}`, Object.fromEntries(operations)];
    }),
  );
  return { ...document, paths };
}

export async function fuzzOpenApi(options: FuzzOptions): Promise<FuzzResult> {
  const dereferenced = (await SwaggerParser.dereference(structuredClone(options.document) as never)) as unknown as Json;
  const document = dereferenced.swagger === '2.0' ? fromSwagger2(dereferenced) : dereferenced;
  const operations = operationsOf(document, options.skip ?? {});
  if (!operations.length) throw new Error('the document has no operation to fuzz');
  const sample = await loadSampler();
  const ajv = new Ajv2020({ strict: false, allErrors: true, unicodeRegExp: false, validateFormats: true });
  addFormats(ajv);
  const validators = new Map<unknown, ValidateFunction>();
  const validatorOf = (schema: unknown) => {
    let validate = validators.get(schema);
    if (!validate) validators.set(schema, (validate = ajv.compile(schema as object)));
    return validate;
  };
  const keeps: Keeps = (schema, value) => schema === undefined || (value !== undefined && validatorOf(schema)(value));
  const random = randomSource(options.seed);
  const findings: FuzzFinding[] = [];
  const statuses: Record<string, number> = {};
  for (let run = 0; run < options.runs; run += 1) {
    const target = random.pick(operations);
    const request = buildRequest(target, options, random, sample, run, keeps);
    const response = await send(options.baseUrl, request);
    statuses[response.status] = (statuses[response.status] ?? 0) + 1;
    const problem = checkAnswer(target, request, response, validatorOf, options.documentedRefusals ?? []);
    if (problem) findings.push({ operation: target.key, request, status: response.status, problem });
  }
  return { findings, statuses };
}

/** Findings as a readable report: one per operation and problem kind, with the request that showed it. */
export function fuzzReport(findings: readonly FuzzFinding[], seed: number): string {
  const seen = new Set<string>();
  const lines = findings.flatMap((finding) => {
    const kind = `${finding.operation} ${finding.status} ${finding.problem.replace(/:.*$/s, '').slice(0, 80)}`;
    if (seen.has(kind)) return [];
    seen.add(kind);
    const body = finding.request.body === undefined ? '' : ` body ${JSON.stringify(finding.request.body.slice(0, 300))}`;
    return [`- ${finding.operation}: ${finding.request.method} ${finding.request.path}${body}\n  -> ${finding.problem}`];
  });
  return `${findings.length} answers broke the document (seed ${seed}; replay: FUZZ_SEED=${seed}):\n${lines.join('\n')}`;
}
