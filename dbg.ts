import { chromium } from '@playwright/test';
import { TestServer } from './e2e/support/server';
async function main() {
  const server = new TestServer({ port: 3410 });
  await server.start();
  try {
    const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless','--no-sandbox','--disable-gpu'] });
    const page = await browser.newPage({ viewport: { width: 375, height: 667 } });
    await page.goto(server.url + '/');
    await page.waitForTimeout(1500);
    console.log(await page.evaluate(() => [...document.querySelectorAll('main, main > *, section > *, section > div > *, section > div > div > *')].map(e => `${e.tagName}.${e.className.toString().slice(0,30)} x=${Math.round(e.getBoundingClientRect().x)} w=${Math.round(e.getBoundingClientRect().width)}`).join('\n')));
    await browser.close();
  } finally { await server.dispose(); }
}
main();
