// A program's claim page (/p/<slug>) in a real browser, against a real server whose programs are
// made through the operator API: the program's name, its pass picture and who may claim; a claim
// end to end for that program; and the pages of a program that takes no claims (not open yet,
// closed, sold out) and of one that does not exist, each with its way forward. Every state is
// checked as the claim page's are (screenshot, axe, nothing wider than the screen).
import type { Request } from '@playwright/test';
import { createClaimClient } from '../lib/client';
import { freePort } from '../scripts/support/server-process';
import { TestWallet } from '../test/support/wallet';
import { analyzeAccessibility } from './support/axe';
import { expect, test } from './support/fixtures';
import { TestServer } from './support/server';
import { E2EWallet } from './support/wallet';

const DESKTOP = { viewport: { width: 1280, height: 900 } };
const PHONE = { viewport: { width: 375, height: 667 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 };

const operator = new E2EWallet({ name: 'Operator Wallet', signIn: true });
/** When the not-yet-open program opens: 15 January 2030, 18:00 in Tokyo (the visitor's zone below). */
const OPENS_AT = '2030-01-15T09:00:00.000Z';
const short = (address: string) => `${address.slice(0, 4)}…${address.slice(-4)}`;

let server: TestServer;
let token: string;

test.describe.configure({ mode: 'default' }); // one server, tests in order in one worker

async function operatorCall(method: string, path: string, body?: unknown): Promise<Response> {
  return fetch(`${server.url}/api/v1/operator${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
}

async function createProgram(program: Record<string, unknown>): Promise<void> {
  const response = await operatorCall('POST', '/programs', { status: 'live', ...program });
  expect(response.status, await response.clone().text()).toBe(201);
}

test.beforeAll(async () => {
  test.setTimeout(240_000);
  server = new TestServer({ port: await freePort(), env: { OPERATOR_WALLETS: operator.address } });
  await server.start(180_000);
  const init = (await (await fetch(`${server.url}/api/v1/operator/sessions/init?publicKey=${operator.address}`)).json()) as { message: string };
  const session = await fetch(`${server.url}/api/v1/operator/sessions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ message: init.message, signature: operator.keys.sign(init.message), publicKey: operator.address }),
  });
  expect(session.status).toBe(201);
  token = ((await session.json()) as { token: string }).token;

  await createProgram({
    slug: 'members',
    name: 'Members Club',
    design: {
      style: 'storeCard',
      organizationName: 'Members Club',
      logoText: 'Members',
      backgroundColor: '#1d3557',
      foregroundColor: '#ffffff',
      labelColor: '#f1c453',
      fields: {
        header: [{ key: 'tier', label: 'Tier', value: 'Gold' }],
        primary: [{ key: 'member', label: 'Member', value: '{shortAddress}' }],
        secondary: [{ key: 'since', label: 'Member since', value: '{claimedAt}' }],
        back: [{ key: 'terms', label: 'Terms', value: 'One pass per wallet.' }],
      },
      barcode: 'pdf417',
    },
  });
  await createProgram({ slug: 'later', name: 'Winter Summit', opensAt: OPENS_AT, design: { style: 'eventTicket' } });
  await createProgram({ slug: 'finished', name: 'Autumn Meetup', status: 'closed' });
  await createProgram({ slug: 'only-one', name: 'Founders Edition', supply: 1, design: { style: 'coupon' } });
  await createProgram({ slug: 'hidden-draft', name: 'Not announced', status: 'draft' });
  // The one pass of the supply goes to someone else.
  const first = new TestWallet();
  const client = createClaimClient({ baseUrl: server.url });
  const issued = await client.init(first.publicKey, { program: 'only-one' });
  expect(
    (await client.claim({ message: issued.message, signature: first.sign(issued.message), publicKey: first.publicKey, program: 'only-one' })).created,
  ).toBe(true);
});

test.afterAll(async () => {
  await server?.dispose();
});

const isClaim = (request: Request) => request.url().endsWith('/api/v1/claim/wallet-pass') && request.method() === 'POST';
const isInit = (request: Request) => request.url().includes('/api/v1/claim/init');

test.describe('on a desktop', () => {
  test.use(DESKTOP);

  test('claims the pass of the program on its page, the picture showing the wallet once connected', async ({ page, claim }) => {
    const wallet = new E2EWallet({ name: 'Phantom', signIn: true });
    await wallet.install(page);
    const inits: Request[] = [];
    page.on('request', (request) => isInit(request) && inits.push(request));
    await page.goto(`${server.url}/p/members`);
    await expect(page).toHaveTitle('Claim Members Club');
    await expect(page.getByRole('heading', { level: 1, name: 'Members Club' })).toBeVisible();
    await expect(page.getByText('Anyone with a Solana wallet')).toBeVisible();
    const picture = page.getByRole('figure', { name: 'The Members Club store card as Apple Wallet shows it, front and back, with a PDF417 barcode.' });
    await expect(picture).toBeVisible();
    await expect(picture).toContainText('Gold');
    await expect(picture).toContainText('One pass per wallet.');
    await expect(picture.getByRole('img', { name: /^PDF417 barcode/ })).toBeVisible();
    // The design's colours, from the first paint (the page's nonce rule) and after hydration alike.
    const pass = picture.locator('div', { hasText: 'Gold' }).first();
    expect(await pass.evaluate((node) => getComputedStyle(node).getPropertyValue('--pass-bg').trim())).toBe('#1d3557');
    await claim.expectState('choose');

    await claim.wallet('Phantom').click();
    await claim.expectState('ready');
    await expect(picture).toContainText(short(wallet.address));

    const claimRequest = page.waitForRequest(isClaim);
    await claim.card.getByRole('button', { name: 'Claim my pass' }).click();
    await claim.expectState('done');
    await expect(claim.heading()).toHaveText('Your pass is ready');

    // Claimed for this program: init and claim name it, and the signed message carries its page.
    expect(new URL(inits[0]!.url()).searchParams.get('program')).toBe('members');
    const body = (await claimRequest).postDataJSON() as { program?: string; message: string };
    expect(body.program).toBe('members');
    expect(body.message).toContain(`${server.url}/p/members`);
    const downloaded = await claim.downloadPass();
    // The design's own fields: {shortAddress} filled in for this wallet.
    expect(JSON.stringify(downloaded.passJson)).toContain(short(wallet.address));
    const listed = await (await operatorCall('GET', '/passes?program=members')).text();
    expect(listed).toContain(wallet.address);
  });

  test('a closed program says so and points to the main pass', async ({ page }, info) => {
    await page.goto(`${server.url}/p/finished`);
    const card = page.locator('section[data-state]');
    await expect(card).toHaveAttribute('data-state', 'closed');
    await expect(card.getByRole('heading', { name: 'Claims are closed' })).toBeVisible();
    await checkPage(page, info, 'closed');
    await card.getByRole('link', { name: 'See the main pass' }).click();
    await expect(page).toHaveURL(`${server.url}/`);
    await expect(page.getByRole('heading', { level: 1, name: 'Claim your wallet pass' })).toBeVisible();
  });

  test('unknown programs and drafts are a real 404 with a way on', async ({ page }, info) => {
    for (const slug of ['no-such-program', 'hidden-draft']) {
      const response = await page.goto(`${server.url}/p/${slug}`);
      expect(response?.status(), slug).toBe(404);
      await expect(page.getByRole('heading', { level: 1, name: 'No pass here' })).toBeVisible();
      await expect(page.getByText('Not announced')).toHaveCount(0);
      await checkPage(page, info, `not-found-${slug}`);
    }
    await page.getByRole('link', { name: 'See the main pass' }).click();
    await expect(page).toHaveURL(`${server.url}/`);
  });
});

test.describe('in Tokyo', () => {
  test.use({ ...DESKTOP, timezoneId: 'Asia/Tokyo' });

  test('a program not open yet says when it opens, in the visitor’s time zone, and takes claims once it does', async ({ page }, info) => {
    const wallet = new E2EWallet({ name: 'Phantom', signIn: true });
    await wallet.install(page);
    await page.goto(`${server.url}/p/later`);
    await expect(page.getByRole('heading', { level: 1, name: 'Winter Summit' })).toBeVisible();
    const card = page.locator('section[data-state]');
    await expect(card).toHaveAttribute('data-state', 'not-open');
    await expect(card.getByRole('heading', { name: 'Not open yet' })).toBeVisible();
    await expect(card.locator(`time[datetime="${OPENS_AT}"]`)).toHaveText(/^on Tuesday,? 15 January 2030 at 18:00 GMT\+9$/);
    await expect(page.getByRole('figure', { name: /^The Winter Summit event ticket/ })).toBeVisible();
    await checkPage(page, info, 'not-open');

    // The operator opens it now: "Check again" is the way forward.
    expect((await operatorCall('PATCH', '/programs/later', { opensAt: null })).status).toBe(200);
    await card.getByRole('link', { name: 'Check again' }).click();
    await expect(card).toHaveAttribute('data-state', 'choose');
  });
});

test.describe('on a phone', () => {
  test.use(PHONE);

  test('claims at 375 px, every state fitting the screen', async ({ page, claim }) => {
    const wallet = new E2EWallet({ name: 'Solflare', signIn: false });
    await wallet.install(page);
    await page.goto(`${server.url}/p/members`);
    await expect(page.getByRole('figure', { name: /^The Members Club store card/ })).toBeVisible();
    await claim.expectState('choose', 'phone-choose');
    await claim.wallet('Solflare').tap();
    await claim.expectState('ready', 'phone-ready');
    await claim.card.getByRole('button', { name: 'Claim my pass' }).tap();
    await claim.expectState('done', 'phone-done');
    await claim.downloadPass('tap');
  });

  test('a sold-out program says so, at 375 px', async ({ page, claim }) => {
    await page.goto(`${server.url}/p/only-one`);
    await expect(page.getByRole('heading', { level: 1, name: 'Founders Edition' })).toBeVisible();
    await claim.expectState('sold-out', 'phone-sold-out');
    await expect(claim.heading()).toHaveText('Sold out');
    await expect(claim.card.getByRole('link', { name: 'See the main pass' })).toHaveAttribute('href', '/');
  });
});

/** What every page state gets: a screenshot kept as an artefact, axe, and nothing wider than the screen. */
async function checkPage(page: import('@playwright/test').Page, info: import('@playwright/test').TestInfo, label: string): Promise<void> {
  await page.screenshot({ path: info.outputPath(`${label}.png`), fullPage: true });
  const axe = await analyzeAccessibility(page);
  const serious = axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(serious.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`)).toEqual([]);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(page.viewportSize()!.width);
}
