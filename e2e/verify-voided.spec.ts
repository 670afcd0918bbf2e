// The scanner check page in Chromium for a voided pass: red, titled "Voided", with the reason, and
// nowhere "Genuine pass" or "valid"; the same pass restored shows green again. Runs its own server
// on a free port and a scratch database on the machine's PostgreSQL (TEST_DATABASE_URL), where the
// test voids and restores the pass with the service's own voidPass / restorePass.
import { expect, test } from '@playwright/test';
import { PAGE_COLOURS } from '../lib/api/verify-page';
import { createScratchDatabase } from '../scripts/support/scratch-database';
import { freePort, ServerProcess } from '../scripts/support/server-process';
import { installPass, PassController } from '../test/living/support';
import { analyzeAccessibility } from './support/axe';

if (!process.env.TEST_DATABASE_URL) {
  throw new Error('e2e/verify-voided.spec.ts needs PostgreSQL: set TEST_DATABASE_URL=postgres://127.0.0.1:5432/test (as .ci/run does).');
}

const hexToRgb = (hex: string) => `rgb(${[1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)).join(', ')})`;

test.describe('the /verify page of a voided pass', () => {
  let server: ServerProcess;
  let database: Awaited<ReturnType<typeof createScratchDatabase>>;
  let passes: PassController;

  test.beforeAll(async () => {
    database = await createScratchDatabase();
    const port = await freePort();
    // A generous statement timeout: the other e2e worker loads the machine, and a first statement
    // slower than the default 2 s would be answered 503 (the outage tests cover that answer).
    const timeout = { DATABASE_TIMEOUT_MS: '10000' };
    server = await ServerProcess.start(port, {
      PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
      DATABASE_URL: database.url,
      RATE_LIMIT_PER_MINUTE: '0',
      ...timeout,
    });
    passes = await PassController.open({ DATABASE_URL: database.url, DATA_DIR: server.env.DATA_DIR!, ...timeout });
  });
  test.afterAll(async () => {
    await server?.dispose();
    await passes?.close();
    await database?.drop();
  });

  test('shows a voided pass in red as "Voided", never as genuine and valid; restored, it is genuine again', async ({ page }, info) => {
    const installed = await installPass(server);
    expect((await passes.void(installed.serialNumber, 'Ticket refunded')).changed).toBe(true);

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
    expect((await analyzeAccessibility(page)).violations).toEqual([]);

    expect((await passes.restore(installed.serialNumber)).changed).toBe(true);
    await page.reload();
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Genuine pass');
    await expect(verdict).toHaveCSS('background-color', hexToRgb(PAGE_COLOURS.verdicts.genuine));
  });
});
