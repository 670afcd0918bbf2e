// A local stand-in for Google's OAuth 2.0 token endpoint and the Google Wallet REST API
// (https://walletobjects.googleapis.com/walletobjects/v1), as a plain HTTP server on 127.0.0.1.
// It keeps Generic classes and objects in memory, records every request, and can be told to
// fail the next calls.
//
// What Google documents, and what this server does about it:
// - "Using OAuth 2.0 for Server to Server Applications": the client POSTs to the key's
//   `token_uri` a form `grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer&assertion=<JWT>`,
//   the JWT signed RS256 with the service account's key, claims `iss` (its client_email),
//   `scope` (space-delimited), `aud` (the token endpoint), `iat`, and `exp` at most one hour after
//   `iat`. The answer is `{"access_token", "expires_in", "token_type": "Bearer"}` (plus `scope`);
//   a refused assertion is 400 `{"error": "invalid_grant", "error_description": "..."}`. Here the
//   endpoint is `${baseUrl}/token`; the signature is checked against the public key given at
//   construction. `aud` may be this endpoint or Google's own (clients such as gtoken always
//   write Google's, whatever URL they post to).
// - Google Wallet REST reference, genericclass / genericobject: `insert` (POST
//   .../genericClass, .../genericObject), `get` (GET .../{resourceId}), `patch` (PATCH, patch
//   semantics: the given fields are merged in, a field given as null is cleared), `update` (PUT, the resource is replaced). Ids are
//   `<issuer id>.<identifier>`, the identifier of letters, digits, `.`, `_` or `-`. An object's
//   `state` is one of ACTIVE, COMPLETED, EXPIRED, INACTIVE. Every call needs an access token
//   with the scope https://www.googleapis.com/auth/wallet_object.issuer.
// - Errors, as Google APIs send them: `{"error": {"code": 404, "message": "...", "status":
//   "NOT_FOUND"}}`. The Wallet "Error codes" page: 400 invalid argument (e.g. an invalid resource
//   id), 403 permission denied, 404 object or class not found, 409 already exists; its example
//   messages are used here. No token or an invalid one is 401 UNAUTHENTICATED, with
//   `WWW-Authenticate: Bearer`.
// - genericobject.addmessage: `POST .../genericObject/{resourceId}/addMessage` with an
//   AddMessageRequest `{"message": Message}` (Message: `header`, `body`, `id`, `messageType` one of
//   MESSAGE_TYPE_UNSPECIFIED, TEXT, EXPIRATION_NOTIFICATION, TEXT_AND_NOTIFY, ...); the answer is
//   `{"resource": <the object>}`, the message appended to the object's `messages`. "Trigger push
//   notifications": at most 3 TEXT_AND_NOTIFY messages per pass in 24 hours; past it Google
//   refuses with a QuotaExceededException and TEXT is to be used.
// - FAQ: "Calls to the Google Wallet API are rate limited to 20 requests per second".
//
// Stand-in choices: an inserted object's class must exist (404, as the Wallet error page's
// IssuerClassNotFound describes); nothing is added to stored resources (no defaults); `failNext`
// applies to Wallet API calls only, not to the token endpoint. The notification quota's refusal is
// 429 RESOURCE_EXHAUSTED (Google's code for quotas) whose message starts `QuotaExceededException`
// (the name Google's page gives), with no effect; the rate limit (`limitRate`, off unless asked
// for) is 429 RESOURCE_EXHAUSTED too, with `Retry-After` when asked for, counted over any 1 s of
// Wallet API calls (the token endpoint is not counted).
//
// Use: `const google = await GoogleWalletApiStandIn.start({ issuerId: TEST_ISSUER_ID })`; give the
// service `GOOGLE_SERVICE_ACCOUNT=google.serviceAccount.json` (a made-up key whose `token_uri` is
// `google.tokenUrl`) and the Wallet API base `google.apiUrl`; read `google.requests`,
// `google.object(id)`, `google.messages(id)`; script failures with `google.failNext(2, 503)`; limit
// the rate with `google.limitRate(20, 1)` (429 with Retry-After: 1 past 20 calls in a second);
// move the notification quota's clock with the `now` option; `await google.close()`.
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { type CryptoKey, compactVerify, decodeJwt, decodeProtectedHeader, importSPKI, type JWTPayload } from 'jose';
import { GOOGLE_TOKEN_URI, type TestServiceAccount, testServiceAccount } from '../google';

export const WALLET_SCOPE = 'https://www.googleapis.com/auth/wallet_object.issuer';
export const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
/** Google: `exp` "has a maximum of 1 hour after the issued time". */
export const MAX_ASSERTION_LIFETIME_SECONDS = 3600;
/** Object states in the Wallet reference (the lowercase forms are its legacy aliases). */
export const OBJECT_STATES = ['STATE_UNSPECIFIED', 'ACTIVE', 'COMPLETED', 'EXPIRED', 'INACTIVE', 'active', 'completed', 'expired', 'inactive'] as const;

/** Google's canonical status names and default messages for the HTTP codes the stand-in sends. */
const CANONICAL: Record<number, { status: string; message: string }> = {
  400: { status: 'INVALID_ARGUMENT', message: 'Request contains an invalid argument.' },
  401: { status: 'UNAUTHENTICATED', message: 'Request had invalid authentication credentials.' },
  403: { status: 'PERMISSION_DENIED', message: 'The caller does not have permission' },
  404: { status: 'NOT_FOUND', message: 'Requested entity was not found.' },
  409: { status: 'ALREADY_EXISTS', message: 'Requested entity already exists' },
  429: { status: 'RESOURCE_EXHAUSTED', message: 'Resource has been exhausted (e.g. check quota).' },
  500: { status: 'INTERNAL', message: 'Internal error encountered.' },
  503: { status: 'UNAVAILABLE', message: 'The service is currently unavailable.' },
  504: { status: 'DEADLINE_EXCEEDED', message: 'The request timed out.' },
};

const MISSING_CREDENTIALS =
  'Request is missing required authentication credential. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.';
const INVALID_CREDENTIALS =
  'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.';
const SHORT_LIVED =
  'Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim.';
/** How far in the future an assertion's `iat` may be (clock skew between client and server). */
const CLOCK_SKEW_SECONDS = 300;
const MAX_BODY_BYTES = 1_000_000;

export type GoogleWalletApiStandInOptions = {
  /**
   * The account whose signed assertions get tokens. Left out, the stand-in makes one with
   * `testServiceAccount({ tokenUri: <its tokenUrl> })`: its `json` is a key file pointing here.
   */
  serviceAccount?: TestServiceAccount;
  /** Every class and object id must start with `<issuerId>.`. */
  issuerId: string;
  /** `expires_in` of issued tokens (default 3600). */
  tokenLifetimeSeconds?: number;
  /** The time the notification quota's 24 hours are counted in (default Date.now): tests move it on. */
  now?: () => number;
};

/** Google: "a maximum of 3 notification-triggering messages" per pass "within a 24-hour period". */
export const NOTIFICATIONS_PER_DAY = 3;
export const MESSAGE_TYPES = ['MESSAGE_TYPE_UNSPECIFIED', 'TEXT', 'EXPIRATION_NOTIFICATION', 'TEXT_AND_NOTIFY', 'text', 'expirationNotification'] as const;

export type RecordedRequest = {
  method: string;
  path: string;
  /** Parsed JSON, the form fields of a token request, the raw text if neither, or undefined when empty. */
  body: unknown;
  status: number;
  at: Date;
};

export type Resource = Record<string, unknown> & { id: string };
type Collection = 'genericClass' | 'genericObject';
type Reply = { status: number; body: unknown; headers?: Record<string, string> };
type IssuedToken = { scopes: Set<string>; expiresAt: number };

export class GoogleWalletApiStandIn {
  readonly requests: RecordedRequest[] = [];
  private readonly store: Record<Collection, Map<string, Resource>> = { genericClass: new Map(), genericObject: new Map() };
  private readonly tokens = new Map<string, IssuedToken>();
  private failures: { remaining: number; status: number; message: string | undefined } = { remaining: 0, status: 500, message: undefined };
  /** When each object's TEXT_AND_NOTIFY messages were taken (stand-in clock, ms). */
  private readonly notified = new Map<string, number[]>();
  private rateLimit: { rps: number; retryAfterSeconds: number | undefined } | undefined;
  /** Arrival times (monotonic ms) of the Wallet API calls let through in the last second. */
  private recentCalls: number[] = [];
  /** Wallet API calls answered 429 for the rate (not for the notification quota). */
  rateLimited = 0;

  private constructor(
    private readonly server: http.Server,
    private readonly options: GoogleWalletApiStandInOptions,
    /** The account whose assertions are accepted (given, or made here with `token_uri` = `tokenUrl`). */
    readonly serviceAccount: TestServiceAccount,
    private readonly publicKey: CryptoKey,
    /** `http://127.0.0.1:<port>` */
    readonly baseUrl: string,
  ) {}

  /** The OAuth 2.0 token endpoint: a service account's `token_uri`. */
  get tokenUrl(): string {
    return `${this.baseUrl}/token`;
  }

  /** Where `https://walletobjects.googleapis.com/walletobjects/v1` is: `${apiUrl}/genericObject/...`. */
  get apiUrl(): string {
    return `${this.baseUrl}/walletobjects/v1`;
  }

  /** Listens on 127.0.0.1 on an ephemeral port. */
  static async start(options: GoogleWalletApiStandInOptions): Promise<GoogleWalletApiStandIn> {
    let standIn: GoogleWalletApiStandIn | undefined;
    const server = http.createServer((request, response) => {
      void standIn!.handle(request, response);
    });
    // The port is known only once listening, and a made-up account's token_uri needs it.
    const baseUrl = `http://127.0.0.1:${await listen(server)}`;
    const account = options.serviceAccount ?? testServiceAccount({ tokenUri: `${baseUrl}/token` });
    const publicKey = await importSPKI(account.publicKeyPem, 'RS256');
    standIn = new GoogleWalletApiStandIn(server, options, account, publicKey, baseUrl);
    return standIn;
  }

  /** A copy of a stored class, or undefined. */
  class(id: string): Resource | undefined {
    return copy(this.store.genericClass.get(id));
  }

  /** A copy of a stored object, or undefined. */
  object(id: string): Resource | undefined {
    return copy(this.store.genericObject.get(id));
  }

  /** The next `count` Wallet API calls get `status` with Google's error body (and no effect), e.g. 503 to test retries. */
  failNext(count: number, status: number, message?: string): void {
    this.failures = { remaining: count, status, message };
  }

  /**
   * Answers 429 to any Wallet API call that would make more than `rps` in one second (calls
   * refused are not counted), with `Retry-After: <retryAfterSeconds>` when given; undefined: no limit.
   */
  limitRate(rps: number | undefined, retryAfterSeconds?: number): void {
    this.rateLimit = rps === undefined ? undefined : { rps, retryAfterSeconds };
    this.recentCalls = [];
  }

  /** The messages of a stored object, in the order added. */
  messages(objectId: string): Record<string, unknown>[] {
    return (copy(this.store.genericObject.get(objectId))?.messages as Record<string, unknown>[] | undefined) ?? [];
  }

  /** Makes every access token issued so far expired, as if an hour had passed: the next API call with one is 401. */
  expireTokens(): void {
    for (const token of this.tokens.values()) token.expiresAt = 0;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
    const method = request.method ?? '';
    const url = new URL(request.url ?? '/', this.baseUrl);
    let raw: string;
    try {
      raw = await readBody(request);
    } catch {
      response.destroy();
      return;
    }
    const reply = url.pathname === '/token' ? await this.token(method, request, raw) : this.api(method, url.pathname, request, raw);
    this.requests.push({ method, path: url.pathname + url.search, body: recordedBody(raw, request), status: reply.status, at: new Date() });
    response.writeHead(reply.status, { 'content-type': 'application/json; charset=UTF-8', ...reply.headers });
    response.end(JSON.stringify(reply.body));
  }

  // --- OAuth 2.0 token endpoint --------------------------------------------------------------

  private async token(method: string, request: http.IncomingMessage, raw: string): Promise<Reply> {
    if (method !== 'POST') return { status: 405, body: oauthError('invalid_request', 'The token endpoint only accepts POST'), headers: { allow: 'POST' } };
    if (!isFormEncoded(request)) return { status: 400, body: oauthError('invalid_request', 'Content-Type must be application/x-www-form-urlencoded') };
    const form = new URLSearchParams(raw);
    const grantType = form.get('grant_type') ?? '';
    if (grantType !== JWT_BEARER_GRANT) return { status: 400, body: oauthError('unsupported_grant_type', `Invalid grant_type: ${grantType}`) };
    const assertion = form.get('assertion');
    if (!assertion) return { status: 400, body: oauthError('invalid_request', 'Missing required parameter: assertion') };

    const refused = await this.checkAssertion(assertion);
    if (typeof refused === 'string') return { status: 400, body: oauthError('invalid_grant', refused) };
    if (refused.scopes.size === 0) return { status: 400, body: oauthError('invalid_scope', 'Invalid OAuth scope or ID token audience provided.') };

    const accessToken = `ya29.stand-in.${randomBytes(24).toString('base64url')}`;
    const lifetime = this.options.tokenLifetimeSeconds ?? 3600;
    this.tokens.set(accessToken, { scopes: refused.scopes, expiresAt: Date.now() + lifetime * 1000 });
    return {
      status: 200,
      body: { access_token: accessToken, expires_in: lifetime, scope: [...refused.scopes].join(' '), token_type: 'Bearer' },
      headers: { 'cache-control': 'no-cache, no-store, max-age=0, must-revalidate', pragma: 'no-cache' },
    };
  }

  /** The scopes of a good assertion, or why Google would refuse it (its error_description). */
  private async checkAssertion(assertion: string): Promise<{ scopes: Set<string> } | string> {
    let claims: JWTPayload;
    try {
      if (decodeProtectedHeader(assertion).alg !== 'RS256') return 'Invalid JWT Signature.';
      claims = decodeJwt(assertion);
    } catch {
      return 'Invalid JWT Signature.';
    }
    // Google finds the key by the issuer first: an unknown account is refused before any signature check.
    if (claims.iss !== this.serviceAccount.clientEmail) return 'Invalid grant: account not found';
    try {
      await compactVerify(assertion, this.publicKey, { algorithms: ['RS256'] });
    } catch {
      return 'Invalid JWT Signature.';
    }
    const audiences = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
    if (!audiences.some((aud) => aud === this.tokenUrl || aud === GOOGLE_TOKEN_URI)) return 'Invalid JWT: Failed audience check.';
    const now = Math.floor(Date.now() / 1000);
    const { iat, exp } = claims;
    if (typeof iat !== 'number' || typeof exp !== 'number') return SHORT_LIVED;
    if (exp - iat > MAX_ASSERTION_LIFETIME_SECONDS || exp <= now || iat > now + CLOCK_SKEW_SECONDS || exp <= iat) return SHORT_LIVED;
    const scope = typeof claims.scope === 'string' ? claims.scope : '';
    return { scopes: new Set(scope.split(' ').filter((s) => s !== '')) };
  }

  // --- Wallet REST API -------------------------------------------------------------------------

  private api(method: string, pathname: string, request: http.IncomingMessage, raw: string): Reply {
    const route = /^\/walletobjects\/v1\/(genericClass|genericObject)(?:\/([^/]*)(?:\/(addMessage))?)?\/?$/.exec(pathname);
    if (!route) return googleError(404, 'Method not found.');
    const limited = this.overRate();
    if (limited) return limited;
    if (this.failures.remaining > 0) {
      this.failures.remaining--;
      return googleError(this.failures.status, this.failures.message);
    }
    const denied = this.authenticate(request.headers.authorization);
    if (denied) return denied;

    const collection = route[1] as Collection;
    const resourceId = route[2] ? decodeURIComponent(route[2]) : undefined;
    if (method === 'POST' && resourceId === undefined) return this.insert(collection, raw);
    if (resourceId === undefined) return googleError(404, 'Method not found.');
    if (route[3]) return method === 'POST' ? this.addMessage(collection, resourceId, raw) : googleError(404, 'Method not found.');
    if (method === 'GET') return this.get(collection, resourceId);
    if (method === 'PATCH') return this.patch(collection, resourceId, raw);
    if (method === 'PUT') return this.update(collection, resourceId, raw);
    return googleError(404, 'Method not found.');
  }

  private overRate(): Reply | undefined {
    if (!this.rateLimit) return undefined;
    const now = performance.now();
    this.recentCalls = this.recentCalls.filter((at) => at > now - 1000);
    if (this.recentCalls.length >= this.rateLimit.rps) {
      this.rateLimited++;
      const { retryAfterSeconds } = this.rateLimit;
      return googleError(
        429,
        "Quota exceeded for quota metric 'Requests' and limit 'Requests per second' of service 'walletobjects.googleapis.com'.",
        retryAfterSeconds === undefined ? undefined : { 'retry-after': String(retryAfterSeconds) },
      );
    }
    this.recentCalls.push(now);
    return undefined;
  }

  private addMessage(collection: Collection, id: string, raw: string): Reply {
    const found = this.store[collection].get(id);
    if (!found) return googleError(404, `${label(collection)} {${id}} not found.`);
    const body = parseResource(raw);
    if (typeof body === 'string') return googleError(400, body);
    const message = body.message;
    if (!isPlainObject(message)) return googleError(400, 'Request contains an invalid argument. Missing message.');
    if (message.messageType !== undefined && !(MESSAGE_TYPES as readonly unknown[]).includes(message.messageType))
      return googleError(400, `Invalid value at 'message.message_type' (TYPE_ENUM), ${JSON.stringify(message.messageType)}`);
    if (message.messageType === 'TEXT_AND_NOTIFY') {
      const now = (this.options.now ?? Date.now)();
      const recent = (this.notified.get(id) ?? []).filter((at) => at > now - 24 * 3600 * 1000);
      if (recent.length >= NOTIFICATIONS_PER_DAY)
        return googleError(
          429,
          `QuotaExceededException: the object {${id}} has had ${NOTIFICATIONS_PER_DAY} messages of type TEXT_AND_NOTIFY in 24 hours; use TEXT.`,
        );
      this.notified.set(id, [...recent, now]);
    }
    const messages = Array.isArray(found.messages) ? found.messages : [];
    const updated = { ...found, messages: [...messages, message] };
    this.store[collection].set(id, updated);
    return { status: 200, body: { resource: updated } };
  }

  private authenticate(authorization: string | undefined): Reply | undefined {
    const realm = 'Bearer realm="https://accounts.google.com/"';
    const match = /^Bearer (\S+)$/i.exec(authorization ?? '');
    if (!match) return googleError(401, MISSING_CREDENTIALS, { 'www-authenticate': realm });
    const token = this.tokens.get(match[1]!);
    if (!token || token.expiresAt <= Date.now()) return googleError(401, INVALID_CREDENTIALS, { 'www-authenticate': `${realm}, error="invalid_token"` });
    if (!token.scopes.has(WALLET_SCOPE)) {
      return googleError(403, 'Request had insufficient authentication scopes.', {
        'www-authenticate': `${realm}, error="insufficient_scope", scope="${WALLET_SCOPE}"`,
      });
    }
    return undefined;
  }

  private insert(collection: Collection, raw: string): Reply {
    const body = parseResource(raw);
    if (typeof body === 'string') return googleError(400, body);
    const invalid = this.checkResource(collection, body);
    if (invalid) return invalid;
    const id = body.id as string;
    if (this.store[collection].has(id)) return googleError(409, `${label(collection)} {${id}} already exists.`);
    this.store[collection].set(id, body as Resource);
    return { status: 200, body };
  }

  private get(collection: Collection, id: string): Reply {
    const found = this.store[collection].get(id);
    return found ? { status: 200, body: found } : googleError(404, `${label(collection)} {${id}} not found.`);
  }

  /** Patch semantics: fields in the body replace or (for nested objects) merge into the stored ones; arrays are replaced whole. */
  private patch(collection: Collection, id: string, raw: string): Reply {
    const found = this.store[collection].get(id);
    if (!found) return googleError(404, `${label(collection)} {${id}} not found.`);
    const body = parseResource(raw);
    if (typeof body === 'string') return googleError(400, body);
    if (body.id !== undefined && body.id !== id)
      return googleError(400, `Request contains an invalid argument. The resource id in the body (${String(body.id)}) does not match the path (${id}).`);
    const merged = merge(found, body) as Resource;
    const invalid = this.checkResource(collection, merged);
    if (invalid) return invalid;
    this.store[collection].set(id, merged);
    return { status: 200, body: merged };
  }

  /** Update semantics: the stored resource becomes the body. */
  private update(collection: Collection, id: string, raw: string): Reply {
    if (!this.store[collection].has(id)) return googleError(404, `${label(collection)} {${id}} not found.`);
    const body = parseResource(raw);
    if (typeof body === 'string') return googleError(400, body);
    if (body.id !== undefined && body.id !== id)
      return googleError(400, `Request contains an invalid argument. The resource id in the body (${String(body.id)}) does not match the path (${id}).`);
    const replaced = { ...body, id };
    const invalid = this.checkResource(collection, replaced);
    if (invalid) return invalid;
    this.store[collection].set(id, replaced);
    return { status: 200, body: replaced };
  }

  /** The checks every write makes: ids of this issuer, a known state, and (for an object) an existing class. */
  private checkResource(collection: Collection, body: Record<string, unknown>): Reply | undefined {
    if (typeof body.id !== 'string' || body.id === '') return googleError(400, 'Request contains an invalid argument. Missing resource ID.');
    if (!this.isIssuerId(body.id)) return googleError(400, `Request contains an invalid argument. Invalid resource ID: {${body.id}}.`);
    if (body.state !== undefined && !(OBJECT_STATES as readonly unknown[]).includes(body.state)) {
      return googleError(400, `Invalid value at 'resource.state' (TYPE_ENUM), ${JSON.stringify(body.state)}`);
    }
    if (collection === 'genericObject') {
      if (typeof body.classId !== 'string' || body.classId === '') return googleError(400, 'Request contains an invalid argument. Missing class ID.');
      if (!this.isIssuerId(body.classId)) return googleError(400, `Request contains an invalid argument. Invalid resource ID: {${body.classId}}.`);
      if (!this.store.genericClass.has(body.classId)) return googleError(404, `Wallet Object Class {${body.classId}} not found.`);
    }
    return undefined;
  }

  private isIssuerId(id: string): boolean {
    const prefix = `${this.options.issuerId}.`;
    return id.startsWith(prefix) && /^[A-Za-z0-9._-]+$/.test(id.slice(prefix.length));
  }
}

function listen(server: http.Server): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

function readBody(request: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) reject(new Error('body too large'));
      else chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

function isFormEncoded(request: http.IncomingMessage): boolean {
  return (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase() === 'application/x-www-form-urlencoded';
}

function recordedBody(raw: string, request: http.IncomingMessage): unknown {
  if (raw === '') return undefined;
  if (isFormEncoded(request)) return Object.fromEntries(new URLSearchParams(raw));
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

/** The body as a JSON object, or the INVALID_ARGUMENT message Google gives when it is not one. */
function parseResource(raw: string): Record<string, unknown> | string {
  let value: unknown;
  try {
    value = JSON.parse(raw === '' ? '{}' : raw);
  } catch {
    return 'Invalid JSON payload received. Unexpected token.';
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'Invalid JSON payload received. Expected an object.';
  return value as Record<string, unknown>;
}

const label = (collection: Collection) => (collection === 'genericClass' ? 'Wallet Object Class' : 'Wallet Object');

function googleError(code: number, message?: string, headers?: Record<string, string>): Reply {
  const canonical = CANONICAL[code] ?? { status: 'UNKNOWN', message: 'Unknown error.' };
  return { status: code, body: { error: { code, message: message ?? canonical.message, status: canonical.status } }, headers };
}

const oauthError = (error: string, description: string) => ({ error, error_description: description });

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function merge(target: Record<string, unknown>, patch: Record<string, unknown>): Record<string, unknown> {
  const result: Record<string, unknown> = { ...target };
  for (const [key, value] of Object.entries(patch)) {
    const current = result[key];
    if (value === null)
      delete result[key]; // Google's patch semantics: null clears a field
    else result[key] = isPlainObject(current) && isPlainObject(value) ? merge(current, value) : value;
  }
  return result;
}

function copy<T>(value: T | undefined): T | undefined {
  return value === undefined ? undefined : (structuredClone(value) as T);
}
