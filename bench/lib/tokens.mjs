import { generateKeyPairSync } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Runs `task(i)` for i in [0, count) with at most `concurrency` at once; results in order. */
export async function pool(count, concurrency, task) {
  const results = new Array(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, count) }, async () => {
      while (next < count) {
        const i = next++;
        results[i] = await task(i);
      }
    }),
  );
  return results;
}

/** POST JSON, expecting 200; returns the parsed body. */
export async function postJson(url, body, headers = {}) {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json', ...headers }, body: JSON.stringify(body) });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`POST ${url} answered ${res.status}: ${text}`);
  return JSON.parse(text);
}

/** The identity service's current public key and a real token's signing input and signature. */
export async function keyMaterialFromToken(authUrl, token, workDir) {
  const [headerSegment, payloadSegment, signature] = token.split('.');
  const { kid } = JSON.parse(Buffer.from(headerSegment, 'base64url').toString());
  const jwks = await (await fetch(`${authUrl}/.well-known/jwks.json`)).json();
  const jwk = jwks.keys.find((k) => k.kid === kid);
  const modulusLength = Buffer.from(jwk.n, 'base64url').length * 8;
  // Same size as the identity key; its private half never leaves the identity service.
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength });
  const file = join(workDir, `key-material-${kid}.json`);
  writeFileSync(
    file,
    JSON.stringify({
      publicJwk: { kty: jwk.kty, n: jwk.n, e: jwk.e },
      privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }),
      signingInput: `${headerSegment}.${payloadSegment}`,
      signature,
    }),
  );
  return { file, modulusLength };
}

/** Counter values of a Prometheus text exposition, by metric{labels} line prefix. */
export async function scrapeCounter(url, metricWithLabels) {
  const text = await (await fetch(`${url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(metricWithLabels));
  return line ? Number(line.split(' ').at(-1)) : 0;
}
