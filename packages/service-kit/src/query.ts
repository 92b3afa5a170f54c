import { parse } from 'node:querystring';
import type { Express } from 'express';

const PARSED_QUERY = Symbol('parsed query');

interface ParsedQuery {
  /** The query string it was parsed from: a router that rewrites req.url keeps it, anything else does not. */
  raw: string;
  value: Record<string, unknown>;
}

/**
 * Express 5's `req.query` is a getter that parses the query string again on every read (the
 * access log, the gateway's token lookup and the handler each read it). This one parses it
 * once per request, with the same parser as the kit's `query parser` setting (`simple`,
 * node:querystring), and parses again only if `req.url`'s query string has changed.
 */
export function parseQueryOnce(app: Express): void {
  Object.defineProperty(app.request, 'query', {
    configurable: true,
    enumerable: true,
    get(this: { url?: string; [PARSED_QUERY]?: ParsedQuery }) {
      const url = this.url ?? '';
      const mark = url.indexOf('?');
      const fragment = mark === -1 ? -1 : url.indexOf('#', mark);
      // Like parseurl (Express's reader): the query ends where a fragment starts.
      const raw = mark === -1 ? '' : url.slice(mark + 1, fragment === -1 ? undefined : fragment);
      const cached = this[PARSED_QUERY];
      if (cached?.raw === raw) return cached.value;
      const value = parse(raw) as Record<string, unknown>;
      this[PARSED_QUERY] = { raw, value };
      return value;
    },
  });
}
