// The client's IP address, for rate limiting. It is the TCP peer address, which the custom server
// (server.ts) writes into PEER_ADDRESS_HEADER after discarding whatever the client sent under that
// name. X-Forwarded-For is read only when TRUST_PROXY says how many proxies stand in front.
export const PEER_ADDRESS_HEADER = 'x-wallet-pass-peer-address';

/**
 * With N trusted proxies, the client is the Nth address from the right of X-Forwarded-For: each
 * proxy appends the address it received the request from, and anything further left was written
 * by the client and could be forged.
 */
export function clientIp(headers: Headers, trustProxyHops: number): string {
  const peer = headers.get(PEER_ADDRESS_HEADER) ?? 'unknown';
  if (trustProxyHops === 0) return peer;
  const forwarded = (headers.get('x-forwarded-for') ?? '')
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
  if (forwarded.length === 0) return peer;
  return forwarded[Math.max(0, forwarded.length - trustProxyHops)]!;
}
