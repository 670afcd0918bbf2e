// A small typed client of the HTTP API, for browsers and Node (it needs only fetch). The claim
// page and the command-line claim both use it. Every call resolves to a typed result or rejects
// with a ClaimApiError carrying the service's problem code (or a network/unavailable code).
import type { ErrorCode } from '../errors';
import type { WalletType } from '../wallet-types';

export type InitResult = {
  domain: string;
  nonce: string;
  issuedAt: string;
  expirationTime: string;
  message: string;
  address: string;
  statement: string;
  uri: string;
  version: '1';
  chainId: string;
};

export type ClaimRequest = {
  message: string;
  /** base58 of the 64-byte signature */
  signature: string;
  /** base58 of the 32-byte public key */
  publicKey: string;
  walletType?: WalletType;
};

export type ClaimResult = {
  downloadUrl: string;
  /** true for 201 (a new pass), false for 200 (the wallet already had one). */
  created: boolean;
};

export type DownloadResult = { bytes: Uint8Array; filename: string; etag: string | null };

/** A problem+json body as the service sends it. */
export type ProblemBody = {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: ErrorCode;
  fields?: { field: string; message: string }[];
  requestId?: string;
};

/** `network_error`: no answer at all (offline, DNS, refused). `unexpected_response`: not this API. */
export type ClientErrorCode = ErrorCode | 'network_error' | 'unexpected_response';

export class ClaimApiError extends Error {
  constructor(
    readonly code: ClientErrorCode,
    readonly status: number,
    readonly detail: string,
    readonly problem?: ProblemBody,
    /** Seconds to wait before retrying, from Retry-After on a 429 or 503. */
    readonly retryAfterSeconds?: number,
  ) {
    super(`${code}: ${detail}`);
    this.name = 'ClaimApiError';
  }
}

export type ClientOptions = {
  /** The service origin, e.g. https://passes.example.com. Empty for same-origin (the claim page). */
  baseUrl?: string;
  fetch?: typeof fetch;
};

export function createClaimClient(options: ClientOptions = {}) {
  const baseUrl = (options.baseUrl ?? '').replace(/\/+$/, '');
  const doFetch = options.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => fetch(input, init));

  async function send(url: string, init?: RequestInit): Promise<Response> {
    let response: Response;
    try {
      response = await doFetch(url, init);
    } catch (error) {
      throw new ClaimApiError('network_error', 0, `Could not reach ${url}: ${(error as Error).message}`);
    }
    if (response.ok || response.status === 304) return response;
    throw await problemFrom(response);
  }

  return {
    /** GET /api/v1/claim/init: a single-use sign-in message for `publicKey`. */
    async init(publicKey: string): Promise<InitResult> {
      const response = await send(`${baseUrl}/api/v1/claim/init?publicKey=${encodeURIComponent(publicKey)}`);
      return (await readJson(response)) as InitResult;
    },

    /** POST /api/v1/claim/wallet-pass: the download URL of the wallet's pass. */
    async claim(request: ClaimRequest): Promise<ClaimResult> {
      const response = await send(`${baseUrl}/api/v1/claim/wallet-pass`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(request),
      });
      const body = (await readJson(response)) as { downloadUrl?: unknown };
      if (typeof body.downloadUrl !== 'string') {
        throw new ClaimApiError('unexpected_response', response.status, 'The answer has no downloadUrl.');
      }
      return { downloadUrl: body.downloadUrl, created: response.status === 201 };
    },

    /**
     * The "Save to Google Wallet" link of a pass, or null when the service offers none.
     * GET /api/v1/passes/google?pass=<id> answers 200 {saveUrl} when Google Wallet is configured
     * and 404 when it is not (or for a service that predates the endpoint); any other failure throws.
     */
    async googleSaveUrl(downloadUrl: string): Promise<string | null> {
      const passId = passIdOf(downloadUrl);
      if (!passId) throw new ClaimApiError('unexpected_response', 0, 'The download URL has no pass id.');
      const url = `${baseUrl}/api/v1/passes/google?pass=${encodeURIComponent(passId)}`;
      let response: Response;
      try {
        response = await send(url);
      } catch (error) {
        if (error instanceof ClaimApiError && error.status === 404) return null;
        throw error;
      }
      const body = (await readJson(response)) as { saveUrl?: unknown };
      // Only an https link becomes an href: anything else (javascript:, data:) would be script.
      if (typeof body.saveUrl !== 'string' || !body.saveUrl.startsWith('https://')) {
        throw new ClaimApiError('unexpected_response', response.status, 'The answer has no https saveUrl.');
      }
      return body.saveUrl;
    },

    /** GET the downloadUrl: the .pkpass bytes. */
    async download(downloadUrl: string): Promise<DownloadResult> {
      const response = await send(downloadUrl);
      const disposition = response.headers.get('content-disposition') ?? '';
      const filename = /filename="([^"]+)"/.exec(disposition)?.[1] ?? 'wallet-pass.pkpass';
      return { bytes: new Uint8Array(await response.arrayBuffer()), filename, etag: response.headers.get('etag') };
    },
  };
}

export type ClaimClient = ReturnType<typeof createClaimClient>;

/** The `pass` query parameter of a downloadUrl. */
function passIdOf(downloadUrl: string): string | null {
  try {
    return new URL(downloadUrl, 'http://relative.invalid').searchParams.get('pass');
  } catch {
    return null;
  }
}

async function readJson(response: Response): Promise<unknown> {
  try {
    return await response.json();
  } catch {
    throw new ClaimApiError('unexpected_response', response.status, 'The answer is not JSON.');
  }
}

async function problemFrom(response: Response): Promise<ClaimApiError> {
  const retryAfter = Number(response.headers.get('retry-after'));
  const retryAfterSeconds = Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : undefined;
  let body: unknown;
  try {
    body = await response.json();
  } catch {
    body = undefined;
  }
  const problem = body as Partial<ProblemBody> | undefined;
  if (problem && typeof problem.code === 'string' && typeof problem.detail === 'string') {
    return new ClaimApiError(problem.code as ErrorCode, response.status, problem.detail, problem as ProblemBody, retryAfterSeconds);
  }
  // Something in front of the service (a proxy, a load balancer) answered instead.
  const code: ClientErrorCode =
    response.status === 503 || response.status === 502 || response.status === 504 ? 'service_unavailable' : 'unexpected_response';
  return new ClaimApiError(code, response.status, `HTTP ${response.status}`, undefined, retryAfterSeconds);
}
