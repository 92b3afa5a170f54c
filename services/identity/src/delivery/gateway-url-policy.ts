import { promises as dns } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { HttpError } from '@smsauth/service-kit';
import ipaddr from 'ipaddr.js';
import type { GatewayUrlPolicy } from '../domain/gateway-url-policy';

/** The policy's names are the domain's (domain/gateway-url-policy.ts); this file enforces them. */
export type { GatewayUrlPolicy };

export type GatewayUrlRefusalReason = 'invalid_url' | 'protocol' | 'address' | 'unresolvable';

/** A gateway URL the policy refuses. Routes: 400 at create/update, sms_provider_error at send. */
export class GatewayUrlRefusedError extends Error {
  /** Lets the error be recognised after axios wraps it. */
  readonly code = 'ERR_GATEWAY_URL_REFUSED';

  constructor(
    public readonly reason: GatewayUrlRefusalReason,
    message: string,
    public readonly address?: string,
    public readonly addressClass?: string,
  ) {
    super(message);
    this.name = 'GatewayUrlRefusedError';
  }
}

/** The create/update answer: the same shape as the kit's validation errors. */
export function gatewayUrlRefusedHttpError(err: GatewayUrlRefusedError, path = 'options.gateway_url'): HttpError {
  return new HttpError(400, 'invalid_request', `${path}: ${err.message}`, {
    details: [{ path, message: err.message }],
  });
}

/** How a host name resolves; injectable so tests can make a name point anywhere. */
export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}
export type ResolveHost = (hostname: string) => Promise<ResolvedAddress[]>;

export const resolveWithSystemDns: ResolveHost = async (hostname) => {
  const found = await dns.lookup(hostname, { all: true, verbatim: true });
  return found.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));
};

// Last 32 bits of these IPv6 forms are an IPv4 address that the network (or the kernel,
// for ::ffff:0:0/96) may deliver to: judge that IPv4 address instead.
const IPV4_EMBEDDING_RANGES = new Set(['ipv4Mapped', 'rfc6145', 'rfc6052']);

function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4 {
  const bytes = address.toByteArray();
  return new ipaddr.IPv4(bytes.slice(12, 16));
}

/**
 * Why an address is not public, or null when it is a public unicast address. An allow-list:
 * anything ipaddr.js does not call `unicast` (loopback, private, linkLocal incl. the
 * 169.254.169.254 metadata address, uniqueLocal, unspecified, multicast, broadcast,
 * carrierGradeNat, reserved, 6to4, teredo...) is refused.
 */
export function nonPublicAddressClass(address: string): string | null {
  const canonical = canonicalAddress(address);
  if (canonical === null) return 'invalid';
  let parsed = ipaddr.parse(canonical);
  if (parsed.kind() === 'ipv6') {
    const v6 = parsed as ipaddr.IPv6;
    const range = v6.range();
    if (IPV4_EMBEDDING_RANGES.has(range)) {
      parsed = embeddedIPv4(v6);
    } else if (range === 'unicast' && v6.toByteArray().slice(0, 12).every((byte) => byte === 0)) {
      // ::a.b.c.d (deprecated IPv4-compatible); ipaddr.js calls it unicast.
      return 'ipv4Compatible';
    }
  }
  const range = parsed.range();
  return range === 'unicast' ? null : range;
}

/**
 * IPv6 text rewritten in hex form by the WHATWG URL parser before ipaddr.js sees it:
 * ipaddr.js reads `::127.0.0.1` as `::ffff:127.0.0.1`, which it is not. Zone ids are dropped.
 */
function canonicalAddress(address: string): string | null {
  if (!isIP(address)) return null;
  if (!address.includes(':')) return address;
  try {
    return new URL(`http://[${address.replace(/%.*$/, '')}]/`).hostname.slice(1, -1);
  } catch {
    return null;
  }
}

function describe(address: string, addressClass: string): string {
  return `resolves to ${address}, a ${addressClass} address, which GATEWAY_URL_POLICY=public refuses`;
}

function assertPublicAddress(address: string, via?: string): void {
  const addressClass = nonPublicAddressClass(address);
  if (addressClass === null) return;
  const subject = via ? `host ${via} ` : '';
  throw new GatewayUrlRefusedError('address', `${subject}${describe(address, addressClass)}`, address, addressClass);
}

/** URL.hostname keeps IPv6 literals in brackets. */
function literalAddress(url: URL): string | null {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  return isIP(host) ? host : null;
}

/**
 * Parses and checks everything that can be checked without DNS: http(s) only, and under
 * `public` a literal IP host (WHATWG parsing has already turned 2130706433, 0x7f.1 and
 * 0177.0.0.1 into 127.0.0.1) must be public. Returns the parsed URL.
 */
export function checkGatewayUrlSyntax(url: string, policy: GatewayUrlPolicy): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new GatewayUrlRefusedError('invalid_url', 'must be an absolute http: or https: URL');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new GatewayUrlRefusedError('protocol', 'must be an http: or https: URL');
  }
  if (policy === 'public') {
    const literal = literalAddress(parsed);
    if (literal !== null) assertPublicAddress(literal);
  }
  return parsed;
}

/**
 * Create/update-time check: syntax, then under `public` every address the host name
 * resolves to must be public (one private answer is enough to refuse: a client picks any
 * of them). An unresolvable name is refused under `public` since it cannot be vetted.
 */
export async function assertGatewayUrlAllowed(
  url: string,
  policy: GatewayUrlPolicy,
  options: { resolveHost?: ResolveHost } = {},
): Promise<URL> {
  const parsed = checkGatewayUrlSyntax(url, policy);
  if (policy !== 'public' || literalAddress(parsed) !== null) return parsed;
  const resolveHost = options.resolveHost ?? resolveWithSystemDns;
  let addresses: ResolvedAddress[];
  try {
    addresses = await resolveHost(parsed.hostname);
  } catch {
    throw new GatewayUrlRefusedError('unresolvable', `host ${parsed.hostname} could not be resolved`);
  }
  if (addresses.length === 0) {
    throw new GatewayUrlRefusedError('unresolvable', `host ${parsed.hostname} could not be resolved`);
  }
  for (const { address } of addresses) assertPublicAddress(address, parsed.hostname);
  return parsed;
}

/**
 * A `lookup` for net.connect / http.Agent that resolves, refuses the connection when any
 * answer is not public, and otherwise hands the vetted addresses to the socket. Because the
 * check runs on the very answer the socket connects to, a name re-pointed at an internal
 * address after the create-time check is still refused. Node skips `lookup` for IP
 * literals: checkGatewayUrlSyntax covers those.
 */
export function createGuardedLookup(options: { resolveHost?: ResolveHost } = {}): LookupFunction {
  const resolveHost = options.resolveHost ?? resolveWithSystemDns;
  return (hostname, lookupOptions, callback) => {
    const wantedFamily = lookupOptions.family === 4 || lookupOptions.family === 6 ? lookupOptions.family : undefined;
    resolveHost(hostname)
      .then((answers) => {
        for (const { address } of answers) assertPublicAddress(address, hostname);
        const usable = wantedFamily ? answers.filter((a) => a.family === wantedFamily) : answers;
        const first = usable[0];
        if (!first) {
          const err = Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND', hostname });
          callback(err, '', 0);
          return;
        }
        if (lookupOptions.all) callback(null, usable);
        else callback(null, first.address, first.family);
      })
      .catch((err: NodeJS.ErrnoException) => callback(err, '', 0));
  };
}
