// /docs in a real browser against the running service: a readable reference of every endpoint,
// the anchors problem `type` URIs point at, nothing fetched from another origin (no CDN, no
// fonts), and none of its renderer's weight on the claim page.
import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENDPOINTS } from '@/lib/api/endpoints';
import { PROBLEM_CODES, problemType } from '@/lib/errors';
import { WALLET_TYPES } from '@/lib/wallet-types';
import { launchChromium } from '../../scripts/support/chromium';
import { type RunningServer, startServer } from '../support/server';

/** Redoc 2.5 always asks for its logo from this CDN; the page's Content-Security-Policy refuses it. */
const REDOC_LOGO = 'https://cdn.redoc.ly/redoc/logo-mini.svg';

describe('/docs, the API reference', () => {
  let service: RunningServer;
  let browser: Browser;
  beforeAll(async () => {
    [service, browser] = await Promise.all([startServer({ LOG_LEVEL: 'warn' }), launchChromium()]);
  });
  afterAll(async () => {
    await browser?.close();
    await service?.dispose();
  });

  /** A browser context that lets nothing leave for another origin, and records what tried to. */
  async function isolatedContext() {
    const context: BrowserContext = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const reachedNetwork: string[] = [];
    const attempted: string[] = [];
    await context.route('**/*', (route) => {
      const url = route.request().url();
      if (new URL(url).origin === service.baseUrl) return route.continue();
      reachedNetwork.push(url);
      return route.abort();
    });
    context.on('request', (request) => {
      const url = request.url();
      if (!url.startsWith(service.baseUrl) && !url.startsWith('blob:') && !url.startsWith('data:')) attempted.push(url);
    });
    return { context, reachedNetwork, attempted };
  }

  it('renders every endpoint, the 13 wallet types and the errors, loading nothing from elsewhere', async () => {
    const { context, reachedNetwork, attempted } = await isolatedContext();
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    const response = await page.goto(`${service.baseUrl}/docs`);
    expect(response!.status()).toBe(200);
    expect(response!.headers()['content-security-policy']).toContain("default-src 'self'");
    await page.getByRole('heading', { name: ENDPOINTS[0]!.summary }).waitFor();
    await page.waitForLoadState('networkidle');

    const text = await page.locator('body').innerText();
    for (const endpoint of ENDPOINTS) expect(text).toContain(endpoint.summary);
    for (const walletType of WALLET_TYPES) expect(text).toContain(walletType);
    for (const code of PROBLEM_CODES) expect(await page.locator(`#problem-${code}`).count(), code).toBe(1);
    expect(await page.evaluate(() => [...document.images].filter((image) => image.complete && image.naturalWidth === 0).length)).toBe(0);
    expect(errors).toEqual([]);
    expect(reachedNetwork).toEqual([]);
    expect(attempted.filter((url) => url !== REDOC_LOGO)).toEqual([]);
    await context.close();
  });

  it('takes a problem’s `type` to that code’s entry', async () => {
    const { context } = await isolatedContext();
    const page = await context.newPage();
    for (const code of ['rate_limited', 'message_expired'] as const) {
      await page.goto(`${service.baseUrl}${problemType(code)}`);
      const entry = page.locator(`#problem-${code}`);
      await entry.waitFor();
      await page.waitForLoadState('networkidle');
      await expect.poll(() => entry.evaluate((element) => Math.round(element.getBoundingClientRect().top))).toBeLessThan(100);
      expect(await entry.evaluate((element) => element.getBoundingClientRect().top)).toBeGreaterThanOrEqual(-2);
      expect(await entry.innerText()).toContain(code);
    }
    await context.close();
  });

  it('sends HTML that names no other origin for a script, style, font or image', async () => {
    const html = await (await fetch(`${service.baseUrl}/docs`)).text();
    expect(html.match(/<(script|link|img|style)\b[^>]*\b(src|href)="(https?:)?\/\/[^"]*"/gi) ?? []).toEqual([]);
    expect(html).not.toMatch(/@import|fonts\.googleapis|cdn\./i);
  });

  it('adds none of its renderer to the claim page', async () => {
    const { context, reachedNetwork } = await isolatedContext();
    const page = await context.newPage();
    const scripts: Promise<string>[] = [];
    page.on('response', (response) => {
      if (response.request().resourceType() === 'script') scripts.push(response.text());
    });
    await page.goto(`${service.baseUrl}/`);
    await page.waitForLoadState('networkidle');
    const bodies = await Promise.all(scripts);
    expect(bodies.length).toBeGreaterThan(0);
    // Strings only the renderer's code carries (Redoc itself, MobX, styled-components).
    const renderer = bodies.flatMap((body) => body.match(/Redocly|RedocStandalone|\bMobX\b|styled-components/g) ?? []);
    expect(renderer).toEqual([]);
    expect(reachedNetwork).toEqual([]);
    await context.close();
  });
});
