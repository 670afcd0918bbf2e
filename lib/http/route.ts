// The frame of every API route: services, request id, rate limit, CORS, and the mapping of any
// error to problem+json. A route handler inside it only parses, calls lib/, and shapes a response.
import { randomUUID } from 'node:crypto';
import { AppError, isAppError } from '../errors';
import { getServices, type Services } from '../services';
import { clientIp } from './client-ip';
import { withCors } from './cors';
import { problemResponse } from './problem';

/** Set by the custom server on every request (and echoed in the response); generated here otherwise. */
export const REQUEST_ID_HEADER = 'x-request-id';

export type RouteContext = { services: Services; requestId: string };
type Handler = (request: Request, context: RouteContext) => Promise<Response>;

export function apiRoute(handler: Handler, options: { rateLimited?: boolean } = {}) {
  return async (request: Request): Promise<Response> => {
    const requestId = request.headers.get(REQUEST_ID_HEADER) ?? randomUUID();
    let services: Services | undefined;
    try {
      services = await getServices();
      if (options.rateLimited) {
        const decision = await services.limiter.consume(clientIp(request.headers, services.config.trustProxyHops));
        if (!decision.allowed) {
          throw new AppError('rate_limited', `Too many requests. Retry in ${decision.retryAfterSeconds} seconds.`, {
            retryAfterSeconds: decision.retryAfterSeconds,
          });
        }
      }
      return withCors(await handler(request, { services, requestId }));
    } catch (error) {
      if (isAppError(error)) return withCors(problemResponse(error, requestId));
      // A bug: the body says only that, with the request id that finds the logged details.
      const log = services?.log;
      if (log) log.error({ err: error, requestId }, 'unhandled error');
      else console.error(JSON.stringify({ level: 'error', requestId, msg: String(error) }));
      return withCors(
        problemResponse(new AppError('internal_error', `An unexpected error occurred. Quote request id ${requestId} when reporting it.`), requestId),
      );
    }
  };
}

export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers },
  });
}
