// Chromium for browser tests and the page-weight script (npm run measure:pages), through playwright-core (Playwright cannot
// download its own browsers here; Debian's chromium works). Without it they fail and say how to get it.
import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Headless, and none of the background connections a closed network refuses (Google's hosts, updates, sync). */
export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(`Browser tests need Chromium at ${CHROMIUM_PATH}: apt-get install -y chromium, or set CHROMIUM_PATH.`);
  }
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: CHROMIUM_ARGS,
  });
}
