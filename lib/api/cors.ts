// Headers of every API answer, and the answer to a CORS preflight. The API allows any origin,
// without credentials: only the operator endpoints read a cookie (the console's session), and
// those refuse an unsafe request carrying it from another origin (lib/operators/auth.ts), so a
// third-party page can do nothing with the API that a script elsewhere could not.
import { FastResponse } from 'srvx/node';

export const API_HEADERS: Readonly<Record<string, string>> = {
  'access-control-allow-origin': '*',
  'access-control-expose-headers': 'Retry-After, ETag, Last-Modified, Content-Disposition, X-Request-Id',
  // A JSON answer is never sniffed into HTML, and a link in a pass file leaks no URL.
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

/**
 * The answer to an OPTIONS preflight for a path answering `methods`. X-API-KEY: clients generated
 * from the OpenAPI document of the service this one replaces send it when given a key, and a
 * browser blocks them unless the preflight allows it.
 */
export function preflight(methods: readonly string[]): Response {
  return new FastResponse(null, {
    status: 204,
    headers: {
      ...API_HEADERS,
      'access-control-allow-methods': [...methods, 'OPTIONS'].join(', '),
      'access-control-allow-headers': 'Content-Type, Authorization, If-None-Match, If-Modified-Since, X-API-KEY',
      'access-control-max-age': '86400',
    },
  });
}
