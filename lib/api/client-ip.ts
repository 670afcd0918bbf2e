// The client's IP address, for rate limiting: the TCP peer, unless TRUST_PROXY says how many
// proxies stand in front, in which case it is read from X-Forwarded-For.

/**
 * With N trusted proxies, the client is the Nth address from the right of X-Forwarded-For: each
 * proxy appends the address it received the request from, and anything further left was written
 * by the client and could be forged.
 */
export function clientIp(peer: string | undefined, headers: Headers, trustProxyHops: number): string {
  const direct = peer ?? 'unknown';
  if (trustProxyHops === 0) return direct;
  const forwarded = (headers.get('x-forwarded-for') ?? '')
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
  if (forwarded.length === 0) return direct;
  return forwarded[Math.max(0, forwarded.length - trustProxyHops)]!;
}

/** "::ffff:127.0.0.1" -> "127.0.0.1": one client, one rate-limit key, however it connected. */
export function normalizeAddress(address: string | undefined): string | undefined {
  return address?.startsWith('::ffff:') ? address.slice(7) : address;
}
