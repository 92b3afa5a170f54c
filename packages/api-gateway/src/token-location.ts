import type { JwtLocation } from '@smsauth/contracts';
import type { Request } from 'express';

function firstString(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && typeof value[0] === 'string') return value[0];
  return undefined;
}

function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const pair of (header ?? '').split(';')) {
    const separator = pair.indexOf('=');
    if (separator > 0 && pair.slice(0, separator).trim() === name) return pair.slice(separator + 1).trim();
  }
  return undefined;
}

function readLocation(req: Request, location: JwtLocation): string | undefined {
  if (location.header !== undefined) {
    const value = req.get(location.header);
    if (value === undefined) return undefined;
    const prefix = location.value_prefix ?? '';
    // The auth scheme is case-insensitive (RFC 7235 §2.1): "bearer x" counts as "Bearer x".
    if (value.slice(0, prefix.length).toLowerCase() !== prefix.toLowerCase()) return undefined;
    return value.slice(prefix.length).trim();
  }
  if (location.query !== undefined) return firstString(req.query[location.query]);
  if (location.cookie !== undefined) return cookieValue(req.headers.cookie, location.cookie);
  return undefined;
}

/** The first non-empty token found, trying the locations in order; undefined when none was sent. */
export function findToken(req: Request, locations: readonly JwtLocation[]): string | undefined {
  for (const location of locations) {
    const token = readLocation(req, location);
    if (token) return token;
  }
  return undefined;
}
