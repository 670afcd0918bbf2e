// The paths the API owns, apart from the pages. Small on purpose: proxy.ts runs before every page
// and loads this alone, not the endpoint table with everything the handlers reach. The table
// cannot declare an entry outside these paths (./endpoint.ts), so the two cannot drift.

/** Every path under these belongs to the API: an unknown one is the API's 404, never a page. */
const API_PREFIXES = ['/api/', '/passkit/'] as const;

/** Single paths of the API outside those prefixes, beside the pages at /, /operator and /docs. */
const API_ROOT_PATHS: ReadonlySet<string> = new Set(['/download', '/verify', '/health']);

/** Whether `pathname` is the API's: the custom server and the proxy send it to the API, all else to the pages. */
export function isApiPath(pathname: string): boolean {
  return API_ROOT_PATHS.has(pathname) || API_PREFIXES.some((prefix) => pathname.startsWith(prefix));
}
