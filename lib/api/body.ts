// Reading a request body within limits, a JSON object or the raw bytes of a declared media type
// (an image upload): a declared or actual size over the limit stops reading at once (413), so a
// large or endless body costs no more memory than the limit.
import { AppError, isAppError } from '../errors';

export const MAX_BODY_BYTES = 16 * 1024;

/** A body an entry takes as bytes rather than JSON (./endpoint.ts `rawBody`). */
export type RawBodySpec = {
  /** The media types it takes; any other is 415. */
  types: readonly [string, ...string[]];
  /** Past this many bytes: 413. */
  maxBytes: number;
  /** What the body is, for the API reference (Markdown). */
  description: string;
};

/** A raw body as the handler gets it: its media type (one of the spec's) and its bytes. */
export type RawBody = { type: string; bytes: Uint8Array };

/** Reads the body of `request` as a JSON object: 415 unless application/json, 413 past the limit, 400 unless an object. */
export async function readJsonObject(request: Request, limit = MAX_BODY_BYTES): Promise<Record<string, unknown>> {
  if (mediaTypeOf(request) !== 'application/json') {
    throw new AppError('unsupported_media_type', 'Send the body as JSON with Content-Type: application/json.');
  }
  refuseDeclaredOver(request, limit);
  const bytes = await readLimited(request, limit);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new AppError('invalid_request', 'The body is not valid UTF-8.');
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new AppError('invalid_request', 'The body is not valid JSON.');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new AppError('invalid_request', 'The body must be a JSON object.');
  }
  return value as Record<string, unknown>;
}

/** Reads the body of `request` as bytes of one of `spec.types`: 415 for another type, 413 past `spec.maxBytes`. */
export async function readRawBody(request: Request, spec: RawBodySpec): Promise<RawBody> {
  const type = mediaTypeOf(request);
  if (!spec.types.includes(type)) {
    throw new AppError('unsupported_media_type', `Send the body with Content-Type: ${spec.types.join(' or ')}.`);
  }
  refuseDeclaredOver(request, spec.maxBytes);
  return { type, bytes: await readLimited(request, spec.maxBytes) };
}

/** The Content-Type's media type, lower case, without parameters. */
function mediaTypeOf(request: Request): string {
  const [essence = ''] = (request.headers.get('content-type') ?? '').split(';');
  return essence.trim().toLowerCase();
}

/** A Content-Length over the limit is refused before a byte is read. */
function refuseDeclaredOver(request: Request, limit: number): void {
  const declared = Number(request.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > limit) throw tooLarge(limit);
}

async function readLimited(request: Request, limit: number): Promise<Uint8Array> {
  if (!request.body) return new Uint8Array();
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > limit) {
        await reader.cancel().catch(() => {});
        throw tooLarge(limit);
      }
      chunks.push(value);
    }
  } catch (error) {
    if (isAppError(error)) throw error;
    throw new AppError('invalid_request', 'The body could not be read.');
  }
  return Buffer.concat(chunks);
}

const tooLarge = (limit: number) => new AppError('payload_too_large', `The body must be at most ${limit} bytes.`);
