// RS256 operations per second of node:crypto on one core: the baseline the token endpoints
// and the cold-cache API are compared with. argv: sign|verify <key-file.json> <durationMs>.
// The key file holds {privateKeyPem?, publicJwk?, signingInput, signature?}: the same key size
// and a real token's signing input, so the work is what the services do per token.
import { createPrivateKey, createPublicKey, sign, verify } from 'node:crypto';
import { readFileSync } from 'node:fs';

const [operation, keyFile, durationText] = process.argv.slice(2);
const material = JSON.parse(readFileSync(keyFile, 'utf8'));
const durationMs = Number(durationText);
const data = Buffer.from(material.signingInput);

let run;
if (operation === 'sign') {
  const key = createPrivateKey(material.privateKeyPem);
  run = () => sign('sha256', data, key);
} else {
  const key = createPublicKey({ key: material.publicJwk, format: 'jwk' });
  const signature = Buffer.from(material.signature, 'base64url');
  run = () => {
    if (!verify('sha256', data, key, signature)) throw new Error('signature did not verify');
  };
}
// Warm up, then count operations in the measured window.
const warmEnd = performance.now() + Math.min(300, durationMs / 4);
while (performance.now() < warmEnd) run();
let count = 0;
const start = performance.now();
let now = start;
while (now - start < durationMs) {
  for (let i = 0; i < 20; i++) run();
  count += 20;
  now = performance.now();
}
process.stdout.write(`${JSON.stringify({ operation, perSecond: (count * 1000) / (now - start), count })}\n`);
