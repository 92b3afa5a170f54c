import ipaddr from 'ipaddr.js';

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];

/** A parsed `ALLOWED_IPS`: matches a caller address against IPv4 and IPv6 CIDR ranges. */
export interface IpAllowList {
  allows(address: string | undefined): boolean;
  readonly entries: readonly string[];
}

/** Splits a comma-separated list, dropping blanks, so `a, b,` reads as two entries. */
export function splitList(value: string): string[] {
  return value
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry.length > 0);
}

/**
 * One entry: a CIDR (`10.0.0.0/8`, `2001:db8::/32`) or a bare address (one host).
 * An IPv4-mapped IPv6 range (`::ffff:10.0.0.0/104`) becomes its IPv4 range, because
 * caller addresses are normalised the same way (see normaliseAddress).
 */
export function parseRange(entry: string): Range {
  const range: Range = entry.includes('/')
    ? ipaddr.parseCIDR(entry)
    : (() => {
        const address = ipaddr.parse(entry);
        return [address, address.kind() === 'ipv4' ? 32 : 128] as Range;
      })();
  const [address, prefix] = range;
  if (address instanceof ipaddr.IPv6 && address.isIPv4MappedAddress() && prefix >= 96) {
    return [address.toIPv4Address(), prefix - 96];
  }
  return range;
}

/** The entries of a list that do not parse, for the config error message. */
export function invalidRanges(entries: readonly string[]): string[] {
  return entries.filter((entry) => {
    try {
      parseRange(entry);
      return false;
    } catch {
      return true;
    }
  });
}

/** `::ffff:192.0.2.1` (a dual-stack socket's view of an IPv4 caller) -> `192.0.2.1`. */
export function normaliseAddress(address: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  // Link-local IPv6 addresses may carry a zone (`fe80::1%eth0`); the zone is not part of the match.
  const withoutZone = address.replace(/%.*$/, '');
  if (!ipaddr.isValid(withoutZone)) return undefined;
  return ipaddr.process(withoutZone);
}

export function createIpAllowList(entries: readonly string[]): IpAllowList {
  const ranges = entries.map(parseRange);
  return {
    entries,
    allows(address) {
      if (address === undefined) return false;
      const parsed = normaliseAddress(address);
      if (!parsed) return false;
      return ranges.some(([rangeAddress, prefix]) => {
        if (parsed.kind() !== rangeAddress.kind()) return false;
        return parsed.match(rangeAddress, prefix);
      });
    },
  };
}
