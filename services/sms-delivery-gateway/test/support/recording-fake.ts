import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { RecordingServer, type RecordedRequest } from '@smsauth/test-support';


/** What every provider fake offers the tests: where it listens, what it received, how to stop it. */
export interface RecordingFake<Request> {
  baseUrl: string;
  requests: Request[];
  close(): Promise<void>;
}

/** One exchange handed to a fake's handler: the request as recorded and ways to answer it. */
export interface FakeExchange<Request> {
  request: Request;
  req: IncomingMessage;
  res: ServerResponse;
  /** Answers `status` with `body` as JSON (or with no body when it is undefined). */
  reply(status: number, body?: unknown, headers?: Record<string, string>): void;
}

/** Reads a JSON body; a body that is not JSON is recorded as {} so the fake can still answer. */
export function jsonBody<Body extends object = Record<string, unknown>>(recorded: RecordedRequest): Body {
  try {
    return JSON.parse(recorded.body) as Body;
  } catch {
    return {} as Body;
  }
}

/** Reads an application/x-www-form-urlencoded body. */
export function formBody(recorded: RecordedRequest): Record<string, string> {
  return Object.fromEntries(new URLSearchParams(recorded.body));
}

/** A request to a JSON API as the fakes record it. */
export interface JsonRequest<Body extends object = Record<string, unknown>> {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  json: Body;
}

/** A request to a form-encoded API as the fakes record it. */
export interface FormRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  form: Record<string, string>;
}

export function recordJson<Body extends object = Record<string, unknown>>(recorded: RecordedRequest): JsonRequest<Body> {
  return { method: recorded.method, url: recorded.path, headers: recorded.headers, json: jsonBody<Body>(recorded) };
}

export function recordForm(recorded: RecordedRequest): FormRequest {
  return { method: recorded.method, url: recorded.path, headers: recorded.headers, form: formBody(recorded) };
}

export interface RecordingFakeOptions<Request, State extends object> {
  /** The fake's own fields (the answer a test chooses, keys…), kept on the object returned. */
  state: State;
  /** Turns what the server received into the request the tests read in `requests`. */
  record: (recorded: RecordedRequest) => Request;
  /** The content type `reply` sends its JSON with. */
  contentType?: string;
  /** Answers as the imitated provider does; called after the request is recorded. */
  answer: (exchange: FakeExchange<Request>, fake: State & RecordingFake<Request>) => void;
}

/**
 * A small real HTTP server (the shared RecordingServer) that records every request it receives
 * and answers by the provider fake's handler. Every fake-<provider>.ts builds on it, so only
 * what the provider itself answers is written in each.
 */
export async function startRecordingFake<Request, State extends object>(
  options: RecordingFakeOptions<Request, State>,
): Promise<State & RecordingFake<Request>> {
  const requests: Request[] = [];
  const fake = Object.assign(options.state, { baseUrl: '', requests, close: async () => undefined }) as State & RecordingFake<Request>;
  const contentType = options.contentType ?? 'application/json';
  const server = await RecordingServer.start({
    responder: (req, res, recorded) => {
      const request = options.record(recorded);
      requests.push(request);
      const reply = (status: number, body?: unknown, headers: Record<string, string> = {}) => {
        if (body === undefined) {
          res.writeHead(status, headers).end();
          return;
        }
        res.writeHead(status, { 'content-type': contentType, ...headers });
        res.end(JSON.stringify(body));
      };
      options.answer({ request, req, res, reply }, fake);
    },
  });
  fake.baseUrl = server.origin;
  fake.close = () => server.close();
  return fake;
}
