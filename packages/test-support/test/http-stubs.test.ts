import { answer, JwksServer, RecordingServer } from '../src/http-stubs';

describe('RecordingServer', () => {
  let server: RecordingServer;
  beforeEach(async () => {
    server = await RecordingServer.start({ path: '/hook' });
  });
  afterEach(() => server.close());

  it('records method, path, headers and body, and answers 200 until told otherwise', async () => {
    const res = await fetch(server.url(), { method: 'POST', headers: { 'x-test': 'yes' }, body: 'hello' });
    expect(res.status).toBe(200);
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]).toMatchObject({ method: 'POST', path: '/hook', body: 'hello', headers: expect.objectContaining({ 'x-test': 'yes' }) });

    server.respondWith(answer(418, { 'content-type': 'text/plain' }, 'teapot'));
    const changed = await fetch(server.url('/other?q=1'));
    expect([changed.status, await changed.text()]).toEqual([418, 'teapot']);
    expect(server.requests[1]?.path).toBe('/other?q=1');

    server.reset();
    expect(server.requests).toEqual([]);
    expect((await fetch(server.url())).status).toBe(200);
  });

  it('holds answers until released, the request recorded meanwhile', async () => {
    server.hold();
    let answered = false;
    const pending = fetch(server.url()).then((res) => {
      answered = true;
      return res.status;
    });
    await server.waitForRequests(1);
    await new Promise((r) => setTimeout(r, 50));
    expect(answered).toBe(false);
    server.release();
    expect(await pending).toBe(200);
  });
});

describe('JwksServer', () => {
  it('serves the current key set, counts fetches and simulates outages', async () => {
    const jwks = await JwksServer.start([{ kid: 'a' }]);
    try {
      expect(await (await fetch(jwks.url)).json()).toEqual({ keys: [{ kid: 'a' }] });
      jwks.keys = [{ kid: 'b' }];
      expect(await (await fetch(jwks.url)).json()).toEqual({ keys: [{ kid: 'b' }] });
      jwks.mode = 'error';
      expect((await fetch(jwks.url)).status).toBe(503);
      jwks.mode = 'reset';
      await expect(fetch(jwks.url)).rejects.toThrow();
      expect(jwks.fetchCount).toBe(4);
      expect(jwks.requests.map((r) => r.path)).toEqual(Array(4).fill('/.well-known/jwks.json'));
    } finally {
      await jwks.close();
    }
  });

  it('with a path, answers 404 elsewhere and counts only key-set fetches', async () => {
    const jwks = await JwksServer.start([], { path: '/.well-known/jwks.json' });
    try {
      expect((await fetch(`${jwks.origin}/elsewhere`)).status).toBe(404);
      expect((await fetch(jwks.url)).status).toBe(200);
      expect(jwks.fetchCount).toBe(1);
      expect(jwks.requests).toHaveLength(2);
    } finally {
      await jwks.close();
    }
  });
});
