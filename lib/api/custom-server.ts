// Whether this process is the custom server (server.ts), which answers the API itself. On
// globalThis under a registered symbol: Next.js may evaluate a module once per route bundle, and
// the route handlers must all see the mark server.ts set.
const CUSTOM_SERVER = Symbol.for('wallet-pass-claim.custom-server');
const registry = globalThis as typeof globalThis & { [CUSTOM_SERVER]?: true };

/** Called by server.ts before it hands any request to Next.js. */
export function markCustomServer(): void {
  registry[CUSTOM_SERVER] = true;
}

export function isCustomServer(): boolean {
  return registry[CUSTOM_SERVER] === true;
}
