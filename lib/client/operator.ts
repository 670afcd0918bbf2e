// The operator API as the console page calls it: same-origin fetch with the session cookie the
// sign-in sets (HttpOnly: this code never sees the token). The service's CSRF check wants a POST
// or DELETE with the cookie to come from its own origin (the Origin header, which the browser
// writes and a page cannot forge; docs/operators.md), so there is no token to send. Failures reject with a ClaimApiError carrying the
// service's problem code, like the claim client. No server code: this runs in the browser.
// Types come from the service's own schemas, type-only: no zod and no server code in the bundle.
import type { z } from 'zod';
import type {
  apiKeyCreatedSchema,
  apiKeySchema,
  deliveryPageSchema,
  deliverySchema,
  operatorPassSchema,
  passPageSchema,
  sessionBodySchema,
  statsSchema,
} from '../api/endpoints/operator.schemas';
import type { programSchema } from '../api/endpoints/programs.schemas';
import type { messageSentSchema, updateSchema } from '../api/endpoints/updates.schemas';
import type { programCreateSchema, programPatchSchema } from '../programs/schema';
import { ClaimApiError, type InitResult, problemFrom } from './index';

export type OperatorPass = z.output<typeof operatorPassSchema>;
export type PassStatus = OperatorPass['status'];
export type PassPage = z.output<typeof passPageSchema>;
export type PassQuery = { publicKey?: string; serial?: string; status?: PassStatus | ''; program?: string; cursor?: string | null; limit?: number };
export type OperatorStats = z.output<typeof statsSchema>;
export type Session = { publicKey: string; expiresAt: string };
export type ApiKey = z.output<typeof apiKeySchema>;
export type CreatedApiKey = z.output<typeof apiKeyCreatedSchema>;
export type WebhookDelivery = z.output<typeof deliverySchema>;
export type DeliveryPage = z.output<typeof deliveryPageSchema>;
export type SignedIn = z.input<typeof sessionBodySchema>;
export type Program = z.output<typeof programSchema>;
export type ProgramInput = z.input<typeof programCreateSchema>;
export type ProgramChange = z.input<typeof programPatchSchema>;
export type MessageSent = z.output<typeof messageSentSchema>;
export type ProgramUpdate = z.output<typeof updateSchema>;
/** The images a program may have (lib/db/program-images.ts IMAGE_KINDS), in the order the console lists them. */
export const PROGRAM_IMAGE_KINDS = ['logo', 'icon', 'strip', 'thumbnail', 'background'] as const;
export type ProgramImageKind = (typeof PROGRAM_IMAGE_KINDS)[number];

const BASE = '/api/v1/operator';

const TIMEOUT_MS = 30_000;

async function send(path: string, init: RequestInit = {}): Promise<Response> {
  let response: Response;
  try {
    response = await fetch(`${BASE}${path}`, {
      ...init,
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
      const current = await json<{ publicKey: string; expiresAt: string | null }>(await send('/sessions/current'));
      return { publicKey: current.publicKey, expiresAt: current.expiresAt ?? '' };
    } catch (error) {
      if (error instanceof ClaimApiError && error.status === 401) return null;
      throw error;
    }
  },

  async signOut(): Promise<void> {
    await send('/sessions/current', { method: 'DELETE' });
  },

  async passes(q: PassQuery): Promise<PassPage> {
    return json(
      await send(
        `/passes${query({ publicKey: q.publicKey, serial: q.serial, status: q.status, program: q.program, cursor: q.cursor, limit: q.limit ? String(q.limit) : null })}`,
      ),
    );
  },

  async voidPass(serialNumber: string, reason: string): Promise<OperatorPass> {
    return json(await post(`/passes/${encodeURIComponent(serialNumber)}/void`, { reason }));
  },

  async restorePass(serialNumber: string): Promise<OperatorPass> {
    return json(await post(`/passes/${encodeURIComponent(serialNumber)}/restore`));
  },

  /** Of every program, or of one (its slug). */
  async stats(program?: string): Promise<OperatorStats> {
    return json(await send(`/stats${query({ program })}`));
  },

  /** Every program, `default` first, with its counts. */
  async programs(): Promise<Program[]> {
    return (await json<{ programs: Program[] }>(await send('/programs'))).programs;
  },

  async program(slug: string): Promise<Program> {
    return json(await send(`/programs/${encodeURIComponent(slug)}`));
  },

  async createProgram(program: ProgramInput): Promise<Program> {
    return json(await post('/programs', program));
  },

  /** Any fields but the slug; `design` replaces the whole design. */
  async updateProgram(slug: string, change: ProgramChange): Promise<Program> {
    return json(
      await send(`/programs/${encodeURIComponent(slug)}`, { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: JSON.stringify(change) }),
    );
  },

  /** Where the console shows a program's image as the service made it (its @2x file). */
  imageUrl(slug: string, kind: ProgramImageKind): string {
    return `${BASE}/programs/${encodeURIComponent(slug)}/images/${kind}`;
  },

  /** The file's bytes as they are, with its own Content-Type: the service decodes and re-encodes them. */
  async putImage(slug: string, kind: ProgramImageKind, file: Blob): Promise<void> {
    await send(`/programs/${encodeURIComponent(slug)}/images/${kind}`, {
      method: 'PUT',
      headers: { 'content-type': file.type || 'application/octet-stream' },
      body: file,
    });
  },

  async deleteImage(slug: string, kind: ProgramImageKind): Promise<void> {
    await send(`/programs/${encodeURIComponent(slug)}/images/${kind}`, { method: 'DELETE' });
  },

  /** A message to every holder of a live program: the update that carries it to every device. */
  async sendMessage(slug: string, text: string): Promise<MessageSent> {
    return json(await post(`/programs/${encodeURIComponent(slug)}/messages`, { text }));
  },

  /** An update (a program change or a message) and how far it has got. */
  async update(id: string): Promise<ProgramUpdate> {
    return json(await send(`/updates/${encodeURIComponent(id)}`));
  },

  /** The keys not revoked, newest first. */
  async apiKeys(): Promise<ApiKey[]> {
    return (await json<{ apiKeys: ApiKey[] }>(await send('/api-keys'))).apiKeys;
  },

  /** A new key: `key` is in this answer only. `scan`: a key for the door, that may only check passes in. */
  async createApiKey(name: string, scope: ApiKey['scope'] = 'operator'): Promise<CreatedApiKey> {
    const body = { ...(name ? { name } : {}), ...(scope === 'scan' ? { scope } : {}) };
    return json(await post('/api-keys', Object.keys(body).length > 0 ? body : undefined));
  },

  async revokeApiKey(id: string): Promise<void> {
    await send(`/api-keys/${encodeURIComponent(id)}`, { method: 'DELETE' });
  },

  async deliveries(cursor?: string | null): Promise<DeliveryPage> {
    return json(await send(`/webhooks/deliveries${query({ cursor })}`));
  },

  /** Makes the delivery due now (docs/operators.md). */
  async retryDelivery(id: string): Promise<WebhookDelivery> {
    return json(await post(`/webhooks/deliveries/${encodeURIComponent(id)}/retry`));
  },
};

export type OperatorApi = typeof operatorApi;
