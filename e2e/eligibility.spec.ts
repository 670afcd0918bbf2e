// Who may claim, in the browser: on a server started with an allow-list CLAIM_POLICY, a wallet that
// is not on the list is told kindly why it cannot claim and what would make it eligible (never the
// list itself); an invited wallet claims as usual. The server is this spec's own, on a free port.
import { freePort } from '../scripts/support/server-process';
import { expect, test } from './support/fixtures';
import { TestServer } from './support/server';
import { E2EWallet } from './support/wallet';

const DESKTOP = { viewport: { width: 1280, height: 860 } };

test.describe('a service with an allow list', () => {
  test.describe.configure({ mode: 'default' }); // one worker, so one server
  test.use(DESKTOP);
  const invited = new E2EWallet({ name: 'Phantom', signIn: true });
  let server: TestServer;

  test.beforeAll(async () => {
    test.setTimeout(150_000);
    server = new TestServer({ port: await freePort(), env: { CLAIM_POLICY: JSON.stringify({ allow: [invited.address] }) } });
    await server.start(120_000);
  });
  test.afterAll(async () => server?.dispose());

  test('a wallet not on the list is told why and what would make it eligible; then an invited one claims', async ({ page, claim }) => {
    const stranger = new E2EWallet({ name: 'Solflare', signIn: true });
    await stranger.install(page);
    await page.goto(server.url);
    await claim.wallet('Solflare').click();
    await claim.expectState('ready');
    await claim.card.getByRole('button', { name: 'Claim my pass' }).click();

    await claim.expectState('not-eligible');
    await expect(claim.heading()).toHaveText('This wallet cannot claim a pass yet');
    await expect(claim.card).toContainText('To be eligible, this wallet needs to be on the list of wallets invited to claim.');
    await expect(claim.card).not.toContainText(invited.address);
    expect(
      stranger.requests.map((r) => r.kind),
      'nothing to sign: refused at init',
    ).toEqual(['connect']);
    await expect(claim.card.getByRole('button', { name: 'Try again' })).toBeVisible();
    await claim.card.getByRole('button', { name: 'Use another wallet' }).click();
    await claim.expectState('choose');
  });

  test('an invited wallet claims its pass', async ({ page, claim }) => {
    await invited.install(page);
    await page.goto(server.url);
    await claim.wallet('Phantom').click();
    await claim.expectState('ready');
    await claim.card.getByRole('button', { name: 'Claim my pass' }).click();
    await claim.expectState('done');
    await claim.downloadPass();
  });
});
