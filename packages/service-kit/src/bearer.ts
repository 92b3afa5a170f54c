// RFC 6750 §2.1: `Bearer` (any case), whitespace, a token68, optional trailing whitespace.
const BEARER_HEADER = /^Bearer\s+([A-Za-z0-9._~+/-]+=*)\s*$/i;

/** The token of an `Authorization: Bearer <token68>` header, or undefined when there is none. */
export function bearerToken(authorization: string | undefined): string | undefined {
  return BEARER_HEADER.exec(authorization ?? '')?.[1];
}
