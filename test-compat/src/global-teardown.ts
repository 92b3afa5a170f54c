import type { Server } from 'node:https';

export default async function globalTeardown(): Promise<void> {
  const launched = globalThis.__SMSAUTH_COMPAT__;
  if (!launched) return;
  await Promise.all([launched.terminator, launched.deployCliTerminator].map(close));
  await launched.stack.stop();
}

function close(terminator: Server): Promise<unknown> {
  terminator.closeAllConnections();
  return new Promise((resolve) => terminator.close(resolve));
}
