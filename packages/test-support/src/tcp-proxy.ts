import net from 'node:net';

export interface TcpProxyTarget {
  host: string;
  port: number;
}

export type TcpProxyState = 'open' | 'paused' | 'cut' | 'closed';

/**
 * A fault-injection TCP proxy in front of a dependency (PostgreSQL, an HTTP server). It
 * listens on 127.0.0.1 on a port of its own and forwards every connection to the target.
 */
export interface TcpProxy {
  readonly host: string;
  /** Stays the same across cut() and restore(). */
  readonly port: number;
  readonly state: TcpProxyState;
  /** Client connections currently open through the proxy. */
  readonly openConnections: number;
  /** `url` with its host and port replaced by the proxy's (credentials, path and query kept). */
  proxiedUrl(url: string): string;
  /**
   * A hung dependency: open connections stop forwarding (data is held, not lost) and new
   * connections are accepted but get no answer. restore() lets the held data through.
   */
  pause(): void;
  /**
   * An outage (a database restart, a crash): every open connection is reset and new ones
   * are refused (ECONNREFUSED) until restore().
   */
  cut(): Promise<void>;
  /** Forwards again, on the same port. */
  restore(): Promise<void>;
  /** Resets every connection and stops listening for good. */
  close(): Promise<void>;
}

/** Starts a proxy on 127.0.0.1, port 0 (the OS picks), forwarding to `target`. */
export async function startTcpProxy(target: TcpProxyTarget): Promise<TcpProxy> {
  const host = '127.0.0.1';
  const sockets = new Set<net.Socket>();
  const clients = new Set<net.Socket>();
  let state: TcpProxyState = 'open';

  const track = (socket: net.Socket): void => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    // A reset peer is the point of this helper, not a test failure.
    socket.on('error', () => undefined);
  };

  // No pipe(): pipe() resumes a source on 'drain', which would undo pause(). Writes just
  // buffer in memory, which is fine for a test helper.
  const forward = (from: net.Socket, to: net.Socket): void => {
    from.on('data', (chunk: Buffer) => to.write(chunk));
    from.on('end', () => to.end());
    from.on('close', () => to.destroy());
  };

  const onConnection = (client: net.Socket): void => {
    track(client);
    clients.add(client);
    client.on('close', () => clients.delete(client));
    if (state === 'cut' || state === 'closed') {
      reset(client);
      return;
    }
    const upstream = net.connect(target.port, target.host);
    track(upstream);
    forward(client, upstream);
    forward(upstream, client);
    if (state === 'paused') {
      client.pause();
      upstream.pause();
    }
  };

  let server = net.createServer(onConnection);
  await listen(server, 0, host);
  const port = (server.address() as net.AddressInfo).port;

  const resetAll = (): void => {
    for (const socket of sockets) reset(socket);
  };

  return {
    host,
    port,
    get state() {
      return state;
    },
    get openConnections() {
      return clients.size;
    },
    proxiedUrl(url: string): string {
      const parsed = new URL(url);
      parsed.hostname = host;
      parsed.port = String(port);
      return parsed.toString();
    },
    pause() {
      if (state !== 'open') throw new Error(`cannot pause a proxy that is ${state}`);
      state = 'paused';
      for (const socket of sockets) socket.pause();
    },
    async cut() {
      if (state === 'closed') throw new Error('the proxy is closed');
      if (state === 'cut') return;
      state = 'cut';
      resetAll();
      // Not listening is what makes a new connection fail with ECONNREFUSED.
      await closeServer(server);
    },
    async restore() {
      if (state === 'closed') throw new Error('the proxy is closed');
      if (state === 'cut') {
        server = net.createServer(onConnection);
        await listen(server, port, host);
      }
      state = 'open';
      for (const socket of sockets) socket.resume();
    },
    async close() {
      const wasListening = state !== 'cut' && state !== 'closed';
      state = 'closed';
      resetAll();
      if (wasListening) await closeServer(server);
    },
  };
}

function reset(socket: net.Socket): void {
  // An RST, as a crashed peer or a dropped route produces, rather than a polite FIN. Not on a
  // socket already ending: libuv refuses to reset a handle with a shutdown under way (EINVAL),
  // and Node then never closes that handle, which kept the test process alive after every suite.
  const resettable = typeof socket.resetAndDestroy === 'function' && socket.readyState !== 'opening' && !socket.writableEnded;
  if (resettable) socket.resetAndDestroy();
  else socket.destroy();
}

function listen(server: net.Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

function closeServer(server: net.Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}
