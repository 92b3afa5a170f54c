#!/usr/bin/env node
// `pnpm start`: the whole stack on this machine, each service in its own process.
import { join } from 'node:path';
import { launchStack, type LaunchedStack } from './launcher';
import { demoAppCallbackUrl } from './seed';
import { repoRoot } from './processes';
import { consoleCallbackUrl } from './operators';
import { DEMO_PHONE_NUMBER, tryItInstructions } from './try-it';

async function main(): Promise<void> {
  // Listening from the start: a signal while the stack starts (only the launcher signalled, by
  // a supervisor or `kill`) stops the services already spawned instead of orphaning them.
  const launching = new AbortController();
  let stack: LaunchedStack | undefined;
  let stopping = false;
  const stopAll = async (code: number) => {
    if (stopping) return;
    stopping = true;
    await stack?.stop();
    process.exit(code);
  };
  const onStop = () => (stack ? void stopAll(0) : launching.abort());
  process.on('SIGINT', onStop);
  process.on('SIGTERM', onStop);
  // A supervisor that signals only pnpm leaves us orphaned: stop with it rather than linger.
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid !== parent) onStop();
  }, 1000).unref();
  try {
    stack = await launchStack({ echo: true, signal: launching.signal });
  } catch (err) {
    if (!launching.signal.aborted) throw err;
    console.error('stopped while starting; no service is left running');
    process.exit(0);
  }
  for (const [name, service] of stack.services) {
    void service.exited.then(({ code }) => {
      if (stopping) return;
      console.error(`${name} exited unexpectedly (code ${code}); stopping the stack`);
      void stopAll(1);
    });
  }

  const { urls, tenant, gatewayDelivery } = stack;
  const outbox = gatewayDelivery.provider === 'outbox' && !gatewayDelivery.routes;
  const delivery = outbox
    ? `(dev outbox: ${urls.gatewayUrl}/outbox/messages)`
    : `(provider ${gatewayDelivery.provider}${gatewayDelivery.routes ? ', routed by SMS_ROUTES' : ''}: codes go out as real messages)`;
  const readTheCode = outbox
    ? `read the code\non the dev inbox page ${urls.gatewayUrl}/outbox`
    : 'read the code\nthat reaches your phone';
  console.log(`
smsauth is up.

  identity              ${urls.authUrl}   (JWKS: ${urls.authUrl}/.well-known/jwks.json)
  sms-delivery-gateway  ${urls.gatewayUrl}   ${delivery}
  airport-api           ${urls.baseUrl}   (GET /airportName?iataCode=SFO)
  demo web app          ${urls.demoAppUrl}   (open it in a browser: "Sign in with your phone")
  operator console      ${urls.authUrl}/console/   (sign in as the first operator, ${DEMO_PHONE_NUMBER}; docs/console.md)

  API reference pages   ${urls.authUrl}/docs
                        ${urls.gatewayUrl}/docs
                        ${urls.baseUrl}/docs

  demo client id        ${tenant.demoClientId}
  demo web app client   ${tenant.demoAppClientId}   (SPA, callback ${demoAppCallbackUrl(urls.demoAppUrl)})
  console client        ${tenant.consoleClientId}   (SPA, callback ${consoleCallbackUrl(urls.authUrl)})
  first operator        ${DEMO_PHONE_NUMBER} (role Admin; signs in by SMS). More: pnpm operator:add <number> --role Support
  connection            ${tenant.connectionName}
  API audience          ${stack.apiAudience}
  admin client id       ${stack.adminClientId}   (its secret: "adminClientSecret" in ${join(repoRoot, '.data', 'stack.json')})

Try it in a browser: open ${urls.demoAppUrl}, sign in with ${outbox ? 'any phone number' : 'your phone number'} and ${readTheCode}; the page then shows the ID token's claims and the
airport API's answer for SFO.
${
  outbox
    ? `
Or in a shell (or run \`pnpm demo\` in another terminal):

${tryItInstructions(stack)}
`
    : ''
}
Press Ctrl-C to stop.
`);
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
