export default async function globalTeardown(): Promise<void> {
  const launched = globalThis.__SMSAUTH_E2E__;
  if (!launched) return;
  await new Promise((resolve) => launched.control.close(resolve));
  await launched.stack.stop();
}
