import { randomUUID } from 'node:crypto';
import { renderVerifyPage, type VerifyOutcome } from '@/components/verify/verify-page';
import { verifyPass } from '@/lib/claims';
import { isAppError } from '@/lib/errors';
import { preflight } from '@/lib/http/cors';
import { REQUEST_ID_HEADER } from '@/lib/http/route';
import { getServices } from '@/lib/services';

export const dynamic = 'force-dynamic';

/**
 * The scanner check page, where a pass's QR code leads: 200 "Genuine pass", 404 "Not issued
 * here" for an unknown, malformed or missing serial, 503 when the database does not answer.
 * (A route handler, not a page: see components/verify/verify-page.ts.)
 */
export async function GET(request: Request): Promise<Response> {
  const outcome = await check(request);
  const page = renderVerifyPage(outcome);
  return new Response(page.html, {
    status: page.status,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      'content-security-policy': page.contentSecurityPolicy,
      'x-robots-tag': 'noindex',
    },
  });
}

async function check(request: Request): Promise<VerifyOutcome> {
  const services = await getServices();
  try {
    return { kind: 'genuine', check: await verifyPass(services, new URL(request.url).searchParams.get('serial')) };
  } catch (error) {
    if (isAppError(error) && (error.code === 'pass_not_found' || error.code === 'invalid_request')) return { kind: 'not_issued' };
    if (isAppError(error) && error.code === 'service_unavailable') return { kind: 'unavailable', status: 503 };
    services.log.error({ err: error, requestId: request.headers.get(REQUEST_ID_HEADER) ?? randomUUID() }, 'verify page failed');
    return { kind: 'unavailable', status: 500 };
  }
}

/** Like every path, it answers CORS preflights (the API reference promises them); the page is public. */
export const OPTIONS = () => preflight('GET');
