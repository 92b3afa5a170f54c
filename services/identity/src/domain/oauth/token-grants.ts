import type { IncomingHttpHeaders } from 'node:http';

/** What a grant handler sees of a `POST /oauth/token` request. */
export interface TokenGrantRequest {
  /** Parsed JSON or form body (an object; fields unvalidated). */
  body: Record<string, unknown>;
  headers: IncomingHttpHeaders;
  /** Client address, honouring TRUST_PROXY. */
  ip: string;
}

/** Successful token response body; errors are thrown as HttpError. */
export type TokenGrantHandler = (request: TokenGrantRequest) => Promise<Record<string, unknown>>;

/**
 * `POST /oauth/token` dispatches on `grant_type` through this registry, so each grant
 * (client_credentials here, passwordless/otp and refresh_token in the flow) is its own module.
 */
export class TokenGrantRegistry {
  private readonly handlers = new Map<string, TokenGrantHandler>();

  register(grantType: string, handler: TokenGrantHandler): this {
    if (this.handlers.has(grantType)) throw new Error(`grant type ${grantType} registered twice`);
    this.handlers.set(grantType, handler);
    return this;
  }

  handlerFor(grantType: string): TokenGrantHandler | undefined {
    return this.handlers.get(grantType);
  }

  /** For discovery's grant_types_supported. */
  grantTypes(): string[] {
    return [...this.handlers.keys()];
  }
}
