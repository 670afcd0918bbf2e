// `npm run measure:pages`: what the pages cost a browser, measured in Chromium as it loads them:
// the JavaScript and CSS downloaded (bytes as sent, compressed, and decoded) and any request to
// another origin. `/` is loaded twice: with a Wallet Standard wallet installed (the wallet stack
// waits until the person reaches for a wallet) and with none (the stack loads at once, since only
// it can tell whether a legacy or mobile wallet is there). The operator console `/operator` the
// same way, and once more with the pointer on its sign-in button (the stack loaded on demand). A
// program's claim page /p/<slug> with a wallet, its program made through the operator API. The
// door page /scan, signed out, with a wallet.
// Exits 1 when a first load with a wallet is over the budget.
//   npx next build && npm run measure:pages              (starts the build on a free port)
//   npm run measure:pages -- --url http://localhost:3000 (measures a running service)
// Needs Chromium (CHROMIUM_PATH, default /usr/bin/chromium).
import { parseArgs } from 'node:util';
import type { Page } from 'playwright-core';
import { E2EWallet } from '../e2e/support/wallet';
import { TestWallet } from '../test/support/wallet';
import { launchChromium } from './support/chromium';
import { freePort, ServerProcess } from './support/server-process';

/** The budget: 250 kB of JavaScript as sent at first load (kB = 1000 bytes, the stricter reading). */
const BUDGET_BYTES = 250_000;

const { values } = parseArgs({ options: { url: { type: 'string' } } });

type Sizes = { files: number; sent: number; decoded: number };
type Measured = { byType: Record<string, Sizes>; sentElsewhere: string[]; refused: string[] };
type Case = {
  label: string;
  path: string;
  prepare?: (page: Page) => Promise<void>;
  /** Resolves once the page shows what it loads for: scripts loaded after hydration count too. */
  ready: (page: Page) => Promise<void>;
  /** A first load held to the budget. */
  budget?: boolean;
  /** Measured only on the server this script starts, where it can make the program. */
  needsProgram?: boolean;
};

/** The program whose claim page is measured: a store card with every kind of field. */
const PROGRAM_SLUG = 'page-weight';
const operator = new TestWallet();

/** Makes the measured program through the operator API, signed in as OPERATOR_WALLETS' wallet. */
async function createProgram(origin: string): Promise<void> {
  const init = (await (await fetch(`${origin}/api/v1/operator/sessions/init?publicKey=${operator.publicKey}`)).json()) as { message: string };
  const session = await fetch(`${origin}/api/v1/operator/sessions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ message: init.message, signature: operator.sign(init.message), publicKey: operator.publicKey }),
  });
  const { token } = (await session.json()) as { token: string };
  const field = (key: string, value = '{shortAddress}') => ({ key, label: key, value });
  const created = await fetch(`${origin}/api/v1/operator/programs`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      slug: PROGRAM_SLUG,
      name: 'Page weight',
      status: 'live',
      design: {
        style: 'storeCard',
        logoText: 'Page weight',
        fields: {
          header: [field('tier', 'Gold')],
          primary: [field('member')],
          secondary: [field('since', '{claimedAt}')],
          back: [field('address', '{address}')],
        },
      },
    }),
  });
  if (created.status !== 201) throw new Error(`creating the measured program answered ${created.status}`);
}

/** Registers a Wallet Standard wallet in the page, as an extension does. */
async function installWallet(page: Page): Promise<void> {
  // tsx compiles this file with esbuild's keepNames, which wraps functions in __name(); the
  // wallet's in-page function is serialised with those calls, so the page needs the helper.
  await page.addInitScript('window.__name = (fn) => fn');
  await new E2EWallet({ name: 'Phantom', signIn: true }).install(page as never);
}

const CASES: Case[] = [
  {
    label: '/ with a wallet installed',
    path: '/',
    prepare: installWallet,
    ready: (page) => page.getByRole('button', { name: /Phantom/ }).waitFor(),
    budget: true,
  },
  { label: '/ with no wallet', path: '/', ready: (page) => page.getByText('No Solana wallet found').waitFor() },
  // The operator console, signed out: its sign-in view. With a wallet the stack waits for the
  // operator to reach for it; pointing at the sign-in button loads it (the first load plus the stack).
  {
    label: '/operator with a wallet',
    path: '/operator',
    prepare: installWallet,
    ready: (page) => page.getByRole('button', { name: 'Sign in with Phantom' }).waitFor(),
    budget: true,
  },
  {
    label: '/operator, wallet stack',
    path: '/operator',
    prepare: installWallet,
    ready: (page) => page.getByRole('button', { name: 'Sign in with Phantom' }).hover(),
  },
  { label: '/operator with no wallet', path: '/operator', ready: (page) => page.getByText('No Solana wallet was found').waitFor() },
  // A program's claim page (made by main() through the operator API on the server it starts).
  {
    label: '/p/<slug> with a wallet',
    path: `/p/${PROGRAM_SLUG}`,
    prepare: installWallet,
    ready: (page) => page.getByRole('button', { name: /Phantom/ }).waitFor(),
    budget: true,
    needsProgram: true,
  },
  // The door page, signed out: the console's sign-in and the scan key form. Its barcode reader
  // (zxing-wasm, and its WebAssembly) loads only once a camera scans without a BarcodeDetector.
  {
    label: '/scan with a wallet',
    path: '/scan',
    prepare: installWallet,
    ready: (page) => page.getByRole('button', { name: 'Sign in with Phantom' }).waitFor(),
    budget: true,
  },
  { label: '/docs', path: '/docs', ready: (page) => page.locator('#problem-invalid_request').waitFor({ state: 'attached' }) },
];

async function measure(origin: string, { path, prepare, ready }: Case): Promise<Measured> {
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    await prepare?.(page);
    const byType: Record<string, Sizes> = {};
    const elsewhere: string[] = [];
    const pending: Promise<void>[] = [];
    const refused: string[] = [];
    page.on('request', (request) => {
      if (!request.url().startsWith(origin) && !/^(blob|data):/.test(request.url())) elsewhere.push(request.url());
    });
    // Requests the page's Content-Security-Policy stopped in the browser: they never left it.
    page.on('requestfailed', (request) => {
      if (request.failure()?.errorText === 'csp') refused.push(request.url());
    });
    page.on('requestfinished', (request) => {
      pending.push(
        (async () => {
          const response = await request.response();
          if (!response) return;
          // Both sizes first, then one synchronous update: `total += await x` would lose concurrent additions.
          const sent = (await request.sizes()).responseBodySize;
          const decoded = (await response.body().catch(() => Buffer.alloc(0))).length;
          const type = request.resourceType();
          const sizes = byType[type] ?? { files: 0, sent: 0, decoded: 0 };
          byType[type] = sizes;
          sizes.files++;
          sizes.sent += sent;
          sizes.decoded += decoded;
        })(),
      );
    });
    await page.goto(`${origin}${path}`);
    await ready(page);
    await page.waitForLoadState('networkidle');
    // Sizes arrive after each request finishes: wait until no more are being counted.
    for (let counted = -1; counted !== pending.length; ) {
      counted = pending.length;
      await Promise.all(pending);
      await page.waitForTimeout(250);
    }
    return { byType, sentElsewhere: elsewhere.filter((url) => !refused.includes(url)), refused };
  } finally {
    await browser.close();
  }
}

const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;
const none: Sizes = { files: 0, sent: 0, decoded: 0 };

async function main(): Promise<void> {
  let server: ServerProcess | undefined;
  let origin: string;
  if (values.url) {
    origin = new URL(values.url).origin;
  } else {
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    server = await ServerProcess.start(port, { PUBLIC_BASE_URL: origin, LOG_LEVEL: 'warn', RATE_LIMIT_PER_MINUTE: '0', OPERATOR_WALLETS: operator.publicKey });
    await createProgram(origin);
  }
  let budgetMet = true;
  try {
    console.log(`page weight at ${origin} (sent = as transferred, compressed; decoded = after decompression)`);
    for (const pageCase of CASES) {
      if (pageCase.needsProgram && !server) {
        console.log(`${pageCase.label.padEnd(26)} not measured: --url gives no operator to make its program`);
        continue;
      }
      const { byType, sentElsewhere, refused } = await measure(origin, pageCase);
      const script = byType.script ?? none;
      const style = byType.stylesheet ?? none;
      console.log(
        `${pageCase.label.padEnd(26)} JavaScript ${String(script.files).padStart(2)} files ` +
          `${kib(script.sent).padStart(10)} sent ${kib(script.decoded).padStart(11)} decoded` +
          ` | CSS ${style.files} files ${kib(style.sent)} sent` +
          ` | requests to other origins: ${sentElsewhere.length ? sentElsewhere.join(', ') : 'none'}` +
          (refused.length ? ` (refused by the page's CSP: ${refused.join(', ')})` : ''),
      );
      if (pageCase.budget) {
        const within = script.sent <= BUDGET_BYTES;
        budgetMet &&= within;
        console.log(`  first load ${(script.sent / 1000).toFixed(1)} kB: ${within ? 'within' : 'OVER'} the budget of ${BUDGET_BYTES / 1000} kB`);
      }
    }
  } finally {
    await server?.dispose();
  }
  if (!budgetMet) process.exitCode = 1;
}

main().catch((error: unknown) => {
  console.error(`measure-page-weight: ${(error as Error).message}`);
  process.exitCode = 1;
});
