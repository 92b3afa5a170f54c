/**
 * The token of an `Authorization: Bearer <OUTBOX_TOKEN>` header; undefined when there is none.
 * Any run of non-space characters, not only RFC 6750 token68 (the kit's `bearerToken`):
 * OUTBOX_TOKEN is whatever the operator chose, and one with `!`, `#` or `:` in it must keep
 * working. Delivery tokens (JWTs) use the kit's stricter grammar.
 */
export function presentedOutboxToken(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  return /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header)?.[1];
}
