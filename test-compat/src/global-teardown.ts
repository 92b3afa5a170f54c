export default async function globalTeardown(): Promise<void> {
  const launched = globalThis.__SMSAUTH_COMPAT__;
  if (!launched) return;
  launched.terminator.closeAllConnections();
  await new Promise((resolve) => launched.terminator.close(resolve));
  await launched.stack.stop();
}
