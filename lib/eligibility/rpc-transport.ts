// The HTTP transport of the eligibility checks' Solana RPC client (@solana/kit's RPC over it, in
// place of kit's own transport, which reads the whole answer with response.text() whatever its
// size). The answer is read as a stream and counted: past SOLANA_RPC_MAX_BYTES (after
// decompression, so a small compressed answer cannot unpack into a large one) the read stops and
// the request fails; the check's deadline aborts the read however slowly the bytes arrive. An
// answer is held in memory at most once, and parsed only once it is whole and within the bound.
import { type RpcTransport, SOLANA_ERROR__RPC__TRANSPORT_HTTP_ERROR, SolanaError } from '@solana/kit';

/** The answer was larger than the transport's bound: asking again would give the same answer. */
export class RpcAnswerTooLarge extends Error {
  constructor(readonly maxBytes: number) {
    super(`the answer is larger than ${maxBytes} bytes (SOLANA_RPC_MAX_BYTES)`);
    this.name = 'RpcAnswerTooLarge';
  }
}

export function createBoundedRpcTransport(options: { url: string; maxBytes: number }): RpcTransport {
  const { url, maxBytes } = options;
  return (async ({ payload, signal }) => {
    const response = await fetch(url, {
      method: 'POST',
      headers: { accept: 'application/json', 'content-type': 'application/json; charset=utf-8', 'accept-encoding': 'br,gzip,deflate' },
      body: JSON.stringify(payload),
      signal,
    });
    if (!response.ok) {
      await response.body?.cancel().catch(() => {});
      // The error kit's own transport throws: the reader retries it as an HTTP failure.
      throw new SolanaError(SOLANA_ERROR__RPC__TRANSPORT_HTTP_ERROR, { headers: response.headers, message: response.statusText, statusCode: response.status });
    }
    return JSON.parse(await readBounded(response, maxBytes, signal));
  }) as RpcTransport;
}

/** The body as text, read until its end, `maxBytes`, or `signal`, whichever comes first. */
async function readBounded(response: Response, maxBytes: number, signal: AbortSignal | undefined): Promise<string> {
  const declared = Number(response.headers.get('content-length'));
  if (response.headers.has('content-length') && declared > maxBytes && !response.headers.has('content-encoding')) {
    await response.body?.cancel().catch(() => {});
    throw new RpcAnswerTooLarge(maxBytes);
  }
  if (!response.body) return '';
  const reader = response.body.getReader();
  // fetch ends the body when its signal aborts; cancelling the reader as well makes sure a read in
  // progress settles at the deadline whatever the stream underneath does.
  const abort = () => void reader.cancel(signal?.reason).catch(() => {});
  signal?.addEventListener('abort', abort, { once: true });
  const chunks: Uint8Array[] = [];
  let received = 0;
  try {
    for (;;) {
      signal?.throwIfAborted();
      const { done, value } = await reader.read();
      signal?.throwIfAborted();
      if (done) break;
      received += value.byteLength;
      if (received > maxBytes) {
        await reader.cancel().catch(() => {});
        throw new RpcAnswerTooLarge(maxBytes);
      }
      chunks.push(value);
    }
  } finally {
    signal?.removeEventListener('abort', abort);
  }
  return Buffer.concat(chunks).toString('utf8');
}
