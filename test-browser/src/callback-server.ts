import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The application the login returns to: a page at any path that records which paths were
 * requested. The tokens travel in the URL fragment, which browsers never send to a server;
 * the test reads them from the browser's address bar.
 */
export class CallbackServer {
  private constructor(
    private readonly server: Server,
    /** Every path requested so far. */
    readonly paths: string[],
  ) {}

  static async start(): Promise<CallbackServer> {
    const paths: string[] = [];
    const server = createServer((req, res) => {
      paths.push(req.url ?? '');
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
      res.end('<!doctype html><html lang="en"><head><title>Example app</title></head><body><h1>Back in the example app</h1></body></html>');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return new CallbackServer(server, paths);
  }

  url(path = '/callback'): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}${path}`;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
