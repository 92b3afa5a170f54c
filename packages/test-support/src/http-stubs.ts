// The HTTP stand-ins of the test suites: one recording server and one JWKS server on top of it.
// Both are real HTTP servers on 127.0.0.1, port 0.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  /** The request target as sent (path and query). */
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** The client's source port: equal ports mean a reused (keep-alive) connection. */
  remotePort: number | undefined;
}

/** Answers a request; `recorded` is what the server recorded of it (its body read in full). */
export type Responder = (req: http.IncomingMessage, res: http.ServerResponse, recorded: RecordedRequest) => void;

/** Answers every request with `status` and `body` (empty by default). */
export const answer =
  (status: number, headers: Record<string, string> = {}, body = ''): Responder =>
  (_req, res) => {
    res.writeHead(status, headers);
    res.end(body);
  };

/** Never answers (the socket stays open until the server closes). */
export const hang: Responder = () => undefined;

export interface RecordingServerOptions {
  /** What url() names when called without a path (default `/`). */
  path?: string;
  /** How to answer (default: 200, empty body); respondWith() changes it. */
  responder?: Responder;
}

/**
 * A stand-in for whatever HTTP server the code under test calls (a delivery gateway, a
 * webhook, an SMS provider, a JWKS endpoint): records each request (method, path, headers,
 * body) once its body has arrived, then answers as the test chooses. hold() keeps the answers
 * back until release().
 */
export class RecordingServer {
  readonly requests: RecordedRequest[] = [];
  private readonly defaultResponder: Responder;
  private responder: Responder;
  private readonly defaultPath: string;
  private held: Array<() => void> | undefined;
  private waiters: Array<{ count: number; resolve: () => void }> = [];
  private readonly server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const recorded: RecordedRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        remotePort: req.socket.remotePort,
      };
      this.requests.push(recorded);
      this.waiters = this.waiters.filter((waiter) => (this.requests.length >= waiter.count ? (waiter.resolve(), false) : true));
      // The responder in force when the answer is given (release() time for a held request).
      const respond = () => this.responder(req, res, recorded);
      if (this.held) this.held.push(respond);
      else respond();
    });
  });

  private constructor(options: RecordingServerOptions) {
    this.defaultPath = options.path ?? '/';
    this.defaultResponder = options.responder ?? answer(200);
    this.responder = this.defaultResponder;
  }

  static async start(options: RecordingServerOptions = {}): Promise<RecordingServer> {
    const recorder = new RecordingServer(options);
    await new Promise<void>((resolve) => recorder.server.listen(0, '127.0.0.1', resolve));
    return recorder;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  get origin(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  url(path = this.defaultPath): string {
    return `${this.origin}${path}`;
  }

  respondWith(responder: Responder): void {
    this.responder = responder;
  }

  /** Keep answers back (each request is still recorded) until release(). */
  hold(): void {
    this.held ??= [];
  }

  /** Answers what hold() kept back, and answers at once from now on. */
  release(): void {
    const pending = this.held ?? [];
    this.held = undefined;
    for (const respond of pending) respond();
  }

  /** Resolves once `count` requests have arrived (in all). */
  waitForRequests(count: number): Promise<void> {
    if (this.requests.length >= count) return Promise.resolve();
    return new Promise<void>((resolve) => this.waiters.push({ count, resolve }));
  }

  /** Forgets the requests and answers as at the start again. */
  reset(): void {
    this.requests.length = 0;
    this.responder = this.defaultResponder;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

export interface JwksServerOptions {
  /** Serve the key set at this path only (404 elsewhere, and only its requests count as fetches); default: at every path. */
  path?: string;
}

/**
 * A real JWKS endpoint on port 0. `keys` can change (rotation) and `mode` can simulate an
 * outage: `reset` drops the connection, `error` answers 503. Every request is recorded;
 * hold() keeps answers back until release() (a slow identity service).
 */
export class JwksServer {
  keys: object[] = [];
  mode: 'up' | 'reset' | 'error' = 'up';
  private recorder!: RecordingServer;
  private constructor(private readonly path: string | undefined) {}

  static async start(keys: object[] = [], options: JwksServerOptions = {}): Promise<JwksServer> {
    const jwks = new JwksServer(options.path);
    jwks.keys = keys;
    jwks.recorder = await RecordingServer.start({ responder: (req, res, recorded) => jwks.answer(req, res, recorded) });
    return jwks;
  }

  private answer(req: http.IncomingMessage, res: http.ServerResponse, recorded: RecordedRequest): void {
    if (!this.serves(recorded)) {
      res.writeHead(404).end();
      return;
    }
    if (this.mode === 'reset') {
      req.socket.destroy();
      return;
    }
    if (this.mode === 'error') {
      res.writeHead(503, { 'content-type': 'text/plain' }).end('unavailable');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json', connection: 'close' }).end(JSON.stringify({ keys: this.keys }));
  }

  private serves(request: RecordedRequest): boolean {
    return this.path === undefined || request.path === this.path;
  }

  /** Every request it received, whatever the path. */
  get requests(): RecordedRequest[] {
    return this.recorder.requests;
  }

  /** Requests for the key set (all requests unless a path was given). */
  get fetchCount(): number {
    return this.recorder.requests.filter((r) => this.serves(r)).length;
  }

  get url(): string {
    return `${this.origin}${this.path ?? '/.well-known/jwks.json'}`;
  }

  get origin(): string {
    return this.recorder.origin;
  }

  hold(): void {
    this.recorder.hold();
  }

  release(): void {
    this.recorder.release();
  }

  async close(): Promise<void> {
    await this.recorder.close();
  }
}
