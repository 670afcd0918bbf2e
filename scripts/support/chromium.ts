// Chromium for browser tests and the page-weight script (npm run measure:pages), through playwright-core (Playwright cannot
// download its own browsers here; Debian's chromium works). Without it they fail and say how to get it.
import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Headless, and none of the background connections a closed network refuses (Google's hosts, updates, sync). */
export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/**
 * A camera where there is none: Chromium's fake capture device (a moving test pattern, or with
 * `--use-file-for-fake-video-capture=<file.y4m>` that file in a loop), its permission prompt answered yes.
 */
export const FAKE_CAMERA_ARGS = ['--use-fake-ui-for-media-stream', '--use-fake-device-for-media-stream'];

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(`Browser tests need Chromium at ${CHROMIUM_PATH}: apt-get install -y chromium, or set CHROMIUM_PATH.`);
  }
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: CHROMIUM_ARGS,
  });
}
