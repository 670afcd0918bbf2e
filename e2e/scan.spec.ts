// The door page /scan in Chromium, on a phone's screen, against a real server: real passes are
// claimed through the API and their barcodes read from the .pkpass files the service made. The
// camera is Chromium's fake one (the `scan` project in playwright.config.ts): a test that needs a
// barcode in the picture launches a browser of its own that plays a .y4m of that barcode
// (e2e/support/fake-camera.ts). Chromium on Linux has no BarcodeDetector, so the page reads frames
// with its WebAssembly reader; one test gives the page a BarcodeDetector and checks that the
// page uses it instead and never fetches the WebAssembly.
import type { BrowserContextOptions, Page, TestInfo } from '@playwright/test';
import { createClaimClient } from '../lib/client';
import { freePort } from '../scripts/support/server-process';
import { inspectPkpass } from '../test/support/pkpass';
import { TestWallet } from '../test/support/wallet';
import { analyzeAccessibility } from './support/axe';
import { writeBarcodeVideo } from './support/fake-camera';
import { expect, test } from './support/fixtures';
import { TestServer } from './support/server';
import { E2EWallet } from './support/wallet';

const PHONE: BrowserContextOptions = { viewport: { width: 375, height: 667 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 };
test.use(PHONE);

/** The operator's wallet (OPERATOR_WALLETS): signs in on the page, and makes the scan key through the API. */
const operator = new E2EWallet({ name: 'Operator Wallet', signIn: true });

type Pass = { holder: string; serialNumber: string; code: string };

let server: TestServer;
let scanKey: string;
/** Four real passes of the default program: one per test that admits one. */
let passes: Pass[];

test.describe.configure({ mode: 'default' }); // one server, the tests in order in one worker

test.beforeAll(async () => {
  test.setTimeout(180_000);
  server = new TestServer({ port: await freePort(), env: { OPERATOR_WALLETS: operator.address } });
  await server.start(150_000);
  const client = createClaimClient({ baseUrl: server.url });
  passes = await Promise.all(
    Array.from({ length: 4 }, async () => {
      const wallet = new TestWallet();
      const init = await client.init(wallet.publicKey);
      const { downloadUrl } = await client.claim({
        message: init.message,
        signature: wallet.sign(init.message),
        publicKey: wallet.publicKey,
        walletType: 'Phantom',
      });
      const { passJson } = inspectPkpass((await client.download(downloadUrl)).bytes);
      return { holder: wallet.publicKey, serialNumber: passJson.serialNumber as string, code: passJson.barcodes[0].message as string };
    }),
  );
  // The door's key: scope "scan", made by the operator through the API.
  const init = (await (await fetch(`${server.url}/api/v1/operator/sessions/init?publicKey=${operator.address}`)).json()) as { message: string };
  const session = await fetch(`${server.url}/api/v1/operator/sessions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ message: init.message, signature: operator.keys.sign(init.message), publicKey: operator.address }),
  });
  const { token } = (await session.json()) as { token: string };
  const created = await fetch(`${server.url}/api/v1/operator/api-keys`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'North gate', scope: 'scan' }),
  });
  expect(created.status).toBe(201);
  scanKey = ((await created.json()) as { key: string }).key;
});

test.afterAll(async () => {
  await server?.dispose();
});

const short = (address: string) => `${address.slice(0, 4)}…${address.slice(-4)}`;

/** Script errors and CSP violations of a page the fixtures do not watch (a browser launched here). */
function watch(page: Page): string[] {
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (/Content Security Policy|Refused to (load|execute|apply|connect|compile)/i.test(message.text())) problems.push(`CSP: ${message.text()}`);
  });
  return problems;
}

/** Every request the page makes, to check where it went. */
function requestsOf(page: Page): string[] {
  const urls: string[] = [];
  page.on('request', (request) => urls.push(request.url()));
  return urls;
}

async function signInWithKey(page: Page): Promise<void> {
  await page.getByLabel('Scan key', { exact: true }).fill(scanKey);
  await page.getByRole('button', { name: 'Use this key' }).click();
}

/** Chooses the program by its slug (the default program's name is "Wallet pass"). */
async function chooseProgram(page: Page, slug = 'default'): Promise<void> {
  await page.getByRole('list', { name: 'Programs' }).locator(`button[data-slug="${slug}"]`).click();
  await expect(page.getByRole('heading', { level: 2, name: /^Checking in/ })).toBeVisible();
}

type Shown = { reason: string; tone: string; text: string; background: string };

/**
 * The next full-screen answer, caught the moment it appears (it stays about a second): a check in
 * the page on every animation frame, not the test's polling, which could fall between two frames.
 */
async function nextAnswer(page: Page): Promise<Shown> {
  const handle = await page.waitForFunction(
    () => {
      const answer = document.querySelector<HTMLElement>('button[data-reason]');
      if (!answer) return null;
      return {
        reason: answer.dataset.reason!,
        tone: answer.dataset.tone!,
        text: answer.textContent ?? '',
        background: getComputedStyle(answer).backgroundColor,
      };
    },
    undefined,
    { polling: 'raf', timeout: 30_000 },
  );
  return (await handle.jsonValue()) as Shown;
}

/** Screenshot (kept), axe (no violation of any impact), and nothing wider than the phone. */
async function check(page: Page, info: TestInfo, label: string): Promise<void> {
  const path = info.outputPath(`${label}.png`);
  await page.screenshot({ path, animations: 'disabled' });
  await info.attach(label, { path, contentType: 'image/png' });
  const axe = await analyzeAccessibility(page);
  expect(
    axe.violations.map((v) => `${v.impact} ${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`),
    `axe on "${label}"`,
  ).toEqual([]);
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  expect(width, `page width on "${label}"`).toBeLessThanOrEqual(375);
}

test('the WebAssembly reader admits a real pass from the camera, green, and refuses a forged code, red', async ({ playwright, launchOptions }, info) => {
  test.setTimeout(120_000);
  // The same serial as a real pass, with its MAC's first character changed: altered, so unknown.
  const real = passes[0]!;
  const altered = passes[1]!.code.replace(/([?&]c=)(.)/, (_, prefix: string, first: string) => prefix + (first === 'A' ? 'B' : 'A'));
  expect(altered).not.toBe(passes[1]!.code);
  const cases = [
    { label: 'real', code: real.code, reason: 'checked_in', tone: 'admitted', green: true },
    { label: 'forged', code: altered, reason: 'unknown_code', tone: 'refused', green: false },
  ];
  for (const { label, code, reason, tone, green } of cases) {
    const video = await writeBarcodeVideo(code, info.outputPath(`${label}.y4m`));
    const browser = await playwright.chromium.launch({ ...launchOptions, args: [...(launchOptions.args ?? []), `--use-file-for-fake-video-capture=${video}`] });
    try {
      const page = await (await browser.newContext(PHONE)).newPage();
      const problems = watch(page);
      const requests = requestsOf(page);
      await page.goto(`${server.url}/scan`);
      await signInWithKey(page);
      await chooseProgram(page);
      const answer = await nextAnswer(page);
      expect(answer, label).toMatchObject({ reason, tone });
      // Green is green and red is red: the colour itself, not only a label.
      const [r, g] = answer.background.match(/\d+/g)!.map(Number) as [number, number];
      expect(g > r, `${label}: ${answer.background}`).toBe(green);
      if (green) {
        expect(answer.text).toContain('Welcome in');
        expect(answer.text).toContain(short(real.holder));
      } else {
        expect(answer.text).toContain('Not a valid pass');
      }
      const scanner = page.locator('[data-camera]');
      await expect(scanner).toHaveAttribute('data-reader', 'wasm');
      await expect(page.locator('[data-last]')).toHaveAttribute('data-last', reason);
      await expect(page.locator('[data-count] dd')).toHaveText(green ? '1' : '0');
      // The WebAssembly came from this origin, and nothing went anywhere else.
      expect(requests.filter((url) => url.includes('/scan/zxing_reader.wasm'))).toHaveLength(1);
      expect(requests.filter((url) => !url.startsWith(server.url) && !/^(data|blob):/.test(url))).toEqual([]);
      // Held in front of the camera, the pass is not sent again: still one answer a second later.
      await page.waitForTimeout(1500);
      await expect(page.locator('[data-count] dd')).toHaveText(green ? '1' : '0');
      expect(problems).toEqual([]);
    } finally {
      await browser.close();
    }
  }
  // The service agrees: the real pass was admitted once.
  const again = await fetch(`${server.url}/api/v1/operator/check-ins`, {
    method: 'POST',
    headers: { authorization: `Bearer ${scanKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ code: real.code }),
  });
  expect(await again.json()).toMatchObject({ admitted: false, reason: 'already_checked_in', serialNumber: real.serialNumber });
});

test('where the browser has a BarcodeDetector the page uses it, and never loads the WebAssembly reader', async ({ page }) => {
  const pass = passes[2]!;
  // A detector that sees this pass's code in every frame, and says what it was asked for.
  await page.addInitScript((code: string) => {
    const calls: string[][] = [];
    (window as unknown as { __detectorFormats: string[][] }).__detectorFormats = calls;
    class FakeBarcodeDetector {
      constructor(options?: { formats?: string[] }) {
        calls.push(options?.formats ?? []);
      }
      static async getSupportedFormats() {
        return ['qr_code', 'pdf417', 'aztec', 'code_128', 'ean_13'];
      }
      async detect() {
        return [{ rawValue: code, format: 'qr_code', boundingBox: new DOMRectReadOnly(), cornerPoints: [] }];
      }
    }
    (window as unknown as { BarcodeDetector: unknown }).BarcodeDetector = FakeBarcodeDetector;
  }, pass.code);
  await operator.install(page);
  const requests = requestsOf(page);
  await page.goto(`${server.url}/scan`);
  // Signed in with the operator's wallet this time: the console's own sign-in, on the door page.
  await page.getByRole('button', { name: 'Sign in with Operator Wallet' }).click();
  await chooseProgram(page);
  const answer = await nextAnswer(page);
  expect(answer).toMatchObject({ reason: 'checked_in', tone: 'admitted' });
  expect(answer.text).toContain(short(pass.holder));
  await expect(page.locator('[data-camera]')).toHaveAttribute('data-reader', 'native');
  expect(await page.evaluate(() => (window as unknown as { __detectorFormats: string[][] }).__detectorFormats)).toEqual([
    ['qr_code', 'pdf417', 'aztec', 'code_128'],
  ]);
  await page.waitForTimeout(1500); // the detector keeps seeing the code: it is not sent again
  await expect(page.locator('[data-count] dd')).toHaveText('1');
  expect(requests.filter((url) => url.includes('zxing_reader.wasm'))).toEqual([]);
});

test('a serial typed by hand admits, then is already checked in; every view is axe-clean at 375 px', async ({ page }, info) => {
  const pass = passes[3]!;
  // The answers stay on screen while the page's clock is paused.
  await page.clock.install();
  await page.goto(`${server.url}/scan`);
  await expect(page.getByRole('heading', { level: 1, name: 'Door check-in' })).toBeVisible();
  await expect(page.getByRole('heading', { name: 'Or use a scan key' })).toBeVisible();
  await check(page, info, '01-sign-in');

  await page.getByLabel('Scan key', { exact: true }).fill('wpck_not-a-key');
  await page.getByRole('button', { name: 'Use this key' }).click();
  await expect(page.getByRole('region', { name: 'Or use a scan key' }).getByRole('alert')).toContainText('not a key of this service');
  await signInWithKey(page);
  await expect(page.getByRole('heading', { name: 'Which program does this door admit?' })).toBeVisible();
  await check(page, info, '02-program');
  await chooseProgram(page);
  await expect(page.locator('[data-camera]')).toHaveAttribute('data-camera', 'scanning');
  await expect(page.getByText('Signed in with a scan key')).toBeVisible();
  await check(page, info, '03-scanning');

  await page.clock.pauseAt(Date.now() + 1000);
  const serial = page.getByLabel(/Type a serial number/);
  await serial.fill(pass.serialNumber);
  await page.getByRole('button', { name: 'Check in' }).click();
  const admitted = page.locator('button[data-reason]');
  await expect(admitted).toHaveAttribute('data-reason', 'checked_in');
  await expect(admitted).toContainText(short(pass.holder));
  await expect(page.locator('[data-count] dd')).toHaveText('1');
  // Focused, an answer stays past its time (for a screen reader, and for axe, which needs the clock running).
  await admitted.focus();
  await page.clock.resume();
  await page.waitForTimeout(1200);
  await check(page, info, '04-admitted');
  await admitted.click(); // a tap clears it
  await expect(admitted).toHaveCount(0);
  await page.clock.pauseAt(Date.now() + 1000);

  await serial.fill(pass.serialNumber);
  await serial.press('Enter');
  const refused = page.locator('button[data-reason]');
  await expect(refused).toHaveAttribute('data-reason', 'already_checked_in');
  await expect(refused).toHaveAttribute('data-tone', 'refused');
  await expect(refused).toContainText('Already checked in');
  await expect(refused).toContainText('First checked in');
  const shot = info.outputPath('05-already-checked-in.png');
  await page.screenshot({ path: shot });
  await info.attach('05-already-checked-in', { path: shot, contentType: 'image/png' });
  await page.clock.resume();
  await expect(refused).toHaveCount(0); // gone by itself
  await expect(page.locator('[data-last]')).toHaveAttribute('data-last', 'already_checked_in');
  await expect(page.locator('[data-count] dd')).toHaveText('1');

  // The count is this device's: it is still there after a reload, and the key is still this tab's.
  await page.reload();
  await expect(page.locator('[data-count] dd')).toHaveText('1');
  await page.getByRole('button', { name: 'Forget this key' }).click();
  await expect(page.getByLabel('Scan key', { exact: true })).toBeVisible();
  expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
});
