// Who is calling an operator endpoint. A credential is a session token (from signing in, 12
// hours) or an API key (until revoked), sent as `Authorization: Bearer <token>`, or the session
// as the console's cookie. Tokens are 32 random bytes; the database keeps only their SHA-256, so
// a copy of it opens nothing, and a lookup's timing says nothing about a token.
import { createHash, randomBytes } from 'node:crypto';
import type { Config } from '../config';
import type { Store } from '../db/store';
import { AppError } from '../errors';
import { type Scope, scopeAllows } from './scopes';

/** What telling an operator's request apart needs: the operators, the service's origin, the database. */
export type OperatorAuthDeps = { config: Pick<Config, 'operatorWallets' | 'publicBaseUrl'>; store: Pick<Store, 'session' | 'apiKey'> };

export type Operator = {
  publicKey: string;
  via: 'session' | 'api_key';
  /** The session's token hash, or the API key's id. */
  credentialId: string;
  /** When the credential stops working (sessions); undefined for API keys. */
  expiresAt?: Date;
  /** What the credential may do: `operator` (a session, or a full API key) or `scan` (a door's key: ./scopes.ts). */
  scope: Scope;
};

/** Prefixes tell the two kinds of token apart (and let secret scanners recognise them). */
export const SESSION_TOKEN_PREFIX = 'wpcs_';
export const API_KEY_PREFIX = 'wpck_';
/**
 * The session cookie's name and path. On https it is `__Host-operator_session`, Path=/ (the prefix
 * requires both, with Secure and no Domain): a browser then accepts it only from this origin over
 * https, so a sibling subdomain or a plain-http page cannot toss in a cookie of that name. On
 * http://localhost (development) no prefix can hold: `operator_session`, on the operator API's path.
 */
export function sessionCookieName(services: Pick<OperatorAuthDeps, 'config'>): { name: string; path: string } {
  return isHttps(services) ? { name: `__Host-${SESSION_COOKIE}`, path: '/' } : { name: SESSION_COOKIE, path: '/api/v1/operator' };
}
const SESSION_COOKIE = 'operator_session';
const isHttps = (services: Pick<OperatorAuthDeps, 'config'>) => services.config.publicBaseUrl.startsWith('https:');

/**
 * At most this many values of the session cookie are tried: more than a browser ever sends (one
 * per path and domain it matches), few enough that a request cannot make many lookups.
 */
const MAX_COOKIE_VALUES = 4;

/** A new bearer secret: the prefix and 32 random bytes, base64url. */
export const newToken = (prefix: string) => `${prefix}${randomBytes(32).toString('base64url')}`;

export const tokenHash = (token: string) => createHash('sha256').update(token).digest('hex');

/** The shape of our tokens: anything else is refused before the database is asked. */
const TOKEN_SHAPE = /^wpc[sk]_[A-Za-z0-9_-]{43}$/;

const unauthorized = (detail: string) => new AppError('unauthorized', detail);

/**
 * The operator behind a request to an endpoint that allows `allowed` (./scopes.ts), or 401
 * unauthorized / 403 forbidden.
 */
export async function authenticateOperator(services: OperatorAuthDeps, request: Request, allowed: Scope = 'operator'): Promise<Operator> {
  return requireScope(await identifyOperator(services, request), allowed);
}

/**
 * The operator, if its credential's scope allows the endpoint; 403 forbidden otherwise. Threat: a
 * door's scan key (on a volunteer's phone, easily lost) voiding passes, reading holders or making keys.
 */
export function requireScope(operator: Operator, allowed: Scope): Operator {
  if (!scopeAllows(allowed, operator.scope)) {
    throw new AppError(
      'forbidden',
      'This is a scan key: it may only check passes in (POST /api/v1/operator/check-ins) and list programs (GET /api/v1/operator/programs).',
    );
  }
  return operator;
}

/** The operator behind a request, whatever its scope, or 401 unauthorized / 403 forbidden. */
async function identifyOperator(services: OperatorAuthDeps, request: Request): Promise<Operator> {
  const authorization = request.headers.get('authorization');
  if (authorization !== null) {
    const bearer = /^Bearer[ ]+(\S+)\s*$/i.exec(authorization)?.[1];
    if (bearer === undefined) throw unauthorized('The Authorization header must be `Bearer <token>`.');
    if (!TOKEN_SHAPE.test(bearer)) throw unauthorized('This token is not a session token or API key of this service.');
    const operator = await operatorOf(services, bearer);
    if (!operator) throw unauthorized('This token is unknown, expired or revoked. Sign in again.');
    return allowed(services, operator);
  }

  // Every value is tried: a browser sends each cookie of the name that matches (another path,
  // another domain), and one tossed in beside the real session must not sign the operator out.
  const values = cookieValues(request.headers.get('cookie'), sessionCookieName(services).name);
  if (values.length === 0) throw unauthorized('Sign in first: send `Authorization: Bearer <token>` (a session token or an API key).');
  const tokens = values.filter((value) => TOKEN_SHAPE.test(value)).slice(0, MAX_COOKIE_VALUES);
  if (tokens.length === 0) throw unauthorized('This token is not a session token or API key of this service.');
  // The cookie is sent by the browser whoever asks it to: an unsafe request with it must come
  // from our own pages (a Bearer token cannot be made to ride along cross-site, so it needs no check).
  if (!SAFE_METHODS.has(request.method)) assertSameOrigin(services, request);
  let refused: Operator | undefined;
  for (const token of tokens) {
    const operator = await operatorOf(services, token);
    if (operator && services.config.operatorWallets.includes(operator.publicKey)) return operator;
    refused ??= operator;
  }
  if (!refused) throw unauthorized('This token is unknown, expired or revoked. Sign in again.');
  return allowed(services, refused);
}

/** The operator, if its wallet is still in OPERATOR_WALLETS; 403 forbidden otherwise. */
function allowed(services: OperatorAuthDeps, operator: Operator): Operator {
  if (!services.config.operatorWallets.includes(operator.publicKey)) {
    throw new AppError('forbidden', 'The wallet behind this credential is not (any more) in OPERATOR_WALLETS.');
  }
  return operator;
}

const operatorOf = (services: OperatorAuthDeps, token: string) =>
  token.startsWith(SESSION_TOKEN_PREFIX) ? sessionOperator(services, token) : apiKeyOperator(services, token);

async function sessionOperator(services: OperatorAuthDeps, token: string): Promise<Operator | undefined> {
  const session = await services.store.session(tokenHash(token));
  return session && { publicKey: session.publicKey, via: 'session', credentialId: session.tokenHash, expiresAt: session.expiresAt, scope: 'operator' };
}

async function apiKeyOperator(services: OperatorAuthDeps, token: string): Promise<Operator | undefined> {
  const key = await services.store.apiKey(tokenHash(token));
  return key && { publicKey: key.createdBy, via: 'api_key', credentialId: key.id, scope: key.scope };
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The CSRF check (docs/operators.md): the request's Origin must be PUBLIC_BASE_URL's origin; a
 * browser that sends no Origin must say Sec-Fetch-Site: same-origin. Neither header: refused, as a
 * browser old enough to send neither is not one the console supports.
 */
export function assertSameOrigin(services: Pick<OperatorAuthDeps, 'config'>, request: Request): void {
  const origin = request.headers.get('origin');
  const site = request.headers.get('sec-fetch-site');
  const sameOrigin = origin !== null ? origin === services.config.publicBaseUrl : site === 'same-origin';
  if (!sameOrigin) {
    throw new AppError(
      'forbidden',
      'A request with the session cookie must come from this service’s own pages (Origin or Sec-Fetch-Site); scripts send Authorization: Bearer instead.',
    );
  }
}

/** Whether a browser request came from our own origin, or from no browser at all (no Origin, no Sec-Fetch-Site). */
export function fromOwnOriginOrNoBrowser(services: Pick<OperatorAuthDeps, 'config'>, request: { headers: Headers }): boolean {
  const origin = request.headers.get('origin');
  const site = request.headers.get('sec-fetch-site');
  if (origin !== null) return origin === services.config.publicBaseUrl;
  return site === null || site === 'same-origin' || site === 'none';
}

/** Every value of one cookie in a Cookie header, in the order sent. */
export function cookieValues(header: string | null, name: string): string[] {
  const values: string[] = [];
  for (const part of header?.split(';') ?? []) {
    const at = part.indexOf('=');
    if (at !== -1 && part.slice(0, at).trim() === name) values.push(part.slice(at + 1).trim());
  }
  return values;
}

/** The Set-Cookie of a session (`maxAgeSeconds` 0 ends it). Secure unless the service runs on http://localhost. */
export function sessionCookie(services: Pick<OperatorAuthDeps, 'config'>, token: string, maxAgeSeconds: number): string {
  const { name, path } = sessionCookieName(services);
  const secure = isHttps(services) ? '; Secure' : '';
  return `${name}=${token}; Path=${path}; HttpOnly; SameSite=Strict; Max-Age=${maxAgeSeconds}${secure}`;
}
