// Who is calling an operator endpoint. A credential is a session token (from signing in, 12
// hours) or an API key (until revoked), sent as `Authorization: Bearer <token>`, or the session
// as the console's cookie. Tokens are 32 random bytes; the database keeps only their SHA-256, so
// a copy of it opens nothing, and a lookup's timing says nothing about a token.
import { createHash, randomBytes } from 'node:crypto';
import type { Config } from '../config';
import { findApiKeyByHash } from '../db/api-keys';
import { findSessionByHash } from '../db/sessions';
import type { Store } from '../db/store';
import { AppError } from '../errors';

/** What telling an operator's request apart needs: the operators, the service's origin, the database. */
export type OperatorAuthDeps = { config: Pick<Config, 'operatorWallets' | 'publicBaseUrl'>; store: Pick<Store, 'sql'> };

export type Operator = {
  publicKey: string;
  via: 'session' | 'api_key';
  /** The session's token hash, or the API key's id. */
  credentialId: string;
  /** When the credential stops working (sessions); undefined for API keys. */
  expiresAt?: Date;
};

/** Prefixes tell the two kinds of token apart (and let secret scanners recognise them). */
export const SESSION_TOKEN_PREFIX = 'wpcs_';
export const API_KEY_PREFIX = 'wpck_';
export const SESSION_COOKIE = 'operator_session';
export const COOKIE_PATH = '/api/v1/operator';

/** A new bearer secret: the prefix and 32 random bytes, base64url. */
export const newToken = (prefix: string) => `${prefix}${randomBytes(32).toString('base64url')}`;

export const tokenHash = (token: string) => createHash('sha256').update(token).digest('hex');

/** The shape of our tokens: anything else is refused before the database is asked. */
const TOKEN_SHAPE = /^wpc[sk]_[A-Za-z0-9_-]{43}$/;

const unauthorized = (detail: string) => new AppError('unauthorized', detail);

/** The operator behind a request, or 401 unauthorized / 403 forbidden. */
export async function authenticateOperator(services: OperatorAuthDeps, request: Request): Promise<Operator> {
  const authorization = request.headers.get('authorization');
  let token: string | undefined;
  let fromCookie = false;
  if (authorization !== null) {
    const bearer = /^Bearer[ ]+(\S+)\s*$/i.exec(authorization)?.[1];
    if (bearer === undefined) throw unauthorized('The Authorization header must be `Bearer <token>`.');
    token = bearer;
  } else {
    token = cookieValue(request.headers.get('cookie'), SESSION_COOKIE);
    fromCookie = token !== undefined;
  }
  if (!token) throw unauthorized('Sign in first: send `Authorization: Bearer <token>` (a session token or an API key).');
  if (!TOKEN_SHAPE.test(token)) throw unauthorized('This token is not a session token or API key of this service.');

  // The cookie is sent by the browser whoever asks it to: an unsafe request with it must come
  // from our own pages (a Bearer token cannot be made to ride along cross-site, so it needs no check).
  if (fromCookie && !SAFE_METHODS.has(request.method)) assertSameOrigin(services, request);

  const operator = token.startsWith(SESSION_TOKEN_PREFIX) ? await sessionOperator(services, token) : await apiKeyOperator(services, token);
  if (!operator) throw unauthorized('This token is unknown, expired or revoked. Sign in again.');
  if (!services.config.operatorWallets.includes(operator.publicKey)) {
    throw new AppError('forbidden', 'The wallet behind this credential is not (any more) in OPERATOR_WALLETS.');
  }
  return operator;
}

async function sessionOperator(services: OperatorAuthDeps, token: string): Promise<Operator | undefined> {
  const session = await findSessionByHash(services.store.sql, tokenHash(token), new Date());
  return session && { publicKey: session.publicKey, via: 'session', credentialId: session.tokenHash, expiresAt: session.expiresAt };
}

async function apiKeyOperator(services: OperatorAuthDeps, token: string): Promise<Operator | undefined> {
  const key = await findApiKeyByHash(services.store.sql, tokenHash(token), new Date());
  return key && { publicKey: key.createdBy, via: 'api_key', credentialId: key.id };
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

/** The value of one cookie of a Cookie header. */
export function cookieValue(header: string | null, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const at = part.indexOf('=');
    if (at !== -1 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return undefined;
}

/** The Set-Cookie of a session (`maxAgeSeconds` 0 ends it). Secure unless the service runs on http://localhost. */
export function sessionCookie(services: Pick<OperatorAuthDeps, 'config'>, token: string, maxAgeSeconds: number): string {
  const secure = services.config.publicBaseUrl.startsWith('https:') ? '; Secure' : '';
  return `${SESSION_COOKIE}=${token}; Path=${COOKIE_PATH}; HttpOnly; SameSite=Strict; Max-Age=${maxAgeSeconds}${secure}`;
}
