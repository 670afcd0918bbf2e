// Check-in at the door, as the door page (/scan) calls it: the programs to choose from and
// `POST /api/v1/operator/check-ins`, with either credential the contract allows. An operator
// signed in with a wallet has the console's HttpOnly session cookie (same-origin fetch, as
// ./operator.ts); a door volunteer has a scan key, sent as `Authorization: Bearer` (a bearer
// token never rides along cross-site, so it needs no CSRF check). Failures reject with a
// ClaimApiError carrying the service's problem code. No server code: this runs in the browser
// (types come from the service's schemas, type-only).
import type { z } from 'zod';
import type { checkInSchema } from '../api/endpoints/check-ins.schemas';
import { ClaimApiError, problemFrom } from './index';

/** The answer to a check-in (the service's own schema, type-only); only `checked_in` admits. */
export type CheckIn = z.output<typeof checkInSchema>;
export type CheckInReason = CheckIn['reason'];

/** A program a door can check passes in for. */
export type DoorProgram = { slug: string; name: string };

/** The door's credential: the wallet sign-in's session cookie, or a scan key. */
export type DoorCredential = { kind: 'session' } | { kind: 'key'; key: string };

/** What a scan key looks like (lib/operators/auth.ts): anything else is refused before it is sent. */
export const API_KEY_SHAPE = /^wpck_[A-Za-z0-9_-]{43}$/;

/** What the door sends: the barcode's text as scanned, or a serial number typed by hand. */
export type CheckInInput = { code: string } | { serialNumber: string };

const BASE = '/api/v1/operator';
/** A door waits this long for an answer, then says the pass was not checked (the person tries again). */
const TIMEOUT_MS = 10_000;

export function doorApi(credential: DoorCredential) {
  async function send(path: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (credential.kind === 'key') headers.set('authorization', `Bearer ${credential.key}`);
    let response: Response;
    try {
      response = await fetch(`${BASE}${path}`, {
        ...init,
        headers,
        // A key stands alone: the cookie of a session in this browser is not sent beside it.
        credentials: credential.kind === 'key' ? 'omit' : 'same-origin',
        cache: 'no-store',
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch {
      throw new ClaimApiError('network_error', 0, 'Could not reach the service.');
    }
    if (!response.ok) throw await problemFrom(response);
    return response;
  }

  async function json<T>(response: Response): Promise<T> {
    try {
      return (await response.json()) as T;
    } catch {
      throw new ClaimApiError('unexpected_response', response.status, `The answer (HTTP ${response.status}) is not JSON.`);
    }
  }

  return {
    /** The programs, `default` first: their slugs and names. */
    async programs(): Promise<DoorProgram[]> {
      const { programs } = await json<{ programs: DoorProgram[] }>(await send('/programs'));
      return programs.map(({ slug, name }) => ({ slug, name }));
    },

    /** Checks a pass in at this door; `program` is the door's (a pass of another is `wrong_program`). */
    async checkIn(input: CheckInInput, program?: string): Promise<CheckIn> {
      const body = JSON.stringify(program ? { ...input, program } : input);
      return json(await send('/check-ins', { method: 'POST', headers: { 'content-type': 'application/json' }, body }));
    },
  };
}

export type DoorApi = ReturnType<typeof doorApi>;
