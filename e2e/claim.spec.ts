// The claim page in a real browser, with a Wallet Standard wallet registered in the page the way an
// extension registers one, against the real server. Each claim ends with the pass it links to.
import type { Request } from '@playwright/test';
import { expect, test } from './support/fixtures';
import { SERVERS, urlOf } from './support/servers';
import { E2EWallet } from './support/wallet';

const DESKTOP = { viewport: { width: 1280, height: 860 } };
const PHONE = { viewport: { width: 375, height: 667 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 };

/** The JSON body of the page's claim request (to see the walletType it sent). */
const claimBody = (request: Request) => request.postDataJSON() as { walletType?: string; publicKey: string; message: string };
const isClaim = (request: Request) => request.url().endsWith('/api/v1/claim/wallet-pass') && request.method() === 'POST';
const isInit = (request: Request) => request.url().includes('/api/v1/claim/init');

test.describe('on a desktop', () => {
  test.use(DESKTOP);

  test('claims a pass with a Sign In With Solana wallet, step by step', async ({ page, claim, context }) => {
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    const wallet = new E2EWallet({ name: 'Phantom', signIn: true });
    await wallet.install(page);
    await page.goto('/');
    await expect(page.getByRole('heading', { level: 1, name: 'Claim your wallet pass' })).toBeVisible();
    await expect(page.getByText('Sign one message to prove you own this wallet. No transaction, no fee.')).toBeVisible();
    await claim.expectState('choose');
    await expect(claim.wallet('Phantom')).toContainText('Detected');

    const connection = wallet.holdNext('connect');
    await claim.wallet('Phantom').click();
    await connection.arrived;
    await claim.expectState('connecting');
    await expect(claim.heading()).toHaveText('Connecting to Phantom');
    connection.release();

    await claim.expectState('ready');
    await expect(claim.card).toContainText(`${wallet.address.slice(0, 4)}…${wallet.address.slice(-4)}`);

    const signature = wallet.holdNext('signIn');
    const claimRequest = page.waitForRequest(isClaim);
    await claim.card.getByRole('button', { name: 'Claim my pass' }).click();
    await signature.arrived;
    await claim.expectState('signing');
    await expect(claim.heading()).toHaveText('Check your wallet');
    signature.release();

    await claim.expectState('done');
    await expect(claim.heading()).toHaveText('Your pass is ready');
    expect(wallet.requests.map((r) => r.kind)).toEqual(['connect', 'signIn']);
    const body = claimBody(await claimRequest);
    expect(body.walletType).toBe('Phantom');
    expect(body.publicKey).toBe(wallet.address);

    // Google Wallet is not configured on this server: no button.
    await expect(claim.card.getByRole('link', { name: 'Save to Google Wallet' })).toHaveCount(0);
    const downloadUrl = await claim.card.getByRole('link', { name: 'Add to Apple Wallet' }).getAttribute('href');
    expect(downloadUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/download\?pass=[A-Za-z0-9_-]{43}$/);
    await expect(claim.card.getByRole('img', { name: 'QR code of your pass link' })).toBeVisible();
    await claim.card.getByRole('button', { name: 'Copy link' }).click();
    await expect(claim.card.getByRole('button', { name: 'Copied' })).toBeVisible();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(downloadUrl);

    const pass = await claim.downloadPass();
    expect(JSON.stringify(pass.passJson)).toContain(wallet.address);
  });

  test('declined connection and declined signature, then both succeed, all by keyboard', async ({ page, claim }) => {
    const wallet = new E2EWallet({ name: 'Solflare', signIn: false });
    await wallet.install(page);
    const inits: Request[] = [];
    page.on('request', (request) => isInit(request) && inits.push(request));
    await page.goto('/');
    await claim.expectState('choose');

    await page.keyboard.press('Tab');
    const walletButton = claim.wallet('Solflare');
    await expect(walletButton).toBeFocused();
    const outline = await walletButton.evaluate((el) => `${getComputedStyle(el).outlineStyle} ${getComputedStyle(el).outlineWidth}`);
    expect(outline, 'a visible focus ring').toMatch(/^solid [3-9]px$/);

    wallet.answerNext('connect', 'decline');
    await page.keyboard.press('Enter');
    await claim.expectState('connect-failed', 'connect-declined');
    await expect(claim.heading()).toHaveText('Connection declined');
    await expect(claim.heading()).toBeFocused();
    await page.keyboard.press('Tab');
    await expect(claim.card.getByRole('button', { name: 'Try again' })).toBeFocused();
    await page.keyboard.press('Enter');
    await claim.expectState('ready');

    wallet.answerNext('signMessage', 'decline');
    await page.keyboard.press('Tab');
    await expect(claim.card.getByRole('button', { name: 'Claim my pass' })).toBeFocused();
    await page.keyboard.press('Enter');
    await claim.expectState('declined');
    await expect(claim.heading()).toHaveText('Signature declined');
    await expect(claim.card).toContainText('nothing was signed');
    await page.keyboard.press('Tab');
    await expect(claim.card.getByRole('button', { name: 'Try again' })).toBeFocused();
    await page.keyboard.press('Enter');

    await claim.expectState('done');
    expect(wallet.requests.map((r) => r.kind)).toEqual(['connect', 'connect', 'signMessage', 'signMessage']);
    // The declined message never left the page, so the retry signs it again: one init, not two.
    expect(inits).toHaveLength(1);
    await claim.downloadPass();
  });

  test('a returning wallet sees "You already have a pass" with the same pass', async ({ page, claim }) => {
    const wallet = new E2EWallet({ name: 'Backpack', signIn: true });
    await wallet.install(page);
    await page.goto('/');
    await claim.wallet('Backpack').click();
    await claim.card.getByRole('button', { name: 'Claim my pass' }).click();
    await claim.expectState('done', 'done-first-claim');
    const firstUrl = await claim.card.getByRole('link', { name: 'Add to Apple Wallet' }).getAttribute('href');

    await page.goto('/'); // comes back later
    await claim.wallet('Backpack').click();
    await claim.card.getByRole('button', { name: 'Claim my pass' }).click();
    await claim.expectState('done', 'done-returning');
    await expect(claim.heading()).toHaveText('You already have a pass');
    await expect(claim.card.getByRole('link', { name: 'Add to Apple Wallet' })).toHaveAttribute('href', firstUrl!);
    const pass = await claim.downloadPass();
    expect(JSON.stringify(pass.passJson)).toContain(wallet.address);
  });

  test('too many requests: says when to retry, and the retry sends the same signature', async ({ page, claim, startServer }) => {
    // Two claim-path requests per minute. The minute passes by moving the server's clock and the
    // page's, not by waiting for it.
    const server = await startServer({ env: { RATE_LIMIT_PER_MINUTE: '2' }, movableClock: true });
    // Someone else on the same network used half of this minute's budget of two requests, so
    // this claim's message is issued and signed, and its submission is the one refused.
    const other = new E2EWallet({ name: 'Other', signIn: false });
    expect((await fetch(`${server.url}/api/v1/claim/init?publicKey=${other.address}`)).status).toBe(200);

    const wallet = new E2EWallet({ name: 'Phantom', signIn: true });
    await wallet.install(page);
    await page.clock.install();
    const claims: Request[] = [];
    page.on('request', (request) => isClaim(request) && claims.push(request));
    await page.goto(server.url);
    await claim.wallet('Phantom').click();
    await claim.card.getByRole('button', { name: 'Claim my pass' }).click();
    await claim.expectState('rate-limited');
    await expect(claim.heading()).toHaveText('Too many attempts');
    const retry = claim.card.getByRole('button', { name: /^Try again/ });
    await expect(retry).toBeDisabled();
    await expect(retry).toHaveText(/^Try again in (\d+ s|1:00)$/);
    await expect(claim.card).toContainText(/You can try again in \d+ (seconds?|min)/);

    await server.advanceClock(60_000);
    await page.clock.fastForward(60_000);
    await expect(retry).toBeEnabled();
    await expect(retry).toHaveText('Try again');
    await retry.click();
    await claim.expectState('done');
    // The refused submission was sent again as it was: one signature, two submissions of it.
    expect(wallet.requests.map((r) => r.kind)).toEqual(['connect', 'signIn']);
    expect(claims.map((request) => request.postData())).toEqual([claims[0]!.postData(), claims[0]!.postData()]);
    await claim.downloadPass();
  });

  test('server down: says so, and the retry works once it is back', async ({ page, claim, startServer }) => {
    const server = await startServer();
    const wallet = new E2EWallet({ name: 'Phantom', signIn: true });
    await wallet.install(page);
    await page.goto(server.url);
    await claim.wallet('Phantom').click();
    await claim.expectState('ready');

    await server.stop(); // a real outage: nothing listens on the port any more
    await claim.card.getByRole('button', { name: 'Claim my pass' }).click();
    await claim.expectState('unavailable');
    await expect(claim.heading()).toHaveText('Cannot reach the pass service');
    await expect(claim.card).toContainText('Your wallet is still connected');

    await server.start();
    await claim.card.getByRole('button', { name: 'Try again' }).click();
    await claim.expectState('done');
    await claim.downloadPass();
  });

  test('the wallet disconnects while asked to sign: reconnect, then claim', async ({ page, claim }) => {
    const wallet = new E2EWallet({ name: 'Phantom', signIn: true });
    await wallet.install(page);
    await page.goto('/');
    await claim.wallet('Phantom').click();
    await claim.expectState('ready');

    const signature = wallet.holdNext('signIn');
    await claim.card.getByRole('button', { name: 'Claim my pass' }).click();
    await signature.arrived;
    await wallet.disconnectFromWallet(page);
    await claim.expectState('disconnected');
    await expect(claim.heading()).toHaveText('Your wallet disconnected');
    signature.release(); // an answer that comes after the disconnection changes nothing
    await expect(claim.card).toHaveAttribute('data-state', 'disconnected');

    await claim.card.getByRole('button', { name: 'Reconnect Phantom' }).click();
    await claim.expectState('ready', 'ready-again');
    await claim.card.getByRole('button', { name: 'Claim my pass' }).click();
    await claim.expectState('done');
    await claim.downloadPass();
  });

  test('an expired message is renewed, asking the person only for the signature', async ({ page, claim, startServer }) => {
    // Messages live five minutes; the server's clock is moved past that while the wallet holds the request.
    const server = await startServer({ env: { NONCE_TTL_SECONDS: '300' }, movableClock: true });
    const wallet = new E2EWallet({ name: 'Phantom', signIn: false });
    await wallet.install(page);
    const inits: Request[] = [];
    page.on('request', (request) => isInit(request) && inits.push(request));
    await page.goto(server.url);
    await claim.wallet('Phantom').click();
    await claim.expectState('ready');

    const slow = wallet.holdNext('signMessage');
    await claim.card.getByRole('button', { name: 'Claim my pass' }).click();
    await slow.arrived;
    await server.advanceClock(301_000); // the person takes longer than the message lives
    const fresh = wallet.holdNext('signMessage');
    slow.release();
    await fresh.arrived;
    await claim.expectState('signing', 'signing-renewed');
    await expect(claim.card).toContainText('The first message expired');
    fresh.release();

    await claim.expectState('done');
    expect(inits).toHaveLength(2);
    expect(wallet.requests.map((r) => r.kind)).toEqual(['connect', 'signMessage', 'signMessage']);
    await claim.downloadPass();
  });

  test('no wallet installed: says so and links to getting one', async ({ page, claim }) => {
    await page.goto('/');
    await claim.expectState('no-wallet');
    await expect(claim.heading()).toHaveText('No Solana wallet found');
    await expect(claim.card.getByRole('link', { name: /Get a wallet/ })).toHaveAttribute('href', 'https://solana.com/solana-wallets');
  });

  test('shows "Save to Google Wallet" when the service has a Google Wallet issuer', async ({ page, claim }) => {
    const wallet = new E2EWallet({ name: 'Phantom', signIn: true });
    await wallet.install(page);
    await page.goto(urlOf(SERVERS.google.port));
    await claim.wallet('Phantom').click();
    await claim.card.getByRole('button', { name: 'Claim my pass' }).click();
    await claim.expectState('done', 'done-with-google');
    await expect(claim.card.getByRole('link', { name: 'Save to Google Wallet' })).toHaveAttribute(
      'href',
      /^https:\/\/pay\.google\.com\/gp\/v\/save\/[\w-]+\.[\w-]+\.[\w-]+$/,
    );
    await claim.downloadPass();
  });
});

test.describe('on a 375 px phone', () => {
  test.use(PHONE);

  test('a first-time visitor claims in three taps and one signature', async ({ page, claim }) => {
    const wallet = new E2EWallet({ name: 'Pocket Test Wallet', signIn: false });
    await wallet.install(page);
    const claimRequest = page.waitForRequest(isClaim);
    await page.goto('/');
    await claim.expectState('choose');

    await claim.wallet('Pocket Test Wallet').tap(); // tap 1: connect
    await claim.expectState('ready');
    await claim.card.getByRole('button', { name: 'Claim my pass' }).tap(); // tap 2: claim, then one signature
    await claim.expectState('done');
    expect(wallet.requests.map((r) => r.kind)).toEqual(['connect', 'signMessage']);
    expect(claimBody(await claimRequest).walletType).toBe('Generic');

    const pass = await claim.downloadPass('tap'); // tap 3: add to the phone's wallet
    expect(JSON.stringify(pass.passJson)).toContain(wallet.address);
  });

  test('every state fits the screen, in dark mode too: connecting, signing, declined', async ({ page, claim }) => {
    await page.emulateMedia({ colorScheme: 'dark' });
    const wallet = new E2EWallet({ name: 'Coinbase Wallet', signIn: true });
    await wallet.install(page);
    await page.goto('/');
    const connection = wallet.holdNext('connect');
    await claim.wallet('Coinbase Wallet').tap();
    await connection.arrived;
    await claim.expectState('connecting');
    connection.release();
    await claim.expectState('ready');
    const signature = wallet.holdNext('signIn');
    await claim.card.getByRole('button', { name: 'Claim my pass' }).tap();
    await signature.arrived;
    await claim.expectState('signing');
    signature.release('decline');
    await claim.expectState('declined');
    await claim.card.getByRole('button', { name: 'Try again' }).tap();
    await claim.expectState('done');
    await claim.downloadPass('tap');
  });

  test('no wallet on a phone: offers to open the page in a wallet app', async ({ page, claim }) => {
    await page.goto('/');
    await claim.expectState('no-wallet');
    const open = claim.card.getByRole('link', { name: 'Open in Phantom' });
    await expect(open).toHaveAttribute('href', /^https:\/\/phantom\.app\/ul\/browse\/http%3A%2F%2F127\.0\.0\.1%3A\d+%2F\?ref=/);
  });
});
