// What one entry of the endpoint table (./endpoints/) declares: its method and path, the schemas of
// its input and answers, the problem codes it answers with, whether it is rate limited, who may
// call it (which types its handler's context), and a handler that calls one lib/ function. The
// frame (./frame.ts) serves an entry, ./openapi.ts documents it, and the custom server and the
// Next.js route handlers both dispatch to it.
import type { z } from 'zod';
import type { AppError, ErrorCode } from '../errors';
import type { Operator } from '../operators/auth';
import type { Scope } from '../operators/scopes';
import type { Services } from '../services';
import type { RawBody, RawBodySpec } from './body';
import { isApiPath } from './paths';

/** The methods an entry may have; the Next.js route files export each of them, and OPTIONS (./next.ts). */
export const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

export type Method = (typeof METHODS)[number];

/** The API's tags, in the order the reference lists them. */
export const TAGS = {
  Claim: 'Prove control of a wallet by signing one message, and get its pass.',
  Passes: 'The pass files.',
  Service: 'Health and this description.',
  Operators:
    'For the people who run the service: sign in with an operator wallet, list, void and restore passes, ' +
    'statistics, API keys. Every endpoint but the sign-in takes `Authorization: Bearer <token>` (a ' +
    'session token or an API key) or the console’s session cookie.',
  Programs:
    'The kinds of pass an operator issues: each with its design and images, its rule for who may claim, ' +
    'its window and supply, and its claim page (/p/<slug>). `default` is the service as it was.',
  'Check-in':
    'The door: a scanned barcode (or a serial typed by hand) in, whether to admit its holder out, by the program’s ' +
    'check-in rule. For operators and for scan keys (`POST /api/v1/operator/api-keys` with `"scope": "scan"`).',
  Webhooks: 'Events POSTed to WEBHOOK_URL (Standard Webhooks), and their deliveries.',
  PassKit:
    "Apple Wallet's web service for living passes (Apple's protocol, under PUBLIC_BASE_URL/passkit): " +
    'Wallet registers a device for a pass, learns which passes changed, and fetches the current file.',
} as const;

/** Headers the document names, each described once under components.headers. */
export const HEADERS = {
  'Retry-After': {
    description: 'Seconds to wait before retrying: always with 429, and with 503 when the instance is shutting down.',
    schema: { type: 'integer', minimum: 1 },
  },
  ETag: { description: 'A strong validator of the file: send it back in If-None-Match to get a 304.', schema: { type: 'string' } },
  'Content-Disposition': { description: '`attachment; filename="<name>.pkpass"`', schema: { type: 'string' } },
  'Cache-Control': { description: 'How the answer may be cached.', schema: { type: 'string' } },
  'Set-Cookie': {
    description:
      'The operator session for the browser console: `__Host-operator_session=<token>; Path=/; HttpOnly; ' +
      'SameSite=Strict; Max-Age=<seconds>; Secure`; when PUBLIC_BASE_URL is http on localhost, ' +
      '`operator_session=<token>; Path=/api/v1/operator; HttpOnly; SameSite=Strict; Max-Age=<seconds>`. Only when the request came from PUBLIC_BASE_URL’s origin (or from no browser).',
    schema: { type: 'string' },
  },
  'Last-Modified': { description: 'When the pass last changed (HTTP date): send it back in If-Modified-Since to get a 304.', schema: { type: 'string' } },
} as const;

export type HeaderName = keyof typeof HEADERS;

export type ResponseDoc = {
  description: string;
  /** A JSON body, described by the zod schema the handler's answer follows. */
  json?: z.ZodType;
  /** A file body of this media type. */
  file?: string;
  example?: unknown;
  headers?: HeaderName[];
};

/** What a handler answers: the frame turns it into one Response with the API's headers. */
export type Reply = {
  status?: number;
  headers?: Record<string, string>;
  /** A JSON body (Content-Type application/json, Cache-Control no-store unless headers say otherwise). */
  json?: unknown;
  /** Any other body, with its Content-Type in headers. */
  body?: string | Uint8Array;
};

/** What a handler gets besides its input. */
export type EndpointContext = {
  services: Services;
  requestId: string;
  clientIp: string;
};

/** What the handler of an entry with `auth` gets: the caller, authenticated. */
export type OperatorContext = EndpointContext & { operator: Operator };

/**
 * Who may call an entry: anyone (undefined); an operator (`operator`: a session or a full API key);
 * or an operator or a door's scan key (`scan`: lib/operators/scopes.ts).
 */
export type Auth = Scope | undefined;

type ContextOf<A extends Auth> = A extends Scope ? OperatorContext : EndpointContext;

type Parsed<S> = S extends z.ZodType ? z.output<S> : undefined;

export type EndpointInput<Q, P, B, R = undefined> = {
  query: Parsed<Q>;
  /** The path's {name} segments. */
  params: Parsed<P>;
  body: Parsed<B>;
  /** The raw body of an entry that declares `rawBody`. */
  raw: R extends RawBodySpec ? RawBody : undefined;
  headers: Headers;
};

export type EndpointSpec<
  Q extends z.ZodObject | undefined,
  P extends z.ZodObject | undefined,
  B extends z.ZodType | undefined,
  A extends Auth = Auth,
  R extends RawBodySpec | undefined = undefined,
> = {
  method: Method;
  /** The path as served, e.g. /api/v1/claim/init; dynamic segments as {name}. */
  path: string;
  operationId: string;
  tag: keyof typeof TAGS;
  summary: string;
  /** Markdown. */
  description: string;
  /** Each property is a query parameter. */
  query?: Q;
  /** Each property is a {name} segment of the path. */
  params?: P;
  /**
   * An application/json body (read within MAX_BODY_BYTES) and an example of it. `optional`: a
   * request without a body (no Content-Type, no content) is read as `{}`.
   */
  body?: B extends z.ZodType ? { schema: B; example: unknown; optional?: boolean } : undefined;
  /**
   * A body taken as bytes (an image upload): one of `types` (else 415), read within `maxBytes`
   * (else 413, the reading stopped at the first byte past it); the handler gets it as `raw`.
   * Read after the credential and the path, like a JSON body. An entry has `body` or `rawBody`.
   */
  rawBody?: R;
  /**
   * `operator`: only for a signed-in operator (a Bearer session token or API key, or the session
   * cookie with the CSRF check on unsafe methods), checked before any input is read; the handler
   * gets the caller as `context.operator` (its context type says so). 401 unauthorized and 403
   * forbidden are implied. `scan`: the same, and a door's scan key too; every other entry answers
   * a scan key 403 forbidden.
   */
  auth?: A;
  /** Optional request headers, described inline. */
  requestHeaders?: { name: string; description: string }[];
  /** The success answers (and any non-problem answer, such as 503 from /health), by status. */
  responses: Record<number, ResponseDoc>;
  /** The problem codes this endpoint answers with; service_unavailable and internal_error are implied. */
  problems: ErrorCode[];
  /** Counts against RATE_LIMIT_PER_MINUTE: adds 429 rate_limited. */
  rateLimited?: boolean;
  /**
   * The code for input that fails its schema, when it is not invalid_request: a malformed download
   * id is answered like any unknown one (404), so a guess learns nothing from the difference.
   */
  malformedInput?: ErrorCode;
  /** An input the endpoint's query or body schema rejects: the 400 example is what validation says about it. */
  invalidExample?: unknown;
  /** An HTML page for people (the scanner check): every answer, failures included, is the page. */
  page?: { answerError(error: AppError): Reply };
  handle(input: EndpointInput<Q, P, B, R>, context: ContextOf<A>): Promise<Reply> | Reply;
};

/**
 * An entry of the table, its input types erased. The frame passes `operator` exactly when the
 * entry has `auth`, which is what each handler's own context type promised.
 */
export type Endpoint = Omit<EndpointSpec<z.ZodObject | undefined, z.ZodObject | undefined, z.ZodType | undefined, Auth, RawBodySpec | undefined>, 'handle'> & {
  handle(
    input: EndpointInput<z.ZodObject | undefined, z.ZodObject | undefined, z.ZodType | undefined, RawBodySpec | undefined>,
    context: ErasedContext,
  ): Promise<Reply> | Reply;
};

type ErasedContext = EndpointContext & { operator?: Operator };

/**
 * Declares an entry: the handler's input is typed from the entry's own schemas, and its context
 * from `auth`. Its path must be one the API owns (./paths.ts), so the proxy never takes it for a page.
 */
export function endpoint<
  Q extends z.ZodObject | undefined = undefined,
  P extends z.ZodObject | undefined = undefined,
  B extends z.ZodType | undefined = undefined,
  A extends Auth = undefined,
  R extends RawBodySpec | undefined = undefined,
>(spec: EndpointSpec<Q, P, B, A, R>): Endpoint {
  if (!isApiPath(spec.path.replace(/\{\w+\}/g, 'x'))) throw new Error(`${spec.path} is not under an API path of lib/api/paths.ts`);
  if (spec.body && spec.rawBody) throw new Error(`${spec.method} ${spec.path} declares both a JSON body and a raw body`);
  return spec as unknown as Endpoint;
}
