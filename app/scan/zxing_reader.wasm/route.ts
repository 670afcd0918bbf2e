// /scan/zxing_reader.wasm: the door page's WebAssembly barcode reader (zxing-wasm), from this
// origin. zxing-wasm fetches it from a public CDN unless told otherwise: that request would break
// the page's CSP (connect-src 'self') and a door without internet, and it would run code this
// service did not ship. The file is the installed package's own, read once. The page asks for it
// with ?v=<the first 16 hex digits of its SHA-256> (components/scan/barcode-reader.ts, from the
// package's ZXING_WASM_SHA256): that URL names these bytes alone, so it may be cached for good;
// any other is revalidated.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { NextRequest } from 'next/server';

export const dynamic = 'force-dynamic';

const FILE = path.join(process.cwd(), 'node_modules', 'zxing-wasm', 'dist', 'reader', 'zxing_reader.wasm');

let loaded: Promise<{ bytes: Buffer; version: string }> | undefined;

function load() {
  loaded ??= readFile(FILE).then(
    (bytes) => ({ bytes, version: createHash('sha256').update(bytes).digest('hex').slice(0, 16) }),
    (error: unknown) => {
      loaded = undefined; // not cached: the next request tries again
      throw error;
    },
  );
  return loaded;
}

export async function GET(request: NextRequest): Promise<Response> {
  const { bytes, version } = await load();
  const etag = `"${version}"`;
  const cacheControl = request.nextUrl.searchParams.get('v') === version ? 'public, max-age=31536000, immutable' : 'no-cache';
  const headers = { 'Content-Type': 'application/wasm', 'Cache-Control': cacheControl, ETag: etag };
  if (request.headers.get('if-none-match') === etag) return new Response(null, { status: 304, headers });
  return new Response(new Uint8Array(bytes), { headers });
}
