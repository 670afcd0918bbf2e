// axe-core on a page, through @axe-core/playwright in its legacy mode: axe.run in the page and in
// each same-origin frame. The default mode also opens a blank page on every call, to merge the
// results of cross-origin frames; for pages without such frames it finds the same violations at
// twice the CPU. A cross-origin frame fails the check here rather than going unchecked. Only the
// violations are collected node by node (resultTypes): the checks read nothing else, and on the
// operator console's long lists collecting every passing node took half of axe's time.
import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';

export async function analyzeAccessibility(page: Page) {
  const origin = new URL(page.url()).origin;
  const foreign = page.frames().filter((frame) => !['about:blank', ''].includes(frame.url()) && new URL(frame.url()).origin !== origin);
  if (foreign.length) throw new Error(`cross-origin frames need axe's default mode: ${foreign.map((frame) => frame.url()).join(', ')}`);
  return new AxeBuilder({ page })
    .setLegacyMode()
    .options({ resultTypes: ['violations'] })
    .analyze();
}
