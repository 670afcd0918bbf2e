// The client's IP address, for rate limiting: the TCP peer, unless TRUST_PROXY says how many
// proxies stand in front, in which case it is read from X-Forwarded-For.
import ipaddr from 'ipaddr.js';

/**
 * With N trusted proxies, the client is the Nth address from the right of X-Forwarded-For: each
 * proxy appends the address it received the request from, and anything further left was written
 * by the client and could be forged. A header with fewer than N entries did not come through N
 * proxies (a request that reached us by another way, or a proxy that does not append): the peer
 * is then the only address we know to be real, never the header's leftmost (client-written) entry.
 */
export function clientIp(peer: string | undefined, headers: Headers, trustProxyHops: number): string {
  const direct = peer ?? 'unknown';
  if (trustProxyHops === 0) return direct;
  const forwarded = (headers.get('x-forwarded-for') ?? '')
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
  const hop = forwarded[forwarded.length - trustProxyHops];
  return (hop === undefined ? undefined : forwardedAddress(hop)) ?? direct;
}

/**
 * The address of an X-Forwarded-For entry, without what some proxies add to it: a port
 * ("10.7.7.7:1000"), brackets ("[2001:db8::7]:443") or a zone ("fe80::7%eth0"). Keyed with them,
 * one client would get a budget per source port. Undefined for anything that is no address.
 */
function forwardedAddress(entry: string): string | undefined {
  const parts = /^\[(?<host>[^\]]*)\](?::(?<port>\d{1,5}))?$/.exec(entry)?.groups ?? /^(?<host>[^:[\]]*):(?<port>\d{1,5})$/.exec(entry)?.groups;
  const host = parts?.host ?? entry;
  if (parts?.port !== undefined && Number(parts.port) > 65535) return undefined;
  if (ipaddr.IPv4.isValidFourPartDecimal(host)) return host;
  const address = host.replace(/%.*$/, '');
  return address.includes(':') && ipaddr.IPv6.isValid(address) ? normalizeAddress(address) : undefined;
}

/** "::ffff:127.0.0.1" -> "127.0.0.1": one client, one rate-limit key, however it connected. */
export function normalizeAddress(address: string): string;
export function normalizeAddress(address: string | undefined): string | undefined;
export function normalizeAddress(address: string | undefined): string | undefined {
  return address?.startsWith('::ffff:') && address.includes('.') ? address.slice(7) : address;
}

/**
 * The key a client is counted under: an IPv4 address as it is, an IPv6 address by its /64. A
 * single IPv6 subscriber usually holds a whole /64 (often more), so keying on the full address
 * would give one client 2^64 budgets. Anything that does not parse as an address (a peer the
 * socket no longer knows) is keyed as written: it is still one key, and it cannot widen anyone's budget.
 */
export function rateLimitKey(ip: string): string {
  if (!ipaddr.isValid(ip)) return ip;
  const address = ipaddr.parse(ip);
  if (address.kind() === 'ipv4') return address.toString();
  const v6 = address as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().toString();
  const parts = v6.parts.slice(0, 4).map((part) => part.toString(16));
  return `${parts.join(':')}::/64`;
}
