// Runs before every page render: a fresh CSP nonce per response (Next.js reads it from the request's
// Content-Security-Policy header and puts it on its own scripts). The static security headers are
// in next.config.mjs, so every page carries them even where the proxy does not run.
import { type NextRequest, NextResponse } from 'next/server';
import { isApiPath } from '@/lib/api/paths';
import { toProblem } from '@/lib/api/problem';
import { isDevelopmentBuild } from '@/lib/config';
import { AppError } from '@/lib/errors';
import { newNonce, pageContentSecurityPolicy, WASM_PAGES } from '@/lib/page-security';

export function proxy(request: NextRequest) {
  // Under `next start` the API's route handlers pass through here too; they set their own headers
  // (lib/api/cors.ts), and /verify its own policy. Under the custom server they never reach Next.
  if (isApiPath(request.nextUrl.pathname)) return NextResponse.next();
  // Pages answer GET and HEAD only (as under the custom server, server.ts): nothing else reaches
  // a page, whose renderer would read the body. Next.js buffers at most proxyClientMaxBodySize of
  // it for this function (next.config.mjs).
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    return NextResponse.json(toProblem(new AppError('method_not_allowed', 'Pages answer GET and HEAD only.')), {
      status: 405,
      headers: { allow: 'GET, HEAD', connection: 'close', 'content-type': 'application/problem+json' },
    });
  }
  const nonce = newNonce();
  const csp = pageContentSecurityPolicy(nonce, { dev: isDevelopmentBuild(), wasm: WASM_PAGES.has(request.nextUrl.pathname) });
  const requestHeaders = new Headers(request.headers);
  requestHeaders.set('content-security-policy', csp);
  const response = NextResponse.next({ request: { headers: requestHeaders } });
  response.headers.set('Content-Security-Policy', csp);
  return response;
}

export const config = {
  // Everything but static files and /docs (Redoc: inline styles and a blob: worker; its own policy
  // in next.config.mjs). No exception for prefetch requests: a header the client writes never
  // switches a defence off.
  matcher: ['/((?!_next/static/|_next/image|favicon\\.ico$|icon\\.svg$|docs$).*)'],
};
