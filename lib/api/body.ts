// Reading a JSON request body within limits: a declared or actual size over the limit stops
// reading at once (413), so a large or endless body costs no memory.
import { AppError, isAppError } from '../errors';

export const MAX_BODY_BYTES = 16 * 1024;

/** Reads the body of `request` as a JSON object: 415 unless application/json, 413 past the limit, 400 unless an object. */
export async function readJsonObject(request: Request, limit = MAX_BODY_BYTES): Promise<Record<string, unknown>> {
  const [essence = ''] = (request.headers.get('content-type') ?? '').split(';');
  const mediaType = essence.trim().toLowerCase();
  if (mediaType !== 'application/json') {
    throw new AppError('unsupported_media_type', 'Send the body as JSON with Content-Type: application/json.');
  }
  const declared = Number(request.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > limit) throw tooLarge(limit);

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
