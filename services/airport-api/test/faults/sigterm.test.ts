import { type KeyObject } from 'node:crypto';
import { resolve } from 'node:path';
import { builtEntryPoint, exitWithin, JwksServer, startServiceProcess, untilNewRequestsRefused, type ServiceProcess, detachedKeyPair } from '@smsauth/test-support';
import jwt from 'jsonwebtoken';

const ENTRY = resolve(__dirname, '../../dist/main.js');
const SUITE = 'airport-api: SIGTERM during in-flight requests (faults)';

function rsaKey(kid: string): { kid: string; privateKey: KeyObject; jwk: object } {
  const { privateKey, publicKey } = detachedKeyPair('rsa', { modulusLength: 2048 });
  return { kid, privateKey, jwk: { ...publicKey.export({ format: 'jwk' }), kid, use: 'sig', alg: 'RS256' } };
}

(builtEntryPoint(ENTRY, SUITE, 'pnpm -C services/airport-api build') ? describe : describe.skip)(SUITE, () => {
  const oldKey = rsaKey('key-before-rotation');
  const newKey = rsaKey('key-after-rotation');
  /** The identity's JWKS: the old key at first; a later fetch (the rotation) waits until released. */
  let jwks: JwksServer;
  let authUrl: string;
  let airport: ServiceProcess | undefined;

  beforeAll(async () => {
    jwks = await JwksServer.start([oldKey.jwk]);
    authUrl = jwks.origin;
  });
  afterAll(async () => {
    jwks.release();
    await airport?.kill();
    await jwks.close();
  });

  it('finishes a call waiting on a slow JWKS fetch, refuses new work, and exits 0 within 10 s', async () => {
    airport = await startServiceProcess(ENTRY, { AUTH_URL: authUrl });
    const { url } = airport;
    // An unknown kid refetches at most once a second: let the start-up fetch age past that.
    await new Promise((r) => setTimeout(r, 1_200));

    // A token of a freshly rotated key: the call waits for a JWKS fetch that the test holds.
    jwks.keys = [oldKey.jwk, newKey.jwk];
    jwks.hold();
    const fetchesBefore = jwks.fetchCount;
    const now = Math.floor(Date.now() / 1000);
    const token = jwt.sign({ iss: `${authUrl}/`, aud: 'https://airport-api.example.com', sub: 'sms|abc', iat: now, exp: now + 600 }, newKey.privateKey, {
      algorithm: 'RS256',
      keyid: newKey.kid,
    });
    let finished = false;
    const inFlight = fetch(`${url}/airportName?iataCode=SFO`, { headers: { authorization: `Bearer ${token}` } }).finally(() => (finished = true));
    while (jwks.fetchCount === fetchesBefore) await new Promise((r) => setTimeout(r, 20));

    airport.child.kill('SIGTERM');
    const exit = exitWithin(airport, 10_000);
    await untilNewRequestsRefused(url);
    expect(finished).toBe(false); // refused new work while the call was still waiting for its key

    jwks.release();
    const res = await inFlight;
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('San Francisco International Airport');
    expect(await exit).toEqual({ code: 0, signal: null });
    // Starting a process, its start-up JWKS fetch and the 10 s exit budget above: jest's default
    // 5 s per test is less than the test's own budget, and ran out on a loaded machine.
  }, 30_000);
});
