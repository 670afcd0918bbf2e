// Cross-origin access: the API, /health and /download allow any origin. No cookies or other
// credentials are used, so a wildcard origin exposes nothing a third-party page could not fetch.
const CORS_HEADERS: Record<string, string> = {
  'access-control-allow-origin': '*',
  'access-control-expose-headers': 'Retry-After, ETag, Content-Disposition, X-Request-Id',
};

export function withCors(response: Response): Response {
  for (const [name, value] of Object.entries(CORS_HEADERS)) response.headers.set(name, value);
  return response;
}

/** The answer to an OPTIONS preflight. */
export function preflight(methods: string): Response {
  return withCors(
    new Response(null, {
      status: 204,
      headers: {
        'access-control-allow-methods': `${methods}, OPTIONS`,
        'access-control-allow-headers': 'Content-Type, If-None-Match',
        'access-control-max-age': '86400',
      },
    }),
  );
}
