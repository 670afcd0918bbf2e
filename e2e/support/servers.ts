// The servers the end-to-end tests run against, each a real `tsx server.ts` on its own port and
// DATA_DIR. Ports start at E2E_PORT_BASE (default 3400) so parallel checkouts can move them.
import { TEST_ISSUER_ID } from '../../test/support/google';

const base = Number(process.env.E2E_PORT_BASE ?? 3400);

export const SERVERS = {
  /** Defaults, rate limiting off: the claims. */
  main: { port: base, env: {} },
  /** Two claim-path requests per minute: the 429 state. */
  limited: { port: base + 1, env: { RATE_LIMIT_PER_MINUTE: '2' } },
  /** Messages expire 20 seconds after they are issued: the expired-message state (long enough for the
   * renewed message to be signed and claimed on a busy machine, where each state's screenshot and
   * axe check take seconds). */
  expiring: { port: base + 2, env: { NONCE_TTL_SECONDS: '20' } },
  /** A Google Wallet issuer (with a service-account key serve.ts makes up): the Save to Google Wallet link. */
  google: { port: base + 4, env: { GOOGLE_WALLET_ISSUER_ID: TEST_ISSUER_ID } },
} as const;

/** Started and stopped by the server-down test itself. */
export const STOPPABLE_PORT = base + 3;

export const urlOf = (port: number) => `http://127.0.0.1:${port}`;
