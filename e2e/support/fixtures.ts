// The fixtures every end-to-end test uses: a page that fails the test on a script error or a
// Content-Security-Policy violation and measures layout shift, and `claim`, a helper that checks
// each state the page passes through (screenshot kept as an artefact, axe, no sideways scroll); and
// `startServer`, for a test that needs a server of its own (disposed of when the test ends).
import { test as base, expect, type Page, type TestInfo } from '@playwright/test';
import { freePort } from '../../scripts/support/server-process';
import { type InspectedPass, inspectPkpass } from '../../test/support/pkpass';
import { analyzeAccessibility } from './axe';
import { type ServerOptions, TestServer } from './server';

/** Sums the Cumulative Layout Shift of the page (shifts within 500 ms of input are not counted). */
function observeLayoutShift() {
  type Shift = PerformanceEntry & { value: number; hadRecentInput: boolean; sources: { node?: Node }[] };
  const w = window as unknown as { __layoutShifts: { value: number; what: string }[] };
  w.__layoutShifts = [];
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries() as Shift[]) {
      if (entry.hadRecentInput) continue;
      const what = entry.sources.map(({ node }) => (node instanceof Element ? `${node.tagName}.${node.className}` : String(node?.nodeName))).join(', ');
      w.__layoutShifts.push({ value: entry.value, what });
    }
  }).observe({ type: 'layout-shift', buffered: true });
}

export class ClaimPage {
  private shots = 0;
  readonly card;

  constructor(
    readonly page: Page,
    private readonly info: TestInfo,
  ) {
    this.card = page.locator('section[data-state]');
  }

  /** Waits for the card to show `state`, then checks it: screenshot, axe, no sideways scroll. */
  async expectState(state: string, label = state): Promise<void> {
    await expect(this.card).toHaveAttribute('data-state', state);
    if (state === 'done') await expect(this.card.getByRole('img', { name: 'QR code of your pass link' })).toBeVisible();
    await this.page.evaluate(() => document.fonts.ready);
    const path = this.info.outputPath(`${String(++this.shots).padStart(2, '0')}-${label}.png`);
    await this.page.screenshot({ path, fullPage: true, animations: 'disabled' });
    await this.info.attach(label, { path, contentType: 'image/png' });

    const axe = await analyzeAccessibility(this.page);
    const serious = axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
    expect(
      serious.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`),
      `axe on "${label}"`,
    ).toEqual([]);

    // Nothing spills out of the card's padding (a clipped button edge, a label too wide to fit).
    const spilling = await this.card.evaluate((card) => {
      const box = card.getBoundingClientRect();
      const style = getComputedStyle(card);
      const left = box.left + parseFloat(style.paddingLeft) - 1;
      const right = box.right - parseFloat(style.paddingRight) + 1;
      return [...card.querySelectorAll('*')]
        .filter((el) => {
          const r = el.getBoundingClientRect();
          return r.width > 1 && (r.left < left || r.right > right);
        })
        .map((el) => `${el.tagName.toLowerCase()}.${String(el.getAttribute('class') ?? '')}`);
    });
    expect(spilling, `elements outside the card on "${label}"`).toEqual([]);

    // Against the device width: on a phone, content wider than the screen widens the page itself.
    const width = await this.page.evaluate(() => document.documentElement.scrollWidth);
    expect(width, `page width on "${label}"`).toBeLessThanOrEqual(this.page.viewportSize()!.width);
  }

  heading() {
    return this.card.locator('h2');
  }

  /** The wallet's entry in the list. */
  wallet(name: string) {
    return this.card.getByRole('button', { name: new RegExp(`^${name}`) });
  }

  /** Follows the "Add to Apple Wallet" link the way a person does and checks the .pkpass it gives. */
  async downloadPass(how: 'click' | 'tap' = 'click'): Promise<InspectedPass> {
    const link = this.card.getByRole('link', { name: 'Add to Apple Wallet' });
    const [download] = await Promise.all([this.page.waitForEvent('download'), how === 'tap' ? link.tap() : link.click()]);
    const file = await download.path();
    const { readFileSync } = await import('node:fs');
    const pass = inspectPkpass(readFileSync(file));
    expect(pass.manifestMismatches, 'every file in manifest.json with its SHA-1').toEqual([]);
    const verified = pass.opensslVerify();
    expect(verified.ok, verified.output).toBe(true);
    expect(pass.passJson.formatVersion).toBe(1);
    return pass;
  }

  /** Every layout shift the page made without input just before it, with the elements that moved. */
  async layoutShifts(): Promise<{ value: number; what: string }[]> {
    return this.page.evaluate(() => (window as unknown as { __layoutShifts: { value: number; what: string }[] }).__layoutShifts);
  }
}

/** Starts a server of the test's own on a free port (a configuration no other test shares, or one it stops). */
export type StartServer = (options?: Omit<ServerOptions, 'port'>) => Promise<TestServer>;

export const test = base.extend<{ claim: ClaimPage; startServer: StartServer }>({
  page: async ({ page }, use) => {
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('console', (message) => {
      if (/Content Security Policy|Refused to (load|execute|apply|connect)/i.test(message.text())) problems.push(`CSP: ${message.text()}`);
    });
    await page.addInitScript(observeLayoutShift);
    await use(page);
    expect(problems, 'script errors or CSP violations').toEqual([]);
  },
  claim: async ({ page }, use, info) => {
    const claim = new ClaimPage(page, info);
    await use(claim);
    const shifts = await claim.layoutShifts().catch(() => []);
    const total = shifts.reduce((sum, shift) => sum + shift.value, 0);
    expect(total, `cumulative layout shift: ${JSON.stringify(shifts)}`).toBeLessThan(0.01);
  },
  // biome-ignore lint/correctness/noEmptyPattern: Playwright reads a fixture's dependencies from this destructuring; it has none.
  startServer: async ({}, use) => {
    const started: TestServer[] = [];
    await use(async (options = {}) => {
      const server = new TestServer({ port: await freePort(), ...options });
      started.push(server);
      await server.start();
      return server;
    });
    await Promise.all(started.map((server) => server.dispose()));
  },
});

export { expect };
