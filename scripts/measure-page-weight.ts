// What each page costs a browser: the JavaScript and CSS it loads (bytes as sent, compressed, and
// decoded) and any request to another origin. Run against a started service:
//   npm run build && npm start            (in one terminal)
//   npm run measure:pages -- --url http://localhost:3000 [--path / --path /docs]
// Needs Chromium (CHROMIUM_PATH, default /usr/bin/chromium).
import { parseArgs } from 'node:util';
import { launchChromium } from './support/chromium';

const { values } = parseArgs({
  options: {
    url: { type: 'string', default: 'http://localhost:3000' },
    path: { type: 'string', multiple: true, default: ['/', '/docs'] },
  },
});
const origin = new URL(values.url!).origin;

type Sizes = { files: number; sent: number; decoded: number };

async function measure(path: string) {
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    const byType: Record<string, Sizes> = {};
    const elsewhere: string[] = [];
    const pending: Promise<void>[] = [];
    const refused: string[] = [];
    page.on('request', (request) => {
      if (!request.url().startsWith(origin) && !/^(blob|data):/.test(request.url())) elsewhere.push(request.url());
    });
    // Requests the page's Content-Security-Policy stopped in the browser: they never left it.
    page.on('requestfailed', (request) => {
      if (request.failure()?.errorText === 'csp') refused.push(request.url());
    });
    page.on('requestfinished', (request) => {
      pending.push(
        (async () => {
          const response = await request.response();
          if (!response) return;
          // Both sizes first, then one synchronous update: `total += await x` would lose concurrent additions.
          const sent = (await request.sizes()).responseBodySize;
          const decoded = (await response.body().catch(() => Buffer.alloc(0))).length;
          const sizes = (byType[request.resourceType()] ??= { files: 0, sent: 0, decoded: 0 });
          sizes.files++;
          sizes.sent += sent;
          sizes.decoded += decoded;
        })(),
      );
    });
    await page.goto(`${origin}${path}`, { waitUntil: 'networkidle' });
    // Sizes arrive after each request finishes: wait until no more are being counted.
    for (let counted = -1; counted !== pending.length; ) {
      counted = pending.length;
      await Promise.all(pending);
      await page.waitForTimeout(250);
    }
    return { byType, sentElsewhere: elsewhere.filter((url) => !refused.includes(url)), refused };
  } finally {
    await browser.close();
  }
}

const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;

(async () => {
  console.log(`page weight at ${origin} (sent = as transferred, compressed; decoded = after decompression)`);
  for (const path of values.path!) {
    const { byType, sentElsewhere, refused } = await measure(path);
    const script = byType.script ?? { files: 0, sent: 0, decoded: 0 };
    const style = byType.stylesheet ?? { files: 0, sent: 0, decoded: 0 };
    console.log(
      `${path.padEnd(8)} JavaScript ${String(script.files).padStart(2)} files ${kib(script.sent).padStart(10)} sent ${kib(script.decoded).padStart(11)} decoded` +
        ` | CSS ${style.files} files ${kib(style.sent)} sent` +
        ` | requests to other origins: ${sentElsewhere.length ? sentElsewhere.join(', ') : 'none'}` +
        (refused.length ? ` (refused by the page's CSP: ${refused.join(', ')})` : ''),
    );
  }
})().catch((error: unknown) => {
  console.error(`measure-page-weight: ${(error as Error).message}`);
  process.exitCode = 1;
});
