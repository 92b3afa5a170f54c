import type { IncomingHttpHeaders } from 'node:http';
import { ErrorCodes } from '@smsauth/contracts';
import { HttpError } from '@smsauth/service-kit';
import type { StoredClient } from '../../store';
import { verifyClientSecret } from '../crypto/client-secret';

export function invalidClient(): HttpError {
  return new HttpError(401, ErrorCodes.INVALID_CLIENT, 'Client authentication failed', {
    headers: { 'WWW-Authenticate': 'Basic realm="oauth", error="invalid_client"' },
  });
}

/** client_secret_basic: `Authorization: Basic base64(client_id:client_secret)` (RFC 6749 2.3.1). */
export function basicCredentials(headers: IncomingHttpHeaders): { clientId: string; clientSecret: string } | undefined {
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
 * Authenticates a confidential client the caller loaded by its secret (from the body or Basic
 * auth). Unknown client, public client and wrong secret all give the same 401, so none can be
 * told apart.
 */
export function requireClientSecret(client: StoredClient | undefined, clientSecret: string): StoredClient {
  // Compare against a dummy hash when there is nothing to compare with, to keep timing flat.
  const ok = verifyClientSecret(clientSecret, client?.secret_hash ?? DUMMY_HASH);
  if (!client || !client.secret_hash || !ok) throw invalidClient();
  return client;
}

const DUMMY_HASH = 'sha256$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
