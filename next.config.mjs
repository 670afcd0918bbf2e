const DOCS_CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self' 'unsafe-inline' blob:",
  "worker-src 'self' blob:",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** The device features a page may use: none, but the camera on the door page (`camera`: `()` or `(self)`). */
const permissionsPolicy = (camera) => `camera=${camera}, microphone=(), geolocation=(), payment=(), usb=(), serial=(), hid=()`;

/** @type {import('next').NextConfig} */
const nextConfig = {
  poweredByHeader: false,
  experimental: {
    // What Next.js buffers of a request body for proxy.ts (default 10 MB); a body past it reaches
    // the route handler cut short. Pages take no body (proxy.ts answers 405 to anything but
    // GET/HEAD); the API's JSON bodies are 16 KiB at most, and an image upload 2 MiB
    // (lib/programs/images.ts MAX_IMAGE_BYTES): one byte more, so the frame still sees a larger
    // upload as too large (413) rather than as a truncated image.
    proxyClientMaxBodySize: 2 * 1024 * 1024 + 1,
  },
  reactStrictMode: true,
  // Loaded by Node at run time rather than bundled: they read files next to their own code
  // (PGlite's WebAssembly, drizzle's migrator) or are large server-only libraries.
  serverExternalPackages: [
    '@electric-sql/pglite',
    'drizzle-orm',
    'pg',
    'ioredis',
    'rate-limiter-flexible',
    'passkit-generator',
    'node-forge',
    'pkijs',
    'asn1js',
    'jose',
    'pino',
    '@solana/offchain-messages',
  ],
  async headers() {
    return [
      {
        // Every page, whatever the request says (no exception a client could ask for). The nonce
        // CSP comes from proxy.ts, the only header that must differ per response.
        source: '/:path*',
        headers: [
          { key: 'X-Content-Type-Options', value: 'nosniff' },
          { key: 'Referrer-Policy', value: 'no-referrer' },
          // Clickjacking, for browsers that predate the CSP's frame-ancestors.
          { key: 'X-Frame-Options', value: 'DENY' },
          // The pages need no device features; an injected script gets none either (the door
          // page's camera: below).
          { key: 'Permissions-Policy', value: permissionsPolicy('()') },
          // Another site that opens a page cannot script it through window.opener.
          { key: 'Cross-Origin-Opener-Policy', value: 'same-origin-allow-popups' },
        ],
      },
      {
        // The door page scans passes with the camera: this origin may use it there, no frame of
        // another origin may, and every other device feature stays off. Listed after the rule for
        // every page, so its header replaces that one's (Next.js: the last rule setting a key wins).
        source: '/scan',
        headers: [{ key: 'Permissions-Policy', value: permissionsPolicy('(self)') }],
      },
      {
        // The API reference loads nothing from elsewhere, and the browser holds it to that: Redoc
        // 2.5 always puts its logo from cdn.redoc.ly in the menu footer; this blocks the fetch
        // (Redoc then drops the image). Inline scripts are Next's page data; blob: is Redoc's
        // search worker; inline styles are styled-components'.
        source: '/docs',
        headers: [{ key: 'Content-Security-Policy', value: DOCS_CONTENT_SECURITY_POLICY }],
      },
    ];
  },
};

export default nextConfig;
