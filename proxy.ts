// Runs before every page render: a fresh CSP nonce per response (Next.js reads it from the request's
// Content-Security-Policy header and puts it on its own scripts), plus the page security headers.
import { NextResponse, type NextRequest } from 'next/server';
import { isDevelopmentBuild } from '@/lib/config';
import { newNonce, PAGE_HEADERS, pageContentSecurityPolicy } from '@/lib/page-security';

export function proxy(request: NextRequest) {
  const nonce = newNonce();
  const csp = pageContentSecurityPolicy(nonce, { dev: isDevelopmentBuild() });
  const requestHeaders = new Headers(request.headers);
  requestHeaders.set('content-security-policy', csp);
  const response = NextResponse.next({ request: { headers: requestHeaders } });
  response.headers.set('Content-Security-Policy', csp);
  for (const [name, value] of Object.entries(PAGE_HEADERS)) response.headers.set(name, value);
  return response;
}

export const config = {
  // Pages only: the API, /health and /download answer JSON or files with their own CORS headers,
  // and static assets need no policy. /docs (Redoc: inline styles, a blob: worker; see
  // next.config.mjs) and /verify (a route handler with a script-free page) set their own policies.
  matcher: [
    {
      source: '/((?!api/|_next/static/|_next/image|health$|download$|docs$|verify$|favicon\\.ico$).*)',
      missing: [
        { type: 'header', key: 'next-router-prefetch' },
        { type: 'header', key: 'purpose', value: 'prefetch' },
      ],
    },
  ],
};
