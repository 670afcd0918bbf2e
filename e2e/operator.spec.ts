// The operator console in a real browser, against a real server whose OPERATOR_WALLETS is the
// test's wallet (a Wallet Standard wallet registered in the page, as an extension does). Passes
// are seeded by claiming through the real API. Every view is screenshotted (kept with the other
// e2e artefacts), checked with axe, and must fit the screen without sideways scrolling.
import type { Page, TestInfo } from '@playwright/test';
import { createClaimClient } from '../lib/client';
import type { WalletType } from '../lib/wallet-types';
import { freePort } from '../scripts/support/server-process';
import { newWebhookSecret, WebhookReceiver } from '../test/support/stand-ins/webhook-receiver';
import { TestWallet } from '../test/support/wallet';
import { analyzeAccessibility } from './support/axe';
import { expect, test } from './support/fixtures';
import { TestServer } from './support/server';
import { E2EWallet } from './support/wallet';

const DESKTOP = { viewport: { width: 1280, height: 900 } };
const PHONE = { viewport: { width: 375, height: 667 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 };

/** The operator's wallet: its address is the server's OPERATOR_WALLETS. */
const operator = new E2EWallet({ name: 'Operator Wallet', signIn: true });
/** Claimers: each claims one pass through the real API, with its own pass design. */
const claimers = [
  { wallet: new TestWallet(), walletType: 'Phantom' },
  { wallet: new TestWallet(), walletType: 'Solflare' },
  { wallet: new TestWallet(), walletType: 'Generic' },
  { wallet: new TestWallet(), walletType: 'Trust' },
] as const;
/** More passes than a page of the console's list (25), so that paging shows. Claimed first: the named ones are newest. */
const FILLERS = 23;
const TOTAL = FILLERS + claimers.length;
const PAGE_SIZE = 25;

let server: TestServer;
/** Where the server sends webhooks: it answers 503 until the deliveries test says otherwise. */
let receiver: WebhookReceiver;

test.describe.configure({ mode: 'default' }); // one server, tests in order in one worker

test.beforeAll(async () => {
  test.setTimeout(240_000);
  receiver = await WebhookReceiver.start();
  receiver.answer = () => 503;
  server = new TestServer({
    port: await freePort(),
    env: {
      OPERATOR_WALLETS: operator.address,
      WEBHOOK_URL: receiver.url,
      WEBHOOK_SECRET: newWebhookSecret(),
      // The first retry ten minutes after a failure: within this file only the console's Retry sends again.
      JOB_RETRY_BASE_MS: '600000',
    },
  });
  await server.start(180_000);
  const client = createClaimClient({ baseUrl: server.url });
  const claimOne = async ({ wallet, walletType }: { wallet: TestWallet; walletType: WalletType }) => {
    const init = await client.init(wallet.publicKey);
    const claimed = await client.claim({ message: init.message, signature: wallet.sign(init.message), publicKey: wallet.publicKey, walletType });
    expect(claimed.created).toBe(true);
  };
  // The fillers all at once; then the named claimers one by one, so that they are the newest.
  await Promise.all(Array.from({ length: FILLERS }, () => claimOne({ wallet: new TestWallet(), walletType: 'Generic' })));
  for (const claimer of claimers) await claimOne(claimer);
});

test.afterAll(async () => {
  await server?.dispose();
  await receiver?.close();
});

/** The console page and the checks every view gets. */
class Console {
  private shots = 0;
  constructor(
    readonly page: Page,
    private readonly info: TestInfo,
  ) {}

  async open(): Promise<void> {
    await this.page.goto(`${server.url}/operator`);
    await expect(this.page.getByRole('heading', { level: 1, name: 'Operator console' })).toBeVisible();
  }

  /** Screenshot (kept), axe (no violation of any impact), and nothing wider than the screen. */
  async check(label: string): Promise<void> {
    await this.page.evaluate(() => document.fonts.ready);
    const path = this.info.outputPath(`${String(++this.shots).padStart(2, '0')}-${label}.png`);
    await this.page.screenshot({ path, fullPage: true, animations: 'disabled' });
    await this.info.attach(label, { path, contentType: 'image/png' });
    const axe = await analyzeAccessibility(this.page);
    expect(
      axe.violations.map((v) => `${v.impact} ${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`),
      `axe on "${label}"`,
    ).toEqual([]);
    const width = await this.page.evaluate(() => document.documentElement.scrollWidth);
    expect(width, `page width on "${label}"`).toBeLessThanOrEqual(this.page.viewportSize()!.width);
  }

  signInButton() {
    return this.page.getByRole('button', { name: 'Sign in with Operator Wallet' });
  }

  async signIn(how: 'click' | 'tap' = 'click'): Promise<void> {
    await expect(this.page.getByRole('heading', { name: 'Sign in' })).toBeVisible();
    await (how === 'tap' ? this.signInButton().tap() : this.signInButton().click());
    await expect(this.page.getByRole('heading', { name: /^Signed in as/ })).toBeVisible();
    await expect(this.passRows()).toHaveCount(PAGE_SIZE);
  }

  section(name: string) {
    return this.page.getByRole('region', { name });
  }

  passRows() {
    return this.section('Passes').locator('tbody tr');
  }

  row(serial: string) {
    return this.section('Passes').locator(`tr[data-serial="${serial}"]`);
  }

  total(name: 'passes' | 'active' | 'voided' | 'devicesRegistered') {
    return this.section('Totals').locator(`[data-total="${name}"] dd`);
  }

  dialog() {
    return this.page.getByRole('dialog');
  }
}

/** The serial number of a claimer's pass, as the console lists it. */
async function serialOf(console: Console, publicKey: string): Promise<string> {
  const rows = console.passRows();
  const serial = await rows.filter({ hasText: publicKey }).getAttribute('data-serial');
  return serial!;
}

/** A bearer session for the operator wallet, through the API (to check what the page did). */
async function apiSession(): Promise<string> {
  const init = (await (await fetch(`${server.url}/api/v1/operator/sessions/init?publicKey=${operator.address}`)).json()) as { message: string };
  const response = await fetch(`${server.url}/api/v1/operator/sessions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ message: init.message, signature: operator.keys.sign(init.message), publicKey: operator.address }),
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { token: string }).token;
}

async function passByApi(token: string, serial: string) {
  const response = await fetch(`${server.url}/api/v1/operator/passes?serial=${serial}`, { headers: { authorization: `Bearer ${token}` } });
  expect(response.status).toBe(200);
  const body = (await response.json()) as { passes: { serialNumber: string; status: string; voidReason: string | null }[] };
  return body.passes.find((pass) => pass.serialNumber === serial);
}

test.describe('on a desktop', () => {
  test.use(DESKTOP);

  test('signs in with the wallet; totals, chart, search, void with confirmation, restore; sign out', async ({ page }, info) => {
    const console = new Console(page, info);
    await operator.install(page);
    const scripts: string[] = [];
    page.on('request', (request) => request.resourceType() === 'script' && scripts.push(request.url()));
    await console.open();
    await expect(console.signInButton()).toBeVisible();
    await console.check('sign-in');
    const beforeSignIn = scripts.length;
    const asked = operator.requests.length;

    await console.signIn();
    // Reaching for the wallet loaded the wallet stack: scripts that were not there at first paint.
    expect(scripts.length, 'the wallet stack loads on sign-in, not before').toBeGreaterThan(beforeSignIn);
    expect(operator.requests.slice(asked).map((r) => r.kind)).toEqual(['connect', 'signIn']);
    await expect(page.getByRole('heading', { name: /^Signed in as/ })).toContainText(`${operator.address.slice(0, 4)}…${operator.address.slice(-4)}`);

    // Totals and the chart: every claim was today.
    await expect(console.total('passes')).toHaveText(String(TOTAL));
    await expect(console.total('active')).toHaveText(String(TOTAL));
    await expect(console.total('voided')).toHaveText('0');
    await expect(console.total('devicesRegistered')).toHaveText('0');
    const chart = page.getByTestId('claims-chart');
    await expect(chart).toBeVisible();
    await expect(console.section('Claims per day')).toContainText(`${TOTAL} claims in the last 30 days`);
    const today = new Date().toISOString().slice(0, 10);
    await expect(chart.locator(`rect[data-date="${today}"]`)).toHaveAttribute('data-count', String(TOTAL));
    expect(Number(await chart.locator(`rect[data-date="${today}"]`).getAttribute('height'))).toBeGreaterThan(0);
    await expect(page.getByTestId('check-ins-chart')).toBeVisible();
    await expect(console.section('Check-ins per day')).toContainText('0 check-ins in the last 30 days');
    // Installs and uninstalls beside them: no device has registered a pass yet.
    await expect(page.getByTestId('installs-chart')).toBeVisible();
    await expect(page.getByRole('region', { name: 'Installs per day', exact: true })).toContainText('0 installs in the last 30 days');
    await expect(page.getByTestId('uninstalls-chart')).toBeVisible();
    await expect(console.section('Uninstalls per day')).toContainText('0 uninstalls in the last 30 days');
    await console.check('signed-in');

    // Search by address, by serial, by status.
    const target = claimers[1];
    const serial = await serialOf(console, target.wallet.publicKey);
    await console.section('Passes').getByLabel('Wallet address').fill(target.wallet.publicKey);
    await console.section('Passes').getByRole('button', { name: 'Search' }).click();
    await expect(console.passRows()).toHaveCount(1);
    await expect(console.passRows().first()).toHaveAttribute('data-serial', serial);
    await expect(console.passRows().first()).toContainText('Solflare');
    await console.section('Passes').getByRole('button', { name: 'Clear' }).click();
    await expect(console.passRows()).toHaveCount(PAGE_SIZE);
    await console.section('Passes').getByLabel('Serial number').fill(serial);
    await console.section('Passes').getByRole('button', { name: 'Search' }).click();
    await expect(console.passRows()).toHaveCount(1);
    await console.section('Passes').getByRole('button', { name: 'Clear' }).click();
    await console.section('Passes').getByLabel('Status').selectOption('voided');
    await console.section('Passes').getByRole('button', { name: 'Search' }).click();
    await expect(console.section('Passes')).toContainText('No pass matches this search.');
    await console.check('search-none');
    await console.section('Passes').getByRole('button', { name: 'Clear' }).click();
    await expect(console.passRows()).toHaveCount(PAGE_SIZE);

    // Void: a confirmation that needs a reason; Cancel changes nothing.
    const token = await apiSession();
    await console
      .row(serial)
      .getByRole('button', { name: `Void pass ${serial}` })
      .click();
    await expect(console.dialog()).toBeVisible();
    await expect(console.dialog().getByRole('heading')).toHaveText('Void this pass?');
    await expect(console.dialog().getByLabel('Reason')).toBeFocused();
    await console.check('void-dialog');
    await console.dialog().getByRole('button', { name: 'Cancel' }).click();
    await expect(console.dialog()).toBeHidden();
    expect((await passByApi(token, serial))?.status).toBe('active');

    await console
      .row(serial)
      .getByRole('button', { name: `Void pass ${serial}` })
      .click();
    await console.dialog().getByRole('button', { name: 'Void pass' }).click();
    await expect(console.dialog().getByRole('alert')).toHaveText('Reason is required.');
    expect((await passByApi(token, serial))?.status).toBe('active');
    await console.dialog().getByLabel('Reason').fill('Card reported lost');
    await console.dialog().getByRole('button', { name: 'Void pass' }).click();
    await expect(console.dialog()).toBeHidden();
    await expect(console.row(serial)).toHaveAttribute('data-status', 'voided');
    await expect(console.row(serial)).toContainText('Voided');
    await expect(console.row(serial)).toContainText('Card reported lost');
    await expect(console.total('voided')).toHaveText('1');
    await expect(console.total('active')).toHaveText(String(TOTAL - 1));
    expect(await passByApi(token, serial)).toMatchObject({ status: 'voided', voidReason: 'Card reported lost' });
    await console.check('voided');

    // The status search finds it now.
    await console.section('Passes').getByLabel('Status').selectOption('voided');
    await console.section('Passes').getByRole('button', { name: 'Search' }).click();
    await expect(console.passRows()).toHaveCount(1);
    await console.section('Passes').getByRole('button', { name: 'Clear' }).click();
    // The whole first page again before the next click: rows that move under the pointer while the
    // list reloads can take a click meant for another.
    await expect(console.passRows()).toHaveCount(PAGE_SIZE);

    // Restore, confirmed.
    await console
      .row(serial)
      .getByRole('button', { name: `Restore pass ${serial}` })
      .click();
    await expect(console.dialog().getByRole('heading')).toHaveText('Restore this pass?');
    await console.dialog().getByRole('button', { name: 'Restore pass' }).click();
    await expect(console.dialog()).toBeHidden();
    await expect(console.row(serial)).toHaveAttribute('data-status', 'active');
    await expect(console.total('voided')).toHaveText('0');
    expect((await passByApi(token, serial))?.status).toBe('active');

    // Sign out: back to sign-in, and a reload stays signed out (the cookie is gone).
    await page.getByRole('button', { name: 'Sign out' }).click();
    await expect(page.getByRole('heading', { name: 'Sign in' })).toBeFocused();
    await page.reload();
    await expect(console.signInButton()).toBeVisible();
  });

  test('pages through the passes: the first page is full, the second has the rest, and back', async ({ page }, info) => {
    const console = new Console(page, info);
    await operator.install(page);
    await console.open();
    await console.signIn();
    const passes = console.section('Passes');
    const firstPage = await console.passRows().evaluateAll((rows) => rows.map((row) => row.getAttribute('data-serial')));
    await expect(passes.getByRole('button', { name: 'Previous page' })).toBeDisabled();
    await passes.getByRole('button', { name: 'Next page' }).click();
    await expect(passes.getByText('Page 2')).toBeVisible();
    await expect(console.passRows()).toHaveCount(TOTAL - PAGE_SIZE);
    const secondPage = await console.passRows().evaluateAll((rows) => rows.map((row) => row.getAttribute('data-serial')));
    expect(
      secondPage.filter((serial) => firstPage.includes(serial)),
      'no pass on both pages',
    ).toEqual([]);
    await expect(passes.getByRole('button', { name: 'Next page' })).toBeDisabled();
    await console.check('second-page');
    await passes.getByRole('button', { name: 'Previous page' }).click();
    await expect(passes.getByText('Page 1')).toBeVisible();
    await expect(console.passRows()).toHaveCount(PAGE_SIZE);
  });

  test('API keys: created and shown once, it works, then revoked, it stops working', async ({ page, context }, info) => {
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    const console = new Console(page, info);
    await operator.install(page);
    await console.open();
    await console.signIn();
    const keys = console.section('API keys');
    await keys.getByLabel('Name (optional)').fill('Nightly export');
    await keys.getByRole('button', { name: 'Create API key' }).click();
    const shown = page.getByTestId('new-api-key');
    await expect(shown).toContainText('shown only this once');
    await expect(shown.getByRole('heading')).toBeFocused();
    const key = await shown.getByLabel('New API key').inputValue();
    expect(key.length).toBeGreaterThanOrEqual(32);
    await shown.getByRole('button', { name: 'Copy key' }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(key);
    await expect(keys.getByRole('listitem').filter({ hasText: 'Nightly export' })).toHaveCount(1);
    await console.check('api-key-created');

    // The key works as a bearer token.
    const stats = () => fetch(`${server.url}/api/v1/operator/stats`, { headers: { authorization: `Bearer ${key}` } });
    expect((await stats()).status).toBe(200);

    // Shown once: after a reload the list has the key, the page no longer has its secret.
    await page.reload();
    await expect(keys.getByRole('listitem').filter({ hasText: 'Nightly export' })).toHaveCount(1);
    await expect(page.getByTestId('new-api-key')).toHaveCount(0);
    expect(await page.content()).not.toContain(key);

    await keys.getByRole('button', { name: 'Revoke Nightly export' }).click();
    await expect(console.dialog().getByRole('heading')).toHaveText('Revoke this API key?');
    await console.dialog().getByRole('button', { name: 'Revoke key' }).click();
    await expect(console.dialog()).toBeHidden();
    await expect(keys.getByRole('listitem').filter({ hasText: 'Nightly export' })).toHaveCount(0);
    expect((await stats()).status).toBe(401);
    await console.check('api-key-revoked');
  });

  test('all by keyboard: sign in, search, void (Escape cancels), restore', async ({ page }, info) => {
    const console = new Console(page, info);
    await operator.install(page);
    await console.open();
    await expect(console.signInButton()).toBeVisible();
    await page.keyboard.press('Tab');
    await expect(console.signInButton()).toBeFocused();
    const outline = await console.signInButton().evaluate((el) => `${getComputedStyle(el).outlineStyle} ${getComputedStyle(el).outlineWidth}`);
    expect(outline, 'a visible focus ring').toMatch(/^solid [3-9]px$/);
    await page.keyboard.press('Enter');
    await expect(page.getByRole('heading', { name: /^Signed in as/ })).toBeFocused();
    await expect(console.passRows()).toHaveCount(PAGE_SIZE);

    const target = claimers[2];
    const serial = await serialOf(console, target.wallet.publicKey);
    const address = console.section('Passes').getByLabel('Wallet address');
    await address.focus();
    await page.keyboard.type(target.wallet.publicKey);
    await page.keyboard.press('Enter'); // submits the search form
    await expect(console.passRows()).toHaveCount(1);

    const voidButton = console.row(serial).getByRole('button', { name: `Void pass ${serial}` });
    await voidButton.focus();
    await page.keyboard.press('Enter');
    await expect(console.dialog().getByLabel('Reason')).toBeFocused();
    await page.keyboard.press('Escape');
    await expect(console.dialog()).toBeHidden();
    await expect(voidButton).toBeFocused(); // focus returns to the button that opened it

    await page.keyboard.press('Enter');
    await page.keyboard.type('Duplicate claim');
    await page.keyboard.press('Enter');
    await expect(console.dialog()).toBeHidden();
    await expect(console.row(serial)).toHaveAttribute('data-status', 'voided');

    const restore = console.row(serial).getByRole('button', { name: `Restore pass ${serial}` });
    await restore.focus();
    await page.keyboard.press('Enter');
    await expect(console.dialog()).toBeVisible();
    await page.keyboard.press('Tab'); // Cancel has the focus first (the safe choice); Tab reaches the action
    await expect(console.dialog().getByRole('button', { name: 'Restore pass' })).toBeFocused();
    await page.keyboard.press('Enter');
    await expect(console.row(serial)).toHaveAttribute('data-status', 'active');
  });

  test('a wallet that is not an operator is told so, and gets no session', async ({ page }, info) => {
    const console = new Console(page, info);
    const stranger = new E2EWallet({ name: 'Operator Wallet', signIn: false });
    await stranger.install(page);
    await console.open();
    await console.signInButton().click();
    await expect(console.section('Sign in').getByRole('alert')).toHaveText('This wallet is not an operator of this service. Sign in with an operator wallet.');
    expect(stranger.requests.map((r) => r.kind)).toEqual(['connect', 'signMessage']);
    await console.check('not-an-operator');
    await page.reload();
    await expect(console.signInButton()).toBeVisible();
  });

  test('webhook deliveries: a failing one shows its error, and Retry sends it now', async ({ page }, info) => {
    const console = new Console(page, info);
    await operator.install(page);
    await console.open();
    await console.signIn();
    const deliveries = console.section('Webhook deliveries');
    const newest = deliveries.locator('tbody tr').first();
    // Every event so far met a receiver answering 503: waiting for a retry ten minutes away.
    await expect(async () => {
      await deliveries.getByRole('button', { name: 'Refresh' }).click();
      await expect(newest).toContainText('HTTP 503', { timeout: 2_000 });
    }).toPass({ timeout: 60_000 });
    await expect(newest).toHaveAttribute('data-status', 'pending');
    await expect(newest).toContainText('Waiting to retry');
    await console.check('deliveries-failing');

    const id = (await newest.getAttribute('data-delivery'))!;
    const row = deliveries.locator(`tr[data-delivery="${id}"]`);
    receiver.answer = () => 200;
    await row.getByRole('button', { name: new RegExp(`^Retry delivery ${id} of `) }).click();
    await expect(async () => {
      await deliveries.getByRole('button', { name: 'Refresh' }).click();
      await expect(row).toHaveAttribute('data-status', 'delivered', { timeout: 2_000 });
    }).toPass({ timeout: 60_000 });
    await expect(row).toContainText('Delivered');
    await expect(row.getByRole('button', { name: new RegExp(`^Send again delivery ${id} of `) })).toBeVisible();
    // Only the retried delivery went out: the others still wait for their backoff.
    expect(receiver.accepted()).toHaveLength(1);
    await console.check('deliveries-retried');
  });

  test('the page sends a nonce CSP without unsafe-inline, and every script carries the nonce', async ({ request }) => {
    const response = await request.get(`${server.url}/operator`);
    expect(response.status()).toBe(200);
    const csp = response.headers()['content-security-policy']!;
    const nonce = /'nonce-([A-Za-z0-9+/=]+)'/.exec(csp)?.[1];
    expect(nonce, 'a nonce in script-src').toBeTruthy();
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).not.toContain('unsafe-eval');
    expect(csp).toContain("frame-ancestors 'none'");
    expect(response.headers()['x-frame-options']).toBe('DENY');
    const scripts = (await response.text()).match(/<script\b[^>]*>/g) ?? [];
    expect(scripts.length).toBeGreaterThan(0);
    expect(scripts.filter((tag) => !tag.includes(`nonce="${nonce}"`))).toEqual([]);
  });
});

test.describe('on a 375 px phone', () => {
  test.use(PHONE);

  test('signs in by tap; every section fits; void with confirmation, in dark mode too', async ({ page }, info) => {
    await page.emulateMedia({ colorScheme: 'dark' });
    const console = new Console(page, info);
    await operator.install(page);
    await console.open();
    await console.check('phone-sign-in');
    await console.signIn('tap');
    await expect(page.getByTestId('claims-chart')).toBeVisible();
    await expect(page.getByTestId('uninstalls-chart')).toBeVisible();
    await expect(console.total('passes')).toHaveText(String(TOTAL));
    await console.check('phone-signed-in');

    const serial = await serialOf(console, claimers[3].wallet.publicKey);
    await console
      .row(serial)
      .getByRole('button', { name: `Void pass ${serial}` })
      .tap();
    await console.dialog().getByLabel('Reason').fill('Refunded');
    await console.check('phone-void-dialog');
    await console.dialog().getByRole('button', { name: 'Void pass' }).tap();
    await expect(console.row(serial)).toHaveAttribute('data-status', 'voided');
    await console.check('phone-voided');
    await console
      .row(serial)
      .getByRole('button', { name: `Restore pass ${serial}` })
      .tap();
    await console.dialog().getByRole('button', { name: 'Restore pass' }).tap();
    await expect(console.row(serial)).toHaveAttribute('data-status', 'active');

    await console.page.emulateMedia({ colorScheme: 'light' });
    await console.check('phone-light');
  });
});
