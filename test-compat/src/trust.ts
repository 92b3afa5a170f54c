import https from 'node:https';
import { rootCertificates } from 'node:tls';
import { Agent, setGlobalDispatcher } from 'undici';

/** Where undici (Node's own fetch and the npm package alike) keeps the global dispatcher. */
const GLOBAL_DISPATCHER = Symbol.for('undici.globalDispatcher.1');

/**
 * Makes this process trust `caPem` on top of the usual roots, as a user's test would, for both
 * HTTP stacks the SDKs use: Node's global fetch (auth0, auth-js, openid-client, jose) goes
 * through undici's global dispatcher; jwks-rsa, express-oauth2-jwt-bearer and the legacy
 * client's JWKS fetch use `node:https` and its global agent. Returns what puts both back, so
 * other projects' tests sharing the process (jest in band) never see the change.
 *
 * Must run in the realm where Node's fetch lives (not inside a jest test's vm context, whose
 * globalThis is a different object): see tls-trusting-environment.ts.
 */
export function trustCertificate(caPem: string): () => void {
  const holder = globalThis as unknown as Record<symbol, unknown>;
  const previousDispatcher = holder[GLOBAL_DISPATCHER];
  const previousAgent = https.globalAgent;
  const ca = [...rootCertificates, caPem];
  const dispatcher = new Agent({ connect: { ca } });
  const agent = new https.Agent({ ca, keepAlive: true });
  setGlobalDispatcher(dispatcher);
  https.globalAgent = agent;
  return () => {
    holder[GLOBAL_DISPATCHER] = previousDispatcher;
    https.globalAgent = previousAgent;
    agent.destroy();
    void dispatcher.close();
  };
}
