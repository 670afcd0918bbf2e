// End-to-end tests of the claim page in Chromium against the real server (`server.ts` on the
// production build: run `next build` first; `npm test` does). Browser: CHROMIUM_PATH, else Debian's
// /usr/bin/chromium, else Playwright's own download. Without one: under CI=true the run fails with
// a clear message; elsewhere the tests are not registered and a banner says how to get a browser.
import { existsSync } from 'node:fs';
import { chromium, defineConfig } from '@playwright/test';
import { SERVERS, urlOf } from './e2e/support/servers';
import { CHROMIUM_ARGS, FAKE_CAMERA_ARGS } from './scripts/support/chromium';

function findChromium(): { path?: string; problem?: string } {
  const configured = process.env.CHROMIUM_PATH;
  if (configured) {
    return existsSync(configured) ? { path: configured } : { problem: `CHROMIUM_PATH=${configured} does not exist.` };
  }
  for (const candidate of ['/usr/bin/chromium', '/usr/bin/chromium-browser', playwrightsOwnChromium()]) {
    if (candidate && existsSync(candidate)) return { path: candidate };
  }
  return { problem: 'No Chromium found at CHROMIUM_PATH, /usr/bin/chromium or in Playwright’s cache.' };
}

function playwrightsOwnChromium(): string | undefined {
  try {
    return chromium.executablePath();
  } catch {
    return undefined;
  }
}

const browser = findChromium();
const HOW_TO_INSTALL =
  'Install one with `apt-get install -y chromium` (Debian/Ubuntu), or `npx playwright install chromium`, ' +
  'or point CHROMIUM_PATH at a Chromium or Chrome binary.';

if (!browser.path) {
  const message = `${browser.problem} ${HOW_TO_INSTALL}`;
  if (process.env.CI === 'true') throw new Error(`End-to-end tests need Chromium under CI. ${message}`);
  const line = '*'.repeat(100);
  console.warn(`\n${line}\n*** END-TO-END TESTS NOT RUN: ${message}\n${line}\n`);
}

export default defineConfig({
  testDir: 'e2e',
  outputDir: 'test-results/e2e',
  // Screenshots of every state are kept here as artefacts (test-results/ is gitignored).
  preserveOutput: 'always',
  fullyParallel: true,
  workers: 2,
  forbidOnly: true,
  retries: 0,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: [['list']],
  use: {
    baseURL: urlOf(SERVERS.main.port),
    browserName: 'chromium',
    launchOptions: {
      executablePath: browser.path,
      args: CHROMIUM_ARGS,
    },
    // DOM snapshots of every action, kept when a test fails. No screencast: its frames made the
    // browser use half as much CPU again (measured), and the failure screenshot is kept anyway.
    trace: { mode: 'retain-on-failure', screenshots: false },
    screenshot: 'only-on-failure',
  },
  // The operator console's tests share one server and run in order in one worker: the longest
  // chain of the run. Its project comes first so that it starts at once, beside everything else.
  // No browser: no tests and no servers (the banner above says why). Not a skip: nothing is registered.
  // The door page's tests get a camera: Chromium's fake device (a moving test pattern; a test that
  // needs a barcode in the picture launches a browser of its own, playing a file), its permission
  // prompt answered yes.
  projects: browser.path
    ? [
        { name: 'operator', testMatch: 'operator.spec.ts' },
        {
          name: 'scan',
          testMatch: 'scan.spec.ts',
          use: { launchOptions: { executablePath: browser.path, args: [...CHROMIUM_ARGS, ...FAKE_CAMERA_ARGS] } },
        },
        { name: 'chromium', testIgnore: ['operator.spec.ts', 'scan.spec.ts'] },
      ]
    : [],
  // The DATA_DIR template and the shared servers (e2e/support/servers.ts), stopped again at the end.
  globalSetup: browser.path ? './e2e/support/global-setup.ts' : undefined,
});
