import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';

/**
 * Records every response the suite gets from the identity service (its calls all go through
 * the global fetch) and checks each against identity's own `GET /openapi.json`: the status
 * must be documented for the operation, and a JSON body must validate against the documented
 * response schema (closed objects, so an undocumented field fails too).
 */

export interface RecordedResponse {
  method: string;
  url: string;
  status: number;
  contentType: string;
  body: Promise<string> | string;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the OpenAPI document is read as JSON
export type OpenApiDocument = { paths: Record<string, Record<string, any>> };

const recorded: RecordedResponse[] = [];

/** Wraps the global fetch so responses from `authUrl` are recorded; returns the undo. */
export function recordIdentityResponses(authUrl: string): () => void {
  const original = globalThis.fetch;
  const wrapped: typeof fetch = async (input, init) => {
    const res = await original(input, init);
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    if (url.startsWith(`${authUrl}/`) && !new URL(url).pathname.endsWith('/openapi.json')) {
      const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
      recorded.push({
        method,
        url,
        status: res.status,
        contentType: res.headers.get('content-type') ?? '',
        body: res.clone().text(),
      });
    }
    return res;
  };
  globalThis.fetch = wrapped;
  return () => {
    globalThis.fetch = original;
  };
}

/** `/api/v2/connections/{id}` -> a RegExp for concrete paths. */
function templateMatcher(template: string): RegExp {
  const escaped = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+');
  return new RegExp(`^${escaped}$`);
}

const pointer = (...parts: string[]) => parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

/** Checks every response recorded so far against identity's served document. */
export async function checkRecordedResponses(authUrl: string): Promise<{ checked: number; problems: string[] }> {
  const res = await fetch(`${authUrl}/openapi.json`);
  if (res.status !== 200) return { checked: 0, problems: [`GET /openapi.json answered ${res.status}`] };
  return { checked: recorded.length, problems: await checkResponses((await res.json()) as OpenApiDocument, recorded) };
}

/** One line per response whose status the document does not list or whose body its schema refuses. */
export async function checkResponses(document: OpenApiDocument, responses: readonly RecordedResponse[]): Promise<string[]> {
  // Formats (uri, email) are not checked: zod's own checks are the stricter ones, and ajv
  // would need ajv-formats for them.
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
  ajv.addSchema(document as object, 'openapi.json');
  const validators = new Map<string, ValidateFunction>();
  const templates = Object.keys(document.paths)
    // Literal paths before templated ones (/keys/signing/rotate before /keys/signing/{kid}).
    .sort((a, b) => Number(a.includes('{')) - Number(b.includes('{')))
    .map((template) => ({ template, matcher: templateMatcher(template) }));

  const problems: string[] = [];
  for (const response of responses) {
    const path = new URL(response.url).pathname;
    const where = `${response.method} ${path} -> ${response.status}`;
    const template = templates.find(({ template, matcher }) => matcher.test(path) && document.paths[template]![response.method.toLowerCase()]);
    if (!template) {
      problems.push(`${where}: no such operation in the document`);
      continue;
    }
    const method = response.method.toLowerCase();
    const documented = document.paths[template.template]![method]!.responses?.[String(response.status)];
    if (!documented) {
      problems.push(`${where}: status not documented for ${method.toUpperCase()} ${template.template}`);
      continue;
    }
    const text = await response.body;
    const jsonContent = documented.content?.['application/json'];
    if (!documented.content) {
      if (text !== '') problems.push(`${where}: documented without a body, got ${text.slice(0, 100)}`);
      continue;
    }
    // HTML, CSS, text: the media type is all the document says (a page's 400 may also be the
    // input guard's JSON, so an answer in another documented type is checked as that type).
    const mediaType = response.contentType.split(';')[0]!.trim();
    if (!jsonContent || (mediaType !== 'application/json' && documented.content[mediaType])) continue;
    if (!response.contentType.includes('application/json')) {
      problems.push(`${where}: documented as JSON, got ${response.contentType}`);
      continue;
    }
    const ref = `openapi.json#/${pointer('paths', template.template, method, 'responses', String(response.status), 'content', 'application/json', 'schema')}`;
    let validate = validators.get(ref);
    if (!validate) {
      validate = ajv.compile({ $ref: ref });
      validators.set(ref, validate);
    }
    if (!validate(JSON.parse(text))) {
      problems.push(`${where}: body does not match the document: ${ajv.errorsText(validate.errors)} (body ${text.slice(0, 300)})`);
    }
  }
  return problems;
}
