// The servers every spec may use, started once per run by global-setup.ts: each a real `server.ts`
// on its own port and DATA_DIR. Ports start at E2E_PORT_BASE (default 3400) so parallel checkouts
// can move them. A test that needs a configuration of its own (a rate limit, a clock it moves, a
// server it stops) starts its own server on a free port (the `startServer` fixture).
import { TEST_ISSUER_ID } from '../../test/support/google';

const base = Number(process.env.E2E_PORT_BASE ?? 3400);

export const SERVERS = {
  /** Defaults, rate limiting off: the claims. */
  main: { port: base, env: {} },
  /** A Google Wallet issuer (with a service-account key global-setup.ts makes up): the Save to Google Wallet link. */
  google: { port: base + 1, env: { GOOGLE_WALLET_ISSUER_ID: TEST_ISSUER_ID } },
} as const;

export const urlOf = (port: number) => `http://127.0.0.1:${port}`;
