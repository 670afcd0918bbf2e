// The Next.js route handlers of the API: every app/**/route.ts exports these for its path, so that
// `next dev`, and `next start` without the custom server, serve the same table the custom server
// dispatches. The custom server never sends an API request here (server.ts).
import { loadConfig } from '../config';
import { createServices } from '../services';
import { ENDPOINTS } from './endpoints';
import { createApi, problem, type Api } from './frame';
import { AppError } from '../errors';

// On globalThis, keyed by registered symbols: Next.js may evaluate this module once per route
// bundle, and all the routes of a process must share one set of services (PGlite admits one opener).
const API = Symbol.for('wallet-pass-claim.next-route-api');
const CUSTOM_SERVER = Symbol.for('wallet-pass-claim.custom-server');
const registry = globalThis as typeof globalThis & { [API]?: Promise<Api>; [CUSTOM_SERVER]?: true };

function api(): Promise<Api> {
  registry[API] ??= createServices(loadConfig()).then((services) => createApi(services, ENDPOINTS));
  return registry[API];
}

/**
 * Called by server.ts, which serves the API itself: a request that still reaches a route handler
 * got past its routing (a path only Next.js decodes to an API path) and is refused, rather than
 * open a second database in the same process.
 */
export function markCustomServer(): void {
  registry[CUSTOM_SERVER] = true;
}

/**
 * Next.js does not give a route handler the TCP peer, so without TRUST_PROXY every client of
 * `next start` shares one rate-limit budget: production runs the custom server.
 */
async function handle(request: Request): Promise<Response> {
  if (registry[CUSTOM_SERVER]) return problem(new AppError('not_found', 'No endpoint at this path.'), crypto.randomUUID());
  return (await api()).handle(request);
}

/** The handlers of a route file; each file exports the methods the table has on its path, and OPTIONS. */
export const routeHandlers = () => ({ GET: handle, POST: handle, PUT: handle, PATCH: handle, DELETE: handle, OPTIONS: handle });
