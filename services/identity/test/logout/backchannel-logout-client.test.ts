import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { RecordingServer } from '@smsauth/test-support';
import { createBackchannelLogoutClient } from '../../src/delivery/backchannel-logout-client';
import { BackchannelLogoutPostError } from '../../src/domain/logout/backchannel';

// The HTTP side of back-channel logout (SSRF care): one POST of a form, no redirect followed, a
// deadline for the whole call, and GATEWAY_URL_POLICY's address rules.
describe('back-channel logout client', () => {
  const servers: Array<{ close(): Promise<void> | void }> = [];
  afterAll(async () => {
    for (const server of servers) await server.close();
  });

  async function recorder(): Promise<RecordingServer> {
    const server = await RecordingServer.start({ path: '/bcl' });
    servers.push(server);
    return server;
  }

  it('POSTs the form as given, and answers the status', async () => {
    const rp = await recorder();
    const client = createBackchannelLogoutClient({ policy: 'any', timeoutMs: 2000 });
    expect(await client.post({ url: rp.url(), body: 'logout_token=a.b.c' })).toMatchObject({ status: 200 });
    expect(rp.requests).toEqual([expect.objectContaining({ method: 'POST', path: '/bcl', body: 'logout_token=a.b.c' })]);
    expect(rp.requests[0]!.headers['content-type']).toBe('application/x-www-form-urlencoded');
    client.close();
  });

  it('does not follow a redirect: the status comes back and the target gets nothing', async () => {
    const target = await recorder();
    const rp = await recorder();
    rp.respondWith((_req, res) => void res.writeHead(307, { Location: target.url() }).end());
    const client = createBackchannelLogoutClient({ policy: 'any', timeoutMs: 2000 });
    expect(await client.post({ url: rp.url(), body: 'logout_token=x' })).toMatchObject({ status: 307 });
    expect(target.requests).toEqual([]);
    client.close();
  });

  it('gives up on a receiver that does not answer within the deadline', async () => {
    const silent = http.createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    servers.push({ close: () => void (silent.closeAllConnections(), silent.close()) });
    const client = createBackchannelLogoutClient({ policy: 'any', timeoutMs: 200 });
    const started = Date.now();
    const failure = await client.post({ url: `http://127.0.0.1:${(silent.address() as AddressInfo).port}/bcl`, body: 'logout_token=x' }).catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(BackchannelLogoutPostError);
    expect((failure as BackchannelLogoutPostError).reason).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(2000);
    client.close();
  });

  it('under GATEWAY_URL_POLICY=public refuses loopback and private addresses, literal or resolved', async () => {
    const rp = await recorder();
    const client = createBackchannelLogoutClient({
      policy: 'public',
      timeoutMs: 2000,
      resolveHost: async () => [{ address: '10.0.0.7', family: 4 }],
    });
    for (const url of [rp.url(), 'https://rp.example.com/bcl']) {
      const failure = await client.post({ url, body: 'logout_token=x' }).catch((err: unknown) => err);
      expect([failure instanceof BackchannelLogoutPostError, (failure as BackchannelLogoutPostError).reason]).toEqual([true, 'refused']);
    }
    expect(rp.requests).toEqual([]);
    client.close();
  });
});
