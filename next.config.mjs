/** @type {import('next').NextConfig} */
const nextConfig = {
  poweredByHeader: false,
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
    'pino',
    '@solana/offchain-messages',
  ],
  async headers() {
    return [
      {
        source: '/:path*',
        headers: [
          { key: 'X-Content-Type-Options', value: 'nosniff' },
          { key: 'Referrer-Policy', value: 'no-referrer' },
        ],
      },
    ];
  },
};

export default nextConfig;
