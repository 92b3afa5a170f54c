import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** The client's source port: equal ports mean a reused (keep-alive) connection. */
  remotePort: number | undefined;
}

export type Responder = (req: http.IncomingMessage, res: http.ServerResponse) => void;

/** Answers every request with `status` and an empty body. */
export const answer =
  (status: number, headers: Record<string, string> = {}): Responder =>
  (_req, res) => {
    res.writeHead(status, headers);
    res.end();
  };

/** Never answers (the socket stays open until the server closes). */
export const hang: Responder = () => undefined;

/**
 * A stand-in for the customer's delivery gateway: a real HTTP server on port 0 that records
 * each request (method, path, headers, body) and answers as the test chooses.
 */
export class RecordingServer {
  readonly requests: RecordedRequest[] = [];
  private responder: Responder = answer(200);
  private readonly server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      this.requests.push({
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        remotePort: req.socket.remotePort,
      });
      this.responder(req, res);
    });
  });

  static async start(): Promise<RecordingServer> {
    const recorder = new RecordingServer();
    await new Promise<void>((resolve) => recorder.server.listen(0, '127.0.0.1', resolve));
    return recorder;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  url(path = '/sms'): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  respondWith(responder: Responder): void {
    this.responder = responder;
  }

  reset(): void {
    this.requests.length = 0;
    this.responder = answer(200);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** A port nothing listens on: bound, read, then released. */
export async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
