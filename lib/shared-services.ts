// The one set of services of a process, for whatever Next.js renders in it: the API's route
// handlers under `next start` (lib/api/next.ts) and the pages that read the service directly (a
// program's claim page). The custom server shares the services it made (server.ts); without it,
// the first reader makes them. On globalThis, under a registered symbol: Next.js may evaluate this
// module once per bundle, and PGlite admits one opener.
import { loadConfig } from './config';
import { createServices, type Services } from './services';

const SERVICES = Symbol.for('wallet-pass-claim.services');
const registry = globalThis as typeof globalThis & { [SERVICES]?: Promise<Services> };

/** Called by server.ts with the services it made, before it hands any request to Next.js. */
export function shareServices(services: Services): void {
  registry[SERVICES] = Promise.resolve(services);
}

export function sharedServices(): Promise<Services> {
  registry[SERVICES] ??= createServices(loadConfig());
  return registry[SERVICES];
}
