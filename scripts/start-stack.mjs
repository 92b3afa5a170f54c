#!/usr/bin/env node
// `pnpm start`: the whole stack on this machine, each service in its own process.
import { startService, stopService, waitForReady } from './lib/stack.mjs';

const services = [
  { name: 'identity', port: Number(process.env.IDENTITY_PORT ?? 4000) },
  { name: 'sms-delivery-gateway', port: Number(process.env.GATEWAY_PORT ?? 4100) },
  { name: 'airport-api', port: Number(process.env.AIRPORT_API_PORT ?? 4200) },
];

const running = services.map((s) => ({ ...s, service: startService(s.name, { PORT: String(s.port) }) }));

let stopping = false;
async function stopAll(code) {
  if (stopping) return;
  stopping = true;
  await Promise.all(running.map((r) => stopService(r.service)));
  process.exit(code);
}
process.on('SIGINT', () => void stopAll(0));
process.on('SIGTERM', () => void stopAll(0));
for (const r of running) {
  r.service.exited.then(({ code }) => {
    if (!stopping) {
      console.error(`${r.name} exited unexpectedly (code ${code}); stopping the stack`);
      void stopAll(1);
    }
  });
}

try {
  await Promise.all(running.map((r) => waitForReady(`http://127.0.0.1:${r.port}`, { service: r.service })));
} catch (err) {
  console.error(err.message);
  await stopAll(1);
}
console.log('\nsmsauth is up:');
for (const r of running) console.log(`  ${r.name.padEnd(22)} http://localhost:${r.port}`);
console.log('\nPress Ctrl-C to stop.\n');
