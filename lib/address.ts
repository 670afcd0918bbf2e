// How a wallet address is shown where space is short: on the pass and on the claim page.

/** "7xKX…gAsU": enough of the address to recognise it, short enough for a pass field or a phone. */
export function shortAddress(address: string): string {
  return address.length <= 12 ? address : `${address.slice(0, 4)}…${address.slice(-4)}`;
}
