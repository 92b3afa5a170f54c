import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A real JWKS endpoint on port 0. `keys` can change (rotation) and `mode` can simulate an
 * outage: `reset` drops the connection, `error` answers 503. Every request is recorded.
 */
export class JwksServer {
  keys: object[] = [];
  mode: 'up' | 'reset' | 'error' = 'up';
  readonly requests: string[] = [];
  private server: Server | undefined;
  private port = 0;

  static async start(keys: object[] = []): Promise<JwksServer> {
    const jwks = new JwksServer();
    jwks.keys = keys;
    await jwks.listen();
    return jwks;
  }

  private async listen(): Promise<void> {
    this.server = createServer((req, res) => {
      this.requests.push(req.url ?? '');
      if (this.mode === 'reset') {
        req.socket.destroy();
        return;
      }
      if (this.mode === 'error') {
        res.writeHead(503, { 'content-type': 'text/plain' }).end('unavailable');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json', connection: 'close' }).end(JSON.stringify({ keys: this.keys }));
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.port = (this.server?.address() as AddressInfo).port;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/.well-known/jwks.json`;
  }

  get origin(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get fetchCount(): number {
    return this.requests.length;
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }
}
