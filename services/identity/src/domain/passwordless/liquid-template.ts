/**
 * `syntax: "liquid"` message templates, rendered by liquidjs in a sandbox: templates live
 * only in memory (no file system), `include`, `render` and `layout` are not tags at all (a
 * template naming one fails to parse), an unknown filter is a parse error, and each render
 * is bounded in steps (a count, so a busy machine never cuts off a good template), in time
 * (a backstop), in what filters and ranges may allocate (memoryLimit) and in output length.
 * Parsed templates are cached by their text, so a start parses nothing once a connection's
 * template has been seen.
 */
import { DELIVERY_BODY_MAX_LENGTH, LIQUID_TEMPLATE_MAX_LENGTH } from '@smsauth/contracts';
import { Context, Liquid, LiquidError, toValueSync, type Emitter, type Template } from 'liquidjs';

/**
 * Template nodes rendered per render (each tag, output and text, each loop iteration's body).
 * A message template takes tens; `(1..1000)` inside `(1..1000)` stops here, deterministically.
 */
export const LIQUID_RENDER_STEP_LIMIT = 10_000;
/**
 * Per render, wall clock: the backstop liquidjs's renderLimit offers. Not the main bound, since
 * a loaded machine can pause any render for tens of milliseconds.
 */
export const LIQUID_RENDER_LIMIT_MS = 1000;
/** Characters and array items filters and ranges may allocate per render (`(1..100000)` is refused). */
export const LIQUID_MEMORY_LIMIT = 100_000;
/** What the delivery request's body may hold. */
export const LIQUID_OUTPUT_MAX_LENGTH = DELIVERY_BODY_MAX_LENGTH;
/** Distinct template texts kept parsed (one per connection in practice). */
const PARSED_TEMPLATE_CACHE_SIZE = 200;

/** What a template may refer to (Auth0's names). `password` is `code`'s alias. */
export interface LiquidMessageVariables {
  code: string;
  phoneNumber: string;
  applicationName: string;
  connectionName: string;
  requestLanguage: string | null;
  send: 'code' | 'link';
}

/** A template that does not parse (`stage: 'parse'`) or whose render was refused (`stage: 'render'`). */
export class LiquidTemplateError extends Error {
  constructor(
    readonly stage: 'parse' | 'render',
    message: string,
  ) {
    super(message);
    this.name = 'LiquidTemplateError';
  }
}

const engine = new Liquid({
  // Includes, layouts and renders would read from here; there is nothing in it.
  templates: {},
  relativeReference: false,
  strictFilters: true,
  ownPropertyOnly: true,
  parseLimit: LIQUID_TEMPLATE_MAX_LENGTH,
  // renderLimit is each render's RenderBudget (steps and the time backstop).
  memoryLimit: LIQUID_MEMORY_LIMIT,
});
for (const tag of ['include', 'render', 'layout', 'block']) delete engine.tags[tag];

const parsed = new Map<string, Template[]>();

/** liquidjs says `tag "include" not found, line:2, col:7`; ours say `line 2, column 7: ...`. */
function describeLiquidError(err: LiquidError): string {
  const where = /, line:(\d+), col:(\d+)$/.exec(err.message);
  const what = where ? err.message.slice(0, where.index) : err.message;
  const reason = what
    .replace(/^tag "(include|render|layout|block)" not found$/, 'tag "$1" is not allowed in SMS templates')
    .replace(/^memory alloc limit exceeded$/, `allocates more than ${LIQUID_MEMORY_LIMIT} characters or items`);
  return where ? `line ${where[1]}, column ${where[2]}: ${reason}` : reason;
}

/** The parsed template, from the cache when this text was parsed before. */
export function parseLiquidTemplate(text: string): Template[] {
  const cached = parsed.get(text);
  if (cached) {
    // Most recently used last, so eviction drops the least recently used.
    parsed.delete(text);
    parsed.set(text, cached);
    return cached;
  }
  let templates: Template[];
  try {
    templates = engine.parse(text);
  } catch (err) {
    if (err instanceof LiquidError) throw new LiquidTemplateError('parse', describeLiquidError(err));
    throw err;
  }
  parsed.set(text, templates);
  if (parsed.size > PARSED_TEMPLATE_CACHE_SIZE) parsed.delete(parsed.keys().next().value as string);
  return templates;
}

/** What the render budget and the bounded emitter throw; liquidjs wraps it in a RenderError. */
class RenderCutOff extends Error {}

/**
 * Stands in for liquidjs's renderLimit Limiter, which liquidjs calls with performance.now()
 * before each template node: counts the calls (the step limit) and checks the deadline.
 */
class RenderBudget {
  private steps = 0;
  private readonly deadline = performance.now() + LIQUID_RENDER_LIMIT_MS;
  use(): void {}
  check(now: number): void {
    this.steps += 1;
    if (this.steps > LIQUID_RENDER_STEP_LIMIT) throw new RenderCutOff(`rendering takes more than ${LIQUID_RENDER_STEP_LIMIT} steps (a loop too long?)`);
    if (now > this.deadline) throw new RenderCutOff(`rendering took longer than ${LIQUID_RENDER_LIMIT_MS} ms`);
  }
}

/** Collects the output and stops the render as soon as it passes LIQUID_OUTPUT_MAX_LENGTH. */
class BoundedEmitter implements Emitter {
  buffer = '';
  write(html: unknown): void {
    this.buffer += html === null || html === undefined ? '' : String(html);
    if (this.buffer.length > LIQUID_OUTPUT_MAX_LENGTH) throw new RenderCutOff(`the message is longer than ${LIQUID_OUTPUT_MAX_LENGTH} characters`);
  }
}

/** The message: parse (cached), render within the time, memory and length limits. */
export function renderLiquidTemplate(text: string, variables: LiquidMessageVariables): string {
  const templates = parseLiquidTemplate(text);
  const scope = {
    code: variables.code,
    password: variables.code,
    phone_number: variables.phoneNumber,
    application: { name: variables.applicationName },
    connection: { name: variables.connectionName },
    request_language: variables.requestLanguage,
    send: variables.send,
  };
  const emitter = new BoundedEmitter();
  try {
    const renderLimit = new RenderBudget() as unknown as Context['renderLimit'];
    const context = new Context(scope, engine.options, { sync: true }, { liquid: engine, renderLimit });
    toValueSync(engine.renderer.renderTemplates(templates, context, emitter));
  } catch (err) {
    // liquidjs wraps what we throw in a RenderError that knows the line.
    const cause = err instanceof LiquidError ? err.originalError : err;
    if (cause instanceof RenderCutOff) {
      const line = err instanceof LiquidError ? /, line:(\d+), col:(\d+)$/.exec(err.message) : null;
      throw new LiquidTemplateError('render', line ? `line ${line[1]}, column ${line[2]}: ${cause.message}` : cause.message);
    }
    if (err instanceof LiquidError) throw new LiquidTemplateError('render', describeLiquidError(err));
    throw err;
  }
  if (emitter.buffer.trim() === '') throw new LiquidTemplateError('render', 'the message is empty');
  return emitter.buffer;
}
