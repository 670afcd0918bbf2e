// The HTTP frame around every entry of the endpoint table: routing by method and path, CORS
// preflights, the rate limit, reading and validating input, and the one mapping of errors to
// problem+json. The custom server (server.ts) and the Next.js route handlers (./next.ts) both
// serve the API through createApi, so the two cannot answer differently.
import { randomUUID } from 'node:crypto';
import { FastResponse } from 'srvx/node';
import type { z } from 'zod';
import { AppError, isAppError, PROBLEMS } from '../errors';
import { type Logger, loggableError } from '../log';
import { authenticateOperator } from '../operators/auth';
import type { Services } from '../services';
import { invalidInput } from '../validate';
import { readJsonObject, readRawBody } from './body';
import { clientIp, rateLimitKey } from './client-ip';
import { API_HEADERS, preflight } from './cors';
import type { Endpoint, Method, Reply } from './endpoint';
import { toProblem } from './problem';
import { Router } from './router';

/** What only the connection knows. */
export type Client = {
  /** The TCP peer address; undefined under `next start`, which does not expose it. */
  peer?: string;
  requestId?: string;
};

export type Api = {
  handle(request: Request, client?: Client): Promise<Response>;
};

/** The API of `services`, served from `endpoints`. */
export function createApi(services: Services, endpoints: readonly Endpoint[]): Api {
  const router = new Router(endpoints);
  return {
    async handle(request, client = {}) {
      const requestId = client.requestId ?? randomUUID();
      const url = new URL(request.url);
      const route = router.match(url.pathname);
      if (!route) return problem(new AppError('not_found', 'No endpoint at this path.'), requestId);
      if (request.method === 'OPTIONS') return preflight([...route.methods.keys()]);
      const entry = route.methods.get((request.method === 'HEAD' ? 'GET' : request.method) as Method);
      if (!entry) {
        const allowed = [...route.methods.keys()].join(', ');
        return problem(new AppError('method_not_allowed', `This path answers ${allowed}.`), requestId, { allow: `${allowed}, OPTIONS` });
      }
      try {
        const ip = clientIp(client.peer, request.headers, services.config.trustProxyHops);
        if (entry.rateLimited) await enforceRateLimit(services, ip);
        // Before any input is read: a caller without a credential learns nothing from validation.
        const operator = entry.auth ? await authenticateOperator(services, request, entry.auth) : undefined;
        const input = {
          query: entry.query && parse(entry, entry.query, Object.fromEntries(url.searchParams)),
          params: entry.params && parse(entry, entry.params, route.params),
          body: entry.body && parse(entry, entry.body.schema, entry.body.optional && hasNoBody(request) ? {} : await readJsonObject(request)),
          raw: entry.rawBody && (await readRawBody(request, entry.rawBody)),
          headers: request.headers,
        };
        return respond(await entry.handle(input as never, { services, requestId, clientIp: ip, operator }), requestId);
      } catch (error) {
        const known = isAppError(error) ? error : internalError(error, requestId, services.log);
        return entry.page ? respond(entry.page.answerError(known), requestId) : problem(known, requestId);
      }
    },
  };
}

/** A request that sent no body at all: no Content-Type, and no content (or none declared). */
function hasNoBody(request: Request): boolean {
  if (request.headers.has('content-type')) return false;
  const length = request.headers.get('content-length');
  return length === null ? !request.headers.has('transfer-encoding') : Number(length) === 0;
}

function parse<S extends z.ZodType>(entry: Endpoint, schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  if (entry.malformedInput) throw new AppError(entry.malformedInput, PROBLEMS[entry.malformedInput].when);
  throw invalidInput(result.error);
}

async function enforceRateLimit(services: Services, ip: string): Promise<void> {
  const decision = await services.limiter.consume(rateLimitKey(ip));
  if (!decision.allowed) {
    throw new AppError('rate_limited', `Too many requests. Retry in ${decision.retryAfterSeconds} seconds.`, {
      retryAfterSeconds: decision.retryAfterSeconds,
    });
  }
}

/** A bug: logged with the request id, answered with only that. */
function internalError(error: unknown, requestId: string, log: Logger): AppError {
  log.error({ err: loggableError(error), requestId }, 'unhandled error');
  return new AppError('internal_error', `An unexpected error occurred. Quote request id ${requestId} when reporting it.`);
}

/** The one place an error code becomes an HTTP answer. */
export function problem(error: AppError, requestId: string, headers: Record<string, string> = {}): Response {
  const body = toProblem(error, requestId);
  return respond(
    {
      status: body.status,
      json: body,
      headers: {
        'content-type': 'application/problem+json',
        ...(error.extra.retryAfterSeconds !== undefined ? { 'retry-after': String(error.extra.retryAfterSeconds) } : {}),
        ...headers,
      },
    },
    requestId,
  );
}

/** One Response per answer, with every header the API sends. FastResponse: see docs/decisions.md. */
export function respond(reply: Reply, requestId: string): Response {
  const isJson = reply.json !== undefined;
  return new FastResponse(isJson ? JSON.stringify(reply.json) : ((reply.body as BodyInit | undefined) ?? null), {
    status: reply.status ?? 200,
    headers: {
      ...API_HEADERS,
      'x-request-id': requestId,
      ...(isJson ? { 'content-type': 'application/json', 'cache-control': 'no-store' } : {}),
      ...reply.headers,
    },
  });
}
