import { getPassFile } from '@/lib/claims';
import { preflight } from '@/lib/http/cors';
import { apiRoute } from '@/lib/http/route';

export const dynamic = 'force-dynamic';

/** The .pkpass of ?pass=. Its bytes never change, so If-None-Match with its ETag gets a 304. */
export const GET = apiRoute(async (request, { services }) => {
  const file = await getPassFile(services, new URL(request.url).searchParams.get('pass'));
  const headers = {
    etag: file.etag,
    // The URL is a bearer secret: private, so shared caches never keep a copy.
    'cache-control': 'private, max-age=0, must-revalidate',
  };
  if (ifNoneMatch(request.headers.get('if-none-match'), file.etag)) {
    return new Response(null, { status: 304, headers });
  }
  return new Response(new Uint8Array(file.pkpass), {
    status: 200,
    headers: {
      ...headers,
      'content-type': 'application/vnd.apple.pkpass',
      'content-disposition': `attachment; filename="${file.filename}"`,
      'content-length': String(file.pkpass.length),
    },
  });
});

function ifNoneMatch(header: string | null, etag: string): boolean {
  if (!header) return false;
  return header.trim() === '*' || header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}

export const OPTIONS = () => preflight('GET');
