// The Next.js route handlers of the API: each route file under app/ (a catch-all such as
// app/api/[...path]/route.ts, or a single path such as app/health/route.ts) re-exports this module
// whole, so that `next dev`, and `next start` without the custom server, serve the same table the
// custom server dispatches, through the same frame. Every method of the table is exported on
// every path: the frame answers 404 for a path outside the table and 405 for a method outside
// the path's, as under the custom server. Only route handlers may be exported here (Next.js
// checks a route file's exports).
import { AppError } from '../errors';
import { sharedServices } from '../shared-services';
import { isCustomServer } from './custom-server';
import type { Method } from './endpoint';
import { ENDPOINTS } from './endpoints';
import { type Api, createApi, problem } from './frame';

// On globalThis, keyed by a registered symbol: Next.js may evaluate this module once per route
// bundle, and all the routes of a process share one API over the process's services (../shared-services.ts).
const API = Symbol.for('wallet-pass-claim.next-route-api');
const registry = globalThis as typeof globalThis & { [API]?: Promise<Api> };

function api(): Promise<Api> {
  registry[API] ??= sharedServices().then((services) => createApi(services, ENDPOINTS));
  return registry[API];
}

/**
 * Next.js does not give a route handler the TCP peer, so without TRUST_PROXY every client of
 * `next start` shares one rate-limit budget: production runs the custom server. That server
 * answers the API itself (server.ts): a request that still reaches a route handler there got past
 * its routing (a path only Next.js decodes to an API path) and is refused, rather than open a
 * second database in the same process.
 */
async function handle(request: Request): Promise<Response> {
  if (isCustomServer()) return problem(new AppError('not_found', 'No endpoint at this path.'), crypto.randomUUID());
  return (await api()).handle(request);
}

/** One handler per method of the table, and OPTIONS: the type fails to compile if a method is missing. */
const handlers: Record<Method | 'OPTIONS', (request: Request) => Promise<Response>> = {
  GET: handle,
  POST: handle,
  PUT: handle,
  PATCH: handle,
  DELETE: handle,
  OPTIONS: handle,
};

// HEAD is left to Next.js, which answers it with GET's handler (the frame serves HEAD as GET).
export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = handlers;
