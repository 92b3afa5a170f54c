import https from 'node:https';
import { rootCertificates } from 'node:tls';
import { Agent, setGlobalDispatcher } from 'undici';

/**
 * Makes this process trust `caPem` on top of the usual roots, as a user's test would, for both
 * HTTP stacks the SDKs use: Node's global fetch (auth0, auth-js, openid-client, jose) goes
 * through undici's global dispatcher; jwks-rsa, express-oauth2-jwt-bearer and the legacy
 * client's JWKS fetch use `https` and its global agent.
 *
 * Must run in the realm where Node's fetch lives (not inside a jest test's vm context, whose
 * globalThis is a different object): see tls-trusting-environment.ts.
 */
export function trustCertificate(caPem: string): void {
  // Once per process: the environment is set up again for every test file run in band.
  const trusted = Symbol.for('smsauth.test-compat.trusted-ca');
  const holder = globalThis as { [trusted]?: string };
  if (holder[trusted] === caPem) return;
  holder[trusted] = caPem;
  const ca = [...rootCertificates, caPem];
  setGlobalDispatcher(new Agent({ connect: { ca } }));
  https.globalAgent = new https.Agent({ ca, keepAlive: true });
}
