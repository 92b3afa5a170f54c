import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readCodeFromOutbox } from '../src/outbox';

/** A dev outbox answering one fixed list of messages, as the gateway's `/outbox/messages` does. */
async function outboxWith(messages: Array<{ body: string; received_at: string }>): Promise<{ url: string; server: Server }> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(messages));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

describe('reading a code from the dev outbox', () => {
  const servers: Server[] = [];
  afterAll(async () => {
    await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  });

  async function codeIn(body: string): Promise<string> {
    const outbox = await outboxWith([{ body, received_at: new Date().toISOString() }]);
    servers.push(outbox.server);
    return readCodeFromOutbox(outbox.url, '+14155551234', { timeoutMs: 0 });
  }

  it('takes the code, not digits in the application name before it', async () => {
    await expect(codeIn('Your compat-app-m1x2-483920 verification code is: 051937')).resolves.toBe('051937');
    await expect(codeIn('Your App 2024 verification code is: 7741')).resolves.toBe('7741');
  });

  it('takes the code from a message that has nothing else', async () => {
    await expect(codeIn('Your code is 123456')).resolves.toBe('123456');
  });

  it('takes the newest message received after notBefore', async () => {
    const outbox = await outboxWith([
      { body: 'Your code is 222222', received_at: '2026-11-24T10:00:05Z' },
      { body: 'Your code is 111111', received_at: '2026-11-24T09:00:00Z' },
    ]);
    servers.push(outbox.server);
    await expect(readCodeFromOutbox(outbox.url, '+14155551234', { notBefore: new Date('2026-11-24T10:00:00Z'), timeoutMs: 0 })).resolves.toBe('222222');
  });
});
