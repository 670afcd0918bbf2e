// The operator API as the console page calls it: same-origin fetch with the session cookie the
// sign-in sets (HttpOnly: this code never sees the token), and the CSRF header the service asks
// for on every request that changes something. Failures reject with a ClaimApiError carrying the
// service's problem code, like the claim client. No server code: this runs in the browser.
import { ClaimApiError, problemFrom, type InitResult } from './index';

export type PassStatus = 'active' | 'voided';

export type OperatorPass = {
  serialNumber: string;
  publicKey: string;
  walletType: string;
  claimedAt: string;
  status: PassStatus;
  voidReason: string | null;
  updatedAt: string;
  /** How many devices have the pass registered (Apple Wallet updates). */
  devices: number;
};

export type PassPage = { passes: OperatorPass[]; nextCursor: string | null };

export type PassQuery = { publicKey?: string; serial?: string; status?: PassStatus | ''; cursor?: string | null };

export type OperatorStats = {
  passes: number;
  active: number;
  voided: number;
  devicesRegistered: number;
  claimsPerDay: { date: string; count: number }[];
};

export type Session = { publicKey: string; expiresAt: string };

export type ApiKey = {
  id: string;
  name: string | null;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
};

export type CreatedApiKey = { id: string | null; key: string };

export type WebhookDelivery = {
  id: string;
  /** The event: pass.created, pass.voided, … */
  type: string;
  status: string;
  attempts: number;
  createdAt: string | null;
  nextAttemptAt: string | null;
  lastError: string | null;
};

export type DeliveryPage = { deliveries: WebhookDelivery[]; nextCursor: string | null };

export type SignedIn = { message: string; signature: string; publicKey: string };

const BASE = '/api/v1/operator';

/**
 * The CSRF defence of cookie sessions (docs/operators.md): a request that changes something must
 * carry this header. A cross-site form cannot set a header, and a cross-site fetch that sets one
 * needs a CORS preflight this API never grants with credentials.
 */
export const CSRF_HEADER = 'x-operator-csrf';
const CSRF_VALUE = '1';

const TIMEOUT_MS = 30_000;

async function send(path: string, init: RequestInit = {}): Promise<Response> {
  const method = (init.method ?? 'GET').toUpperCase();
  const headers = new Headers(init.headers);
  if (method !== 'GET' && method !== 'HEAD') headers.set(CSRF_HEADER, CSRF_VALUE);
  let response: Response;
  try {
    response = await fetch(`${BASE}${path}`, {
      ...init,
      method,
      headers,
      credentials: 'same-origin',
      cache: 'no-store',
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  } catch {
    throw new ClaimApiError('network_error', 0, 'Could not reach the service.');
  }
  if (response.ok) return response;
  throw await problemFrom(response);
}

async function json<T>(response: Response): Promise<T> {
  if (response.status === 204) return undefined as T;
  try {
    return (await response.json()) as T;
  } catch {
    throw new ClaimApiError('unexpected_response', response.status, `The answer (HTTP ${response.status}) is not JSON.`);
  }
}

const post = (path: string, body?: unknown) =>
  send(path, body === undefined ? { method: 'POST' } : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

function query(params: Record<string, string | null | undefined>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value) search.set(name, value);
  const text = search.toString();
  return text ? `?${text}` : '';
}

export const operatorApi = {
  /** The sign-in message for an operator wallet (the same shape as the claim's). */
  async sessionInit(publicKey: string): Promise<InitResult> {
    return json(await send(`/sessions/init${query({ publicKey })}`));
  },

  /** Opens a session: the service sets the HttpOnly cookie; the token in the body is not kept. */
  async signIn(signed: SignedIn): Promise<{ expiresAt: string }> {
    const { expiresAt } = await json<{ expiresAt: string }>(await post('/sessions', signed));
    return { expiresAt };
  },

  /** The session this browser holds, or null when it holds none (401). */
  async session(): Promise<Session | null> {
    try {
      return await json<Session>(await send('/sessions/current'));
    } catch (error) {
      if (error instanceof ClaimApiError && error.status === 401) return null;
      throw error;
    }
  },

  async signOut(): Promise<void> {
    await send('/sessions/current', { method: 'DELETE' });
  },

  async passes(q: PassQuery): Promise<PassPage> {
    const page = await json<{ passes: OperatorPass[]; nextCursor?: string | null }>(
      await send(`/passes${query({ publicKey: q.publicKey, serial: q.serial, status: q.status, cursor: q.cursor })}`),
    );
    return { passes: page.passes, nextCursor: page.nextCursor ?? null };
  },

  async voidPass(serialNumber: string, reason: string): Promise<OperatorPass> {
    return json(await post(`/passes/${encodeURIComponent(serialNumber)}/void`, { reason }));
  },

  async restorePass(serialNumber: string): Promise<OperatorPass> {
    return json(await post(`/passes/${encodeURIComponent(serialNumber)}/restore`, {}));
  },

  async stats(): Promise<OperatorStats> {
    return json(await send('/stats'));
  },

  async apiKeys(): Promise<ApiKey[]> {
    const body = await json<{ apiKeys?: ApiKey[]; keys?: ApiKey[] }>(await send('/api-keys'));
    return body.apiKeys ?? body.keys ?? [];
  },

  async createApiKey(name: string): Promise<CreatedApiKey> {
    const body = await json<{ id?: string; key: string }>(await post('/api-keys', name ? { name } : {}));
    return { id: body.id ?? null, key: body.key };
  },

  async revokeApiKey(id: string): Promise<void> {
    await send(`/api-keys/${encodeURIComponent(id)}`, { method: 'DELETE' });
  },

  async deliveries(cursor?: string | null): Promise<DeliveryPage> {
    const page = await json<{ deliveries: WebhookDelivery[]; nextCursor?: string | null }>(await send(`/webhooks/deliveries${query({ cursor })}`));
    return { deliveries: page.deliveries, nextCursor: page.nextCursor ?? null };
  },

  async retryDelivery(id: string): Promise<void> {
    await post(`/webhooks/deliveries/${encodeURIComponent(id)}/retry`);
  },
};

export type OperatorApi = typeof operatorApi;
