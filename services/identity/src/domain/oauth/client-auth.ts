import type { IncomingHttpHeaders } from 'node:http';
import { ErrorCodes, JWT_BEARER_ASSERTION_TYPE } from '@smsauth/contracts';
import { HttpError } from '@smsauth/service-kit';
import type { StoredClient } from '../../store';
import { verifyClientSecret } from '../crypto/client-secret';
import { assertionSubject, spendVerificationTime, verifyClientAssertion, type ClientAssertionDependencies } from './client-assertion';

/*
 * Client authentication, one module for every endpoint that takes it (/passwordless/start,
 * /oauth/token, /oauth/ro, /oauth/revoke). A client's token_endpoint_auth_method says what it
 * must present: nothing (`none`), its secret in the body or by HTTP Basic
 * (`client_secret_post` / `client_secret_basic`, either way accepted), or a signed assertion
 * (`private_key_jwt`). Every failure is the same 401 invalid_client, whichever part was wrong.
 */

export function invalidClient(): HttpError {
  return new HttpError(401, ErrorCodes.INVALID_CLIENT, 'Client authentication failed', {
    headers: { 'WWW-Authenticate': 'Basic realm="oauth", error="invalid_client"' },
  });
}

/** client_secret_basic: `Authorization: Basic base64(client_id:client_secret)` (RFC 6749 2.3.1). */
function basicCredentials(headers: IncomingHttpHeaders): { clientId: string; clientSecret: string } | undefined {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(headers.authorization ?? '');
  if (!match) return undefined;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  const unescape = (v: string) => {
    try {
      return decodeURIComponent(v.replace(/\+/g, ' '));
    } catch {
      return v;
    }
  };
  return { clientId: unescape(decoded.slice(0, colon)), clientSecret: unescape(decoded.slice(colon + 1)) };
}

/**
 * Checks a confidential client's secret (from the body or Basic
 * auth). Unknown client, public client and wrong secret all give the same 401, so none can be
 * told apart.
 */
function requireClientSecret(client: StoredClient | undefined, clientSecret: string): StoredClient {
  // Compare against a dummy hash when there is nothing to compare with, to keep timing flat.
  const ok = verifyClientSecret(clientSecret, client?.secret_hash ?? DUMMY_HASH);
  if (!client || !client.secret_hash || !ok) throw invalidClient();
  return client;
}

const DUMMY_HASH = 'sha256$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';

/** The parts of a request client authentication reads. */
export interface ClientAuthenticationRequest {
  body: Record<string, unknown>;
  headers: IncomingHttpHeaders;
}

/** What the caller presented, at most one method of it. */
export interface PresentedClientCredentials {
  /** `client_id` of the body, else of HTTP Basic, else the assertion's `sub`. */
  clientId: string | undefined;
  secret: string | undefined;
  assertion: string | undefined;
}

const nonEmpty = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

/**
 * Reads the credentials of a request. Two methods at once (RFC 6749 §2.3: "MUST NOT use more
 * than one") and an assertion of another type are malformed requests (400 invalid_request):
 * they say nothing about whether any credential is right.
 */
export function presentedCredentials(request: ClientAuthenticationRequest): PresentedClientCredentials {
  const { body } = request;
  const basic = basicCredentials(request.headers);
  const bodySecret = nonEmpty(body.client_secret);
  const assertion = nonEmpty(body.client_assertion);
  if (assertion !== undefined || body.client_assertion_type !== undefined) {
    if (body.client_assertion_type !== JWT_BEARER_ASSERTION_TYPE) {
      throw new HttpError(400, ErrorCodes.INVALID_REQUEST, `client_assertion_type must be ${JWT_BEARER_ASSERTION_TYPE}`);
    }
    if (assertion === undefined) throw new HttpError(400, ErrorCodes.INVALID_REQUEST, 'Missing required parameter: client_assertion');
  }
  if ([bodySecret, basic, assertion].filter((m) => m !== undefined).length > 1) {
    throw new HttpError(
      400,
      ErrorCodes.INVALID_REQUEST,
      'Use one client authentication method: client_secret, HTTP Basic or client_assertion',
    );
  }
  const bodyClientId = nonEmpty(body.client_id);
  // A Basic header for another client than the body names is a wrong credential.
  if (basic && bodyClientId !== undefined && basic.clientId !== bodyClientId) throw invalidClient();
  return {
    clientId: bodyClientId ?? basic?.clientId ?? (assertion ? assertionSubject(assertion) : undefined),
    secret: bodySecret ?? basic?.clientSecret,
    assertion,
  };
}

/** Checks client credentials against each client's token_endpoint_auth_method. */
export class ClientAuthenticator {
  constructor(private readonly deps: ClientAssertionDependencies) {}

  /**
   * The client, once it has proven itself as its method demands; a client that may not
   * authenticate some way refuses credentials of that way (a public client sending a
   * secret), so a misconfigured caller learns of it. `client` undefined: unknown client.
   */
  async authenticate(client: StoredClient | undefined, request: ClientAuthenticationRequest): Promise<StoredClient> {
    const presented = presentedCredentials(request);
    const refuse = (): never => {
      // Spend what a real check would, so the refusal's timing does not tell why.
      if (presented.assertion) spendVerificationTime();
      else verifyClientSecret(presented.secret ?? '', DUMMY_HASH);
      throw invalidClient();
    };
    if (!client) return refuse();
    switch (client.token_endpoint_auth_method) {
      case 'none':
        return presented.secret !== undefined || presented.assertion !== undefined ? refuse() : client;
      case 'client_secret_post':
      case 'client_secret_basic':
        if (presented.secret === undefined || presented.assertion !== undefined) return refuse();
        return requireClientSecret(client, presented.secret);
      case 'private_key_jwt':
        if (presented.assertion === undefined) return refuse();
        if (!(await verifyClientAssertion(this.deps, client, presented.assertion))) throw invalidClient();
        return client;
    }
  }
}
