import { randomBytes } from 'node:crypto';

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** Uniform random alphanumeric string (rejection sampling, no modulo bias). */
export function randomAlphanumeric(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += ALPHANUMERIC[byte % 62];
    }
  }
  return out;
}

/** Record ids in the reference product's style: `con_...`, `cgr_...`, `rs_...`. */
export function newId(prefix: 'con' | 'cgr' | 'rs' | 'rt' | 'pwl' | 'cred' | 'lst' | 'rol' | 'job'): string {
  return `${prefix}_${randomAlphanumeric(16)}`;
}

/** Client ids are 32 alphanumerics, as in the reference product. */
export function newClientId(): string {
  return randomAlphanumeric(32);
}

/** The id part of `sms|<id>` user ids. */
export function newUserIdPart(): string {
  return randomBytes(12).toString('hex');
}
