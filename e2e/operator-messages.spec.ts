// A message to a program's holders from the console, in a real browser, against a real server
// whose pushes go to the APNs stand-in (answering after 1.5 s, so the update is seen running): the
// message box says how many passes and devices it reaches before sending, and the update shows
// as a progress bar that follows it to the end (every device pushed). axe-clean, with the page's
// strict CSP (the fixtures fail a test on any CSP violation or script error).
import { randomBytes } from 'node:crypto';
import { freePort } from '../scripts/support/server-process';
import { device, installPass, newPushToken } from '../test/living/support';
import { ApnsStandIn } from '../test/support/stand-ins/apns';
import { analyzeAccessibility } from './support/axe';
import { expect, test } from './support/fixtures';
import { TestServer } from './support/server';
import { E2EWallet } from './support/wallet';

const operator = new E2EWallet({ name: 'Operator Wallet', signIn: true });
let server: TestServer;
let apns: ApnsStandIn;

test.describe.configure({ mode: 'default' });

test.beforeAll(async () => {
  test.setTimeout(240_000);
  apns = await ApnsStandIn.start({ answerDelayMs: 1500 });
  server = new TestServer({
    port: await freePort(),
    env: { OPERATOR_WALLETS: operator.address, APNS_URL: apns.url, NODE_EXTRA_CA_CERTS: apns.caFile, PASSKIT_TOKEN_KEY: randomBytes(32).toString('base64') },
  });
  await server.start(180_000);
});

test.afterAll(async () => {
  await server?.dispose();
  await apns?.close();
});

test('the message box tells its reach, and the update shows as a progress bar to the end', async ({ page }) => {
  const api = { fetch: (path: string, init?: RequestInit) => fetch(`${server.url}${path}`, init) };
  const installed = await installPass(api);
  const tokens = [newPushToken(), newPushToken(), newPushToken()];
  for (const token of tokens) expect((await device(api, installed).register(token)).status).toBe(201);

  await operator.install(page);
  await page.goto(`${server.url}/operator`);
  await page.getByRole('button', { name: 'Sign in with Operator Wallet' }).click();
  await expect(page.getByRole('heading', { name: /^Signed in as/ })).toBeVisible();
  const row = page.getByRole('region', { name: 'Programs' }).locator('tr[data-program="default"]');
  await row.getByRole('button', { name: /^Message/ }).click();

  const box = page.getByTestId('program-message');
  await expect(box.getByTestId('message-reach')).toContainText('Reaches 1 active pass on 3 devices');
  await box.getByLabel('Message').fill('Doors open at 7 pm.');
  await expect(box).toContainText('19 of 250 characters');
  await box.getByRole('button', { name: 'Send to every holder' }).click();

  const progress = box.getByTestId('update-progress');
  await expect(progress).toHaveAttribute('data-status', 'running');
  await expect(progress.getByRole('progressbar')).toBeVisible();
  await expect(progress).toHaveAttribute('data-status', 'done', { timeout: 15_000 });
  await expect(progress).toContainText('3 of 3 devices pushed');
  expect(apns.pushes.map((push) => push.token).sort()).toEqual([...tokens].sort());
  const axe = await analyzeAccessibility(page);
  expect(axe.violations.map((v) => `${v.impact} ${v.id}: ${v.help}`)).toEqual([]);
});
