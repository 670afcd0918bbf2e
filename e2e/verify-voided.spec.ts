// The scanner check page in Chromium for a pass an operator voided: red, titled "Voided", with the
// reason, and nowhere "Genuine pass" or "valid"; the same pass restored shows green again. Runs
// its own server (OPERATOR_WALLETS names this test's wallet) on a free port.
import { createServer } from 'node:net';
import AxeBuilder from '@axe-core/playwright';
import { expect, test } from '@playwright/test';
import { ServerProcess } from '../scripts/support/server-process';
import { PAGE_COLOURS } from '../components/verify/verify-page';
import { TestWallet } from '../test/support/wallet';
import { installPass, operatorAction, operatorToken } from '../test/living/support';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

const hexToRgb = (hex: string) => `rgb(${[1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)).join(', ')})`;

test.describe('the /verify page of a voided pass', () => {
  let server: ServerProcess;
  const operator = new TestWallet();

  test.beforeAll(async () => {
    const port = await freePort();
    server = await ServerProcess.start(port, { PUBLIC_BASE_URL: `http://127.0.0.1:${port}`, OPERATOR_WALLETS: operator.publicKey, RATE_LIMIT_PER_MINUTE: '0' });
  });
  test.afterAll(async () => {
    await server?.dispose();
  });

  test('shows a voided pass in red as "Voided", never as genuine and valid; restored, it is genuine again', async ({ page }, info) => {
    const installed = await installPass(server);
    const bearer = await operatorToken(server, operator);
    expect((await operatorAction(server, bearer, installed.serialNumber, 'void', 'Ticket refunded')).status).toBe(200);

    await page.goto(`${server.baseUrl}/verify?serial=${installed.serialNumber}`);
    const verdict = page.locator('section.verdict');
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Voided');
    await expect(verdict).toHaveCSS('background-color', hexToRgb(PAGE_COLOURS.verdicts.voided));
    await expect(page.getByText('Ticket refunded')).toBeVisible();
    await expect(page.getByText(installed.wallet.publicKey)).toBeVisible();
    const text = await page.locator('body').innerText();
    expect(text).not.toMatch(/genuine|valid\b/i);
    const path = info.outputPath('verify-voided.png');
    await page.screenshot({ path, fullPage: true });
    await info.attach('voided', { path, contentType: 'image/png' });
    expect((await new AxeBuilder({ page }).analyze()).violations).toEqual([]);

    expect((await operatorAction(server, bearer, installed.serialNumber, 'restore')).status).toBe(200);
    await page.reload();
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Genuine pass');
    await expect(verdict).toHaveCSS('background-color', hexToRgb(PAGE_COLOURS.verdicts.genuine));
  });
});
