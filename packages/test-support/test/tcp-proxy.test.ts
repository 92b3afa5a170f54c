import net from 'node:net';
import { startTcpProxy, type TcpProxy } from '../src/tcp-proxy';

/** A line-echo server: answers every chunk with "echo:<chunk>". */
async function startEchoServer(): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    socket.on('data', (chunk) => socket.write(`echo:${chunk.toString()}`));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

function connect(port: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => resolve(socket));
    socket.once('error', reject);
  });
}

function nextData(socket: net.Socket): Promise<string> {
  return new Promise((resolve) => socket.once('data', (chunk) => resolve(chunk.toString())));
}

function closed(socket: net.Socket): Promise<void> {
  return new Promise((resolve) => {
    if (socket.destroyed) resolve();
    else socket.once('close', () => resolve());
  });
}

describe('startTcpProxy', () => {
  let echo: Awaited<ReturnType<typeof startEchoServer>>;
  let proxy: TcpProxy;
  const opened: net.Socket[] = [];

  beforeEach(async () => {
    echo = await startEchoServer();
    proxy = await startTcpProxy({ host: '127.0.0.1', port: echo.port });
  });
  afterEach(async () => {
    for (const socket of opened.splice(0)) socket.destroy();
    await proxy.close();
    await echo.close();
  });

  async function client(): Promise<net.Socket> {
    const socket = await connect(proxy.port);
    socket.on('error', () => undefined);
    opened.push(socket);
    return socket;
  }

  it('forwards data both ways', async () => {
    const socket = await client();
    const answer = nextData(socket);
    socket.write('hello');
    expect(await answer).toBe('echo:hello');
    expect(proxy.openConnections).toBe(1);
  });

  it('holds data while paused and lets it through on restore', async () => {
    const socket = await client();
    proxy.pause();
    let received: string | undefined;
    const answer = nextData(socket).then((text) => (received = text));
    socket.write('held');
    // Give a forwarded round trip ample time to happen if the pause did not hold it.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(received).toBeUndefined();
    await proxy.restore();
    expect(await answer).toBe('echo:held');
  });

  it('resets open connections and refuses new ones when cut, and forwards again after restore', async () => {
    const socket = await client();
    const gone = closed(socket);
    await proxy.cut();
    await gone;
    expect(proxy.state).toBe('cut');
    await expect(connect(proxy.port)).rejects.toMatchObject({ code: 'ECONNREFUSED' });

    await proxy.restore();
    const again = await client();
    const answer = nextData(again);
    again.write('back');
    expect(await answer).toBe('echo:back');
  });

  it('rewrites a URL to point at the proxy, keeping credentials and path', () => {
    expect(proxy.proxiedUrl('postgres://user:pw@db.example:5432/test?sslmode=disable')).toBe(
      `postgres://user:pw@127.0.0.1:${proxy.port}/test?sslmode=disable`,
    );
  });

  it('refuses connections for good once closed', async () => {
    await proxy.close();
    await expect(connect(proxy.port)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });
});
