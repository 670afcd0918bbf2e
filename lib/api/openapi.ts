// Builds the OpenAPI 3.1 document of the HTTP API from the endpoint table (./endpoints/). Every
// shape in it is generated from the zod schemas the frame validates with and the handlers answer
// with (z.toJSONSchema); every error answer is derived from the problem catalogue (lib/errors.ts).
// Nothing here restates a field by hand, so the document cannot drift from the code.
import { z } from 'zod';
import { AppError, type ErrorCode, isAppError, PROBLEM_CODES, PROBLEMS, problemType } from '../errors';
import { parseInput } from '../validate';
import { type Endpoint, HEADERS, type HeaderName, TAGS } from './endpoint';
import { problemSchema, toProblem } from './problem';

export type JsonSchema = { [keyword: string]: unknown };

/** Any request can meet these: the database or the instance going away, and bugs. */
const ALWAYS_POSSIBLE: ErrorCode[] = ['service_unavailable', 'internal_error'];

export type DocumentOptions = {
  /** The service origin (PUBLIC_BASE_URL); without it the document's server is relative, "/". */
  serverUrl?: string;
  version: string;
  endpoints: readonly Endpoint[];
};

// Markdown, one array element a line; a long line is split with `+` only to keep the source narrow.
const INTRODUCTION = [
  'A person proves control of a Solana wallet by signing one message, and gets an Apple Wallet pass for it.',
  '',
  '## The flow',
  '',
  '1. `GET /api/v1/claim/init?publicKey=<address>` answers a single-use Sign In With Solana `message`.',
  "2. Sign the UTF-8 bytes of `message` with the wallet's Ed25519 key: a wallet's `signMessage`, " + 'or `solana:signIn` with the other fields of the answer.',
  '3. `POST /api/v1/claim/wallet-pass` with `message`, `signature` (base58), `publicKey` and `walletType` ' +
    'answers a `downloadUrl`: 201 for a new pass, 200 when the wallet already has one.',
  '4. `GET` the `downloadUrl` for the .pkpass file.',
  '',
  'From a terminal, `npm run claim -- --keypair ~/.config/solana/id.json` does all four with a Solana CLI ' +
    'keypair (see the README). `lib/client` is a typed client for browsers and Node.',
  '',
  'Every path answers CORS preflights and allows any origin, without credentials: the claim and pass endpoints ' +
    "use no cookies, and the operator console's session cookie is SameSite=Strict, never readable cross-origin, " +
    'and refused on unsafe requests from other origins (see the Operators tag). Every answer carries an ' +
    '`X-Request-Id`. Init and claim share a per-address budget of `RATE_LIMIT_PER_MINUTE` requests.',
].join('\n');

export function buildOpenApiDocument(options: DocumentOptions) {
  const components = new ComponentSchemas();
  const paths: Record<string, Record<string, unknown>> = {};
  for (const endpoint of options.endpoints) {
    const item = paths[endpoint.path] ?? {};
    paths[endpoint.path] = item;
    const method = endpoint.method.toLowerCase();
    if (item[method]) throw new Error(`${endpoint.method} ${endpoint.path} is registered twice`);
    item[method] = operation(endpoint, components);
  }
  return {
    openapi: '3.1.1',
    info: {
      title: 'Wallet pass claim API',
      version: options.version,
      summary: 'Prove control of a Solana wallet by signing one message; get an Apple Wallet pass for it.',
      description: `${INTRODUCTION.trim()}\n\n${errorsSection()}`,
    },
    servers: [{ url: options.serverUrl ?? '/' }],
    tags: Object.entries(TAGS).map(([name, description]) => ({ name, description })),
    paths,
    components: {
      schemas: components.all(),
      headers: HEADERS,
      securitySchemes: SECURITY_SCHEMES,
    },
  };
}

export type OpenApiDocument = ReturnType<typeof buildOpenApiDocument>;

/** The names of the operator endpoints' two ways in. */
const SECURITY = { bearer: 'operatorBearer', cookie: 'operatorSession' } as const;

const SECURITY_SCHEMES = {
  [SECURITY.bearer]: {
    type: 'http',
    scheme: 'bearer',
    description:
      'A session token from `POST /api/v1/operator/sessions` (12 hours), or an API key from `POST ' +
      '/api/v1/operator/api-keys` (until revoked). The wallet behind it must be in OPERATOR_WALLETS.',
  },
  [SECURITY.cookie]: {
    type: 'apiKey',
    in: 'cookie',
    name: '__Host-operator_session',
    description:
      'The browser console’s session: the same token, set by `POST /api/v1/operator/sessions` as an ' +
      'HttpOnly, SameSite=Strict cookie (named `operator_session` when PUBLIC_BASE_URL is http on localhost). ' +
      'Every value of the cookie sent is tried. With the cookie, a POST or DELETE must come from ' +
      'PUBLIC_BASE_URL’s origin (its `Origin` header, or `Sec-Fetch-Site: same-origin`); otherwise 403 ' +
      'forbidden (the CSRF check). A Bearer token needs no such check.',
  },
} as const;

function operation(endpoint: Endpoint, components: ComponentSchemas) {
  const parameters: unknown[] = [...schemaParameters(endpoint.params, 'path', components), ...schemaParameters(endpoint.query, 'query', components)];
  for (const header of endpoint.requestHeaders ?? []) {
    parameters.push({ name: header.name, in: 'header', required: false, description: header.description, schema: { type: 'string' } });
  }

  const responses: Record<string, { description: string; content?: Record<string, unknown>; headers?: Record<string, unknown> }> = {};
  for (const [status, response] of Object.entries(endpoint.responses)) {
    const content: Record<string, unknown> = {};
    if (response.json) {
      content['application/json'] = {
        schema: components.use(response.json, 'output'),
        ...(response.example !== undefined ? { example: response.example } : {}),
      };
    }
    if (response.file) content[response.file] = { schema: { type: 'string', contentMediaType: response.file } };
    responses[status] = {
      description: response.description,
      ...(Object.keys(content).length ? { content } : {}),
      ...(response.headers ? { headers: headerRefs(response.headers) } : {}),
    };
  }

  const codes = endpoint.page
    ? []
    : [
        ...endpoint.problems,
        ...(endpoint.auth ? (['unauthorized', 'forbidden'] as const) : []),
        ...(endpoint.rateLimited ? (['rate_limited'] as const) : []),
        ...ALWAYS_POSSIBLE,
      ];
  for (const [status, statusCodes] of groupByStatus(codes)) {
    const existing = responses[status];
    const titles = statusCodes.map((code) => PROBLEMS[code].title).join(', or ');
    const headers = { ...existing?.headers, ...(status === '429' || status === '503' ? headerRefs(['Retry-After']) : {}) };
    responses[status] = {
      description: existing ? `${existing.description} Or a problem: ${titles}.` : `${titles}.`,
      content: {
        ...existing?.content,
        'application/problem+json': {
          schema: problemSchemaFor(components.use(problemSchema, 'output'), Number(status), statusCodes),
          examples: Object.fromEntries(statusCodes.map((code) => [code, { summary: PROBLEMS[code].title, value: exampleProblem(code, endpoint) }])),
        },
      },
      ...(Object.keys(headers).length ? { headers } : {}),
    };
  }

  return {
    operationId: endpoint.operationId,
    tags: [endpoint.tag],
    summary: endpoint.summary,
    description: endpoint.description,
    ...(endpoint.auth ? { security: [{ [SECURITY.bearer]: [] }, { [SECURITY.cookie]: [] }] } : {}),
    ...(parameters.length ? { parameters } : {}),
    ...(endpoint.body
      ? {
          requestBody: {
            required: !endpoint.body.optional,
            content: { 'application/json': { schema: components.use(endpoint.body.schema, 'input'), example: endpoint.body.example } },
          },
        }
      : {}),
    ...(endpoint.rawBody
      ? {
          requestBody: {
            required: true,
            description: `${endpoint.rawBody.description} At most ${endpoint.rawBody.maxBytes} bytes.`,
            content: Object.fromEntries(endpoint.rawBody.types.map((type) => [type, { schema: { type: 'string', contentMediaType: type } }])),
          },
        }
      : {}),
    responses: Object.fromEntries(Object.entries(responses).sort(([a], [b]) => Number(a) - Number(b))),
  };
}

/** Each property of an object schema as a parameter `in` the path or the query. */
function schemaParameters(schema: z.ZodObject | undefined, where: 'path' | 'query', components: ComponentSchemas): unknown[] {
  if (!schema) return [];
  const object = components.resolve(components.use(schema, 'input'));
  const required = new Set((object.required as string[] | undefined) ?? []);
  return Object.entries((object.properties ?? {}) as Record<string, JsonSchema>).map(([name, property]) => ({
    name,
    in: where,
    required: where === 'path' || required.has(name),
    description: (property.description ?? components.resolve(property).description) as string | undefined,
    schema: property,
  }));
}

/** The Problem schema, narrowed to the status and codes one response can carry. */
function problemSchemaFor(problem: JsonSchema, status: number, codes: ErrorCode[]): JsonSchema {
  return {
    allOf: [problem, { type: 'object', properties: { status: { const: status }, code: { enum: codes } } }],
  };
}

function groupByStatus(codes: ErrorCode[]): [string, ErrorCode[]][] {
  const byStatus = new Map<string, ErrorCode[]>();
  for (const code of PROBLEM_CODES) {
    if (!codes.includes(code)) continue;
    const status = String(PROBLEMS[code].status);
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return [...byStatus];
}

/** An example problem: for invalid_request, the answer the endpoint's own validation gives its invalid example. */
function exampleProblem(code: ErrorCode, endpoint: Endpoint) {
  if (code === 'invalid_request' && endpoint.invalidExample !== undefined) {
    const schema = endpoint.body?.schema ?? endpoint.query;
    try {
      if (schema) parseInput(schema, endpoint.invalidExample);
    } catch (error) {
      if (isAppError(error)) return toProblem(error);
    }
    throw new Error(`the invalid example of ${endpoint.operationId} is valid`);
  }
  const detail = code === 'rate_limited' ? 'Too many requests. Retry in 42 seconds.' : PROBLEMS[code].when;
  return toProblem(new AppError(code, detail), code === 'internal_error' ? '6f1c2b1e-8e0a-4c55-9d43-2c9a1d7e5b10' : undefined);
}

function headerRefs(names: HeaderName[]) {
  return Object.fromEntries(names.map((name) => [name, { $ref: `#/components/headers/${name}` }]));
}

/**
 * The named schemas: z.toJSONSchema turns each zod schema into JSON Schema 2020-12 (what OpenAPI
 * 3.1 uses), extracting every schema with a meta id into $defs; those become components.schemas.
 */
class ComponentSchemas {
  private readonly schemas = new Map<string, { json: JsonSchema; text: string }>();

  /** The JSON Schema of `schema` for a request (`input`: defaults optional) or an answer (`output`). */
  use(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
    const { $schema: _dialect, $defs, ...root } = z.toJSONSchema(schema, { io, target: 'draft-2020-12' }) as JsonSchema;
    for (const [id, definition] of Object.entries(($defs ?? {}) as Record<string, JsonSchema>)) {
      const json = toComponentRefs(definition) as JsonSchema;
      const text = JSON.stringify(json);
      const known = this.schemas.get(id);
      // A schema whose request and answer forms differ (a default, a transform) needs two ids.
      if (known && known.text !== text) throw new Error(`schema ${id} has two different forms; give each its own id`);
      this.schemas.set(id, { json, text });
    }
    return toComponentRefs(root) as JsonSchema;
  }

  /** Follows a $ref to the component it names. */
  resolve(schema: JsonSchema): JsonSchema {
    const ref = schema.$ref;
    if (typeof ref !== 'string') return schema;
    const found = this.schemas.get(ref.replace('#/components/schemas/', ''));
    if (!found) throw new Error(`unknown schema ${ref}`);
    return found.json;
  }

  all(): Record<string, JsonSchema> {
    return Object.fromEntries([...this.schemas].sort(([a], [b]) => a.localeCompare(b)).map(([id, { json }]) => [id, json]));
  }
}

function toComponentRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(toComponentRefs);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, inner]) => [
      key,
      key === '$ref' && typeof inner === 'string' ? inner.replace(/^#\/\$defs\//, '#/components/schemas/') : toComponentRefs(inner),
    ]),
  );
}

/** The reference's errors section: one entry per code, anchored where a problem's `type` points. */
function errorsSection(): string {
  const entries = PROBLEM_CODES.map((code) => {
    const { status, title, when } = PROBLEMS[code];
    const anchor = problemType(code).split('#')[1];
    return `<h3 id="${anchor}"><code>${code}</code> · ${status} ${title}</h3>\n\n${when}`;
  });
  return [
    '## Errors',
    'Every error is `application/problem+json` ([RFC 9457](https://www.rfc-editor.org/rfc/rfc9457)) with ' +
      '`type`, `title`, `status`, `detail` and a stable, machine-readable `code`: branch on `code`, show ' +
      '`detail` to people. A problem’s `type` is a link to its entry below.',
    ...entries,
  ].join('\n\n');
}
