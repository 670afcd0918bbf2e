// npm run bench:google [-- --seconds 60]
//
// The Google Wallet API client's pace: the service's own client (lib/passes/google-api.ts) at
// GOOGLE_WALLET_RPS (default 15, from the environment through lib/config.ts) against the Google
// stand-in over real sockets, with far more work queued than the rate allows (50 callers, each
// patching objects and adding messages back to back), for 60 s. The stand-in answers 429 past
// Google's own limit of 20 calls a second, as Google would. Prints the calls/s the stand-in got,
// its deviation from GOOGLE_WALLET_RPS, the busiest one-second window, and the 429s. Figures to
// read, never asserted; the tests hold the bounds (lib/passes/google-api.test.ts).
import { parseArgs } from 'node:util';
import { loadConfig } from '../lib/config';
import type { PassContent } from '../lib/passes/content';
import { GoogleWalletApi } from '../lib/passes/google-api';
import { createGoogleWallet } from '../lib/passes/google-wallet';
import { TEST_ISSUER_ID } from '../test/support/google';
import { GoogleWalletApiStandIn } from '../test/support/stand-ins/google-wallet-api';

const GOOGLE_LIMIT_RPS = 20;
const CALLERS = 50;

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { seconds: { type: 'string', default: '60' } } });
  const seconds = Number(values.seconds);
  const google = await GoogleWalletApiStandIn.start({ issuerId: TEST_ISSUER_ID });
  google.limitRate(GOOGLE_LIMIT_RPS, 1);
  const config = loadConfig({
    ...process.env,
    PUBLIC_BASE_URL: 'https://passes.example.com',
    GOOGLE_WALLET_ISSUER_ID: TEST_ISSUER_ID,
    GOOGLE_SERVICE_ACCOUNT: google.serviceAccount.json,
    GOOGLE_WALLET_API_URL: google.baseUrl,
  });
  const wallet = (await createGoogleWallet(config))!;
  const api = new GoogleWalletApi(wallet, { tokenUri: google.tokenUrl, apiUrl: google.baseUrl, rps: config.googleWalletRps });
  const rps = config.googleWalletRps;
  const pass = (i: number): PassContent => ({
    serialNumber: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
    publicKey: '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin',
    walletType: 'Phantom',
    claimedAt: new Date('2026-11-20T10:00:00Z'),
  });
  console.log(`GOOGLE_WALLET_RPS=${rps}, ${CALLERS} callers, ${seconds} s, the stand-in refusing past ${GOOGLE_LIMIT_RPS}/s`);
  // The objects exist first (not measured): then every call is one PATCH or one addMessage.
  await api.upsertObject(pass(0));
  const start = google.requests.length;
  const startedAt = performance.now();
  const deadline = startedAt + seconds * 1000;
  let done = 0;
  let failed = 0;
  await Promise.all(
    Array.from({ length: CALLERS }, async (_, caller) => {
      for (let i = caller; performance.now() < deadline; i += CALLERS) {
        try {
          if (i % 4 === 3) await api.addMessage(pass(0), { id: `m${i}`, header: 'Bench', body: `message ${i}`, messageType: 'TEXT' });
          else await api.upsertObject({ ...pass(0), voided: i % 2 === 0 });
          done++;
        } catch {
          failed++;
        }
      }
    }),
  );
  const calls = google.requests.slice(start).filter((r) => r.path.startsWith('/walletobjects/'));
  // The measured window: from the first call to the last one sent before the deadline.
  const times = calls.map((r) => r.at.getTime());
  const first = times[0]!;
  const inWindow = times.filter((t) => t - first <= seconds * 1000);
  const spanS = (inWindow.at(-1)! - first) / 1000;
  const rate = (inWindow.length - 1) / spanS;
  let busiest = 0;
  for (let i = 0, j = 0; i < inWindow.length; i++) {
    while (inWindow[j]! < inWindow[i]! - 999) j++;
    busiest = Math.max(busiest, i - j + 1);
  }
  const refused = calls.filter((r) => r.status === 429).length;
  console.log(`calls: ${inWindow.length} in ${spanS.toFixed(1)} s = ${rate.toFixed(2)} calls/s`);
  console.log(`deviation from GOOGLE_WALLET_RPS=${rps}: ${(((rate - rps) / rps) * 100).toFixed(2)} %`);
  console.log(`busiest one-second window: ${busiest} calls; 429 answers: ${refused}; operations done ${done}, failed ${failed}`);
  await google.close();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
