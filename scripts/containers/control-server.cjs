// The e2e suite's control endpoint for a compose stack (E2E_CONTROL_URL): `POST /restart/<service>`
// restarts that service's container (SIGTERM, then start) and answers 204 once its /readyz
// answers 200 again, so the suite's restart case runs against the containers too.
// Listens on 127.0.0.1, on a free port; prints its URL as the first line of output.
// Reads SMSAUTH_ENGINE (docker or podman) and SMSAUTH_PROJECT (the compose project name).
const { execFile } = require('node:child_process');
const { createServer } = require('node:http');
// Built before this server starts (the script builds test-e2e's workspace dependencies).
const { StackUseGate } = require('../../packages/stack/dist/stack-use-gate.js');

const engine = process.env.SMSAUTH_ENGINE ?? 'podman';
const project = process.env.SMSAUTH_PROJECT ?? 'smsauth-test';
const ports = { identity: 4000, 'sms-delivery-gateway': 4100, 'airport-api': 4200 };

function run(args) {
  return new Promise((resolve, reject) => {
    execFile(engine, args, { timeout: 60_000 }, (err, stdout, stderr) => (err ? reject(new Error(stderr || err.message)) : resolve(stdout.trim())));
  });
}

async function waitForReady(port) {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const ok = await fetch(`http://127.0.0.1:${port}/readyz`).then((r) => r.ok, () => false);
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`not ready on port ${port} within 60 s`);
}

async function restart(service) {
  const name = (
    await run(['ps', '-a', '--filter', `label=com.docker.compose.project=${project}`, '--filter', `label=com.docker.compose.service=${service}`, '--format', '{{.Names}}'])
  ).split('\n')[0];
  if (!name) throw new Error(`no container for ${service}`);
  await run(['restart', '-t', '10', name]);
  await waitForReady(ports[service]);
}

// The suites run in jest's workers side by side: each is inside the stack from its first hook to
// its last (POST /suites/enter and /suites/leave), and a restart waits until its suite is alone.
const gate = new StackUseGate();

const server = createServer((req, res) => {
  if (req.method === 'POST' && (req.url === '/suites/enter' || req.url === '/suites/leave')) {
    const step = req.url === '/suites/enter' ? gate.enter() : Promise.resolve(gate.leave());
    step.then(() => res.writeHead(204).end());
    return;
  }
  const match = /^\/restart\/([\w-]+)$/.exec(req.url ?? '');
  const service = match?.[1];
  if (req.method !== 'POST' || !service || !(service in ports)) {
    res.writeHead(404).end();
    return;
  }
  gate.alone(() => restart(service)).then(
    () => {
      console.error(`control: restarted ${service}`);
      res.writeHead(204).end();
    },
    (err) => res.writeHead(500, { 'content-type': 'text/plain' }).end(err.message),
  );
});
server.listen(0, '127.0.0.1', () => console.log(`http://127.0.0.1:${server.address().port}`));
for (const signal of ['SIGTERM', 'SIGINT']) {
  process.on(signal, () => {
    server.close(() => process.exit(0));
    setTimeout(() => process.exit(0), 2000).unref();
  });
}
