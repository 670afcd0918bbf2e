// `npm run size`: the pages' JavaScript, measured on the production build as a browser gets it.
// Starts the real server on the build and, for each page (the claim page `/` and the operator
// console `/operator`), weighs every script its HTML loads at first paint (gzip -9, and brotli for
// reference); then, in Chromium with no wallet installed (so the page loads the wallet stack at
// once to look for one), every script the page has loaded once the network is quiet: the first
// load plus the wallet stack. Last, the chunks no first load includes. Exits 1 when a page's first
// load is over the budget. Options: --port <n> (default 3449).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { TestServer } from '../e2e/support/server';
import { launchChromium } from './support/chromium';

/** The pages and what their first paint must not need. */
const PAGES = ['/', '/operator'] as const;

/** The budget: 250 kB of gzip JavaScript at first load (kB = 1000 bytes, the stricter reading). */
const BUDGET_BYTES = 250_000;

type Weighed = { file: string; raw: number; gzip: number; brotli: number };

function weigh(file: string, bytes: Buffer): Weighed {
  return {
    file,
    raw: bytes.length,
    gzip: gzipSync(bytes, { level: 9 }).length,
    brotli: brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length,
  };
}

const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;
const total = (list: Weighed[], key: keyof Omit<Weighed, 'file'>) => list.reduce((sum, w) => sum + w[key], 0);

function table(title: string, list: Weighed[]): void {
  console.log(`\n${title}`);
  for (const w of [...list].sort((a, b) => b.gzip - a.gzip)) {
    console.log(`  ${w.file.padEnd(52)} ${kib(w.raw).padStart(11)} raw ${kib(w.gzip).padStart(10)} gzip ${kib(w.brotli).padStart(10)} br`);
  }
  console.log(`  ${'total'.padEnd(52)} ${kib(total(list, 'raw')).padStart(11)} raw ${kib(total(list, 'gzip')).padStart(10)} gzip ${kib(total(list, 'brotli')).padStart(10)} br`);
}

/** The non-polyfill scripts of a page's HTML, weighed; the nomodule polyfills' names go to `polyfills`. */
async function firstLoadOf(origin: string, page: string, polyfills: Set<string>): Promise<{ html: string; scripts: Weighed[] }> {
  const html = await (await fetch(`${origin}${page}`)).text();
  const scripts: Weighed[] = [];
  // Scripts a modern browser runs at first paint: every <script src> except the nomodule
  // polyfills, which only browsers without ES modules download.
  for (const [, attributes] of html.matchAll(/<script\b([^>]*)>/g)) {
    const src = /\bsrc="([^"]+)"/.exec(attributes!)?.[1];
    if (!src) continue;
    const file = path.basename(src);
    if (/\bnomodule\b/i.test(attributes!)) {
      polyfills.add(file);
    } else if (!scripts.some((w) => w.file === file)) {
      const response = await fetch(new URL(src, origin));
      scripts.push(weigh(file, Buffer.from(await response.arrayBuffer())));
    }
  }
  return { html, scripts };
}

/** Every script the page has loaded in Chromium once the network is quiet, with no wallet in the browser. */
async function withWalletStackOf(origin: string, page: string): Promise<Weighed[]> {
  const browser = await launchChromium();
  try {
    const tab = await browser.newPage();
    const urls = new Set<string>();
    tab.on('request', (request) => {
      if (request.resourceType() === 'script' && request.url().startsWith(origin)) urls.add(request.url());
    });
    await tab.goto(`${origin}${page}`, { waitUntil: 'networkidle' });
    await tab.waitForTimeout(500);
    const scripts: Weighed[] = [];
    for (const url of urls) {
      const response = await fetch(url);
      scripts.push(weigh(path.basename(new URL(url).pathname), Buffer.from(await response.arrayBuffer())));
    }
    return scripts;
  } finally {
    await browser.close();
  }
}

async function main(): Promise<void> {
  const portArg = process.argv.indexOf('--port');
  const port = portArg === -1 ? 3449 : Number(process.argv[portArg + 1]);
  if (!existsSync(path.join(process.cwd(), '.next', 'BUILD_ID'))) {
    console.error('page-weight: no production build in .next; run `npm run build` first.');
    process.exit(2);
  }

  const server = new TestServer({ port });
  await server.start(180_000); // a busy machine can take a while
  const polyfills = new Set<string>();
  const results: { page: string; html: string; firstLoad: Weighed[]; withStack: Weighed[] }[] = [];
  try {
    for (const page of PAGES) {
      const { html, scripts } = await firstLoadOf(server.url, page, polyfills);
      results.push({ page, html, firstLoad: scripts, withStack: await withWalletStackOf(server.url, page) });
    }
  } finally {
    await server.dispose();
  }

  for (const { page, html, firstLoad, withStack } of results) {
    table(`First load of ${page} (scripts in the HTML)`, firstLoad);
    const loaded = new Set(firstLoad.map((w) => w.file));
    table(`${page}: added by the wallet stack (Chromium, no wallet installed, network quiet)`, withStack.filter((w) => !loaded.has(w.file)));
    const htmlWeight = weigh(`HTML of ${page}`, Buffer.from(html));
    console.log(`\nHTML of ${page}: ${kib(htmlWeight.raw)} raw, ${kib(htmlWeight.gzip)} gzip`);
  }

  const chunksDir = path.join(process.cwd(), '.next', 'static', 'chunks');
  const everLoaded = new Set(results.flatMap((r) => [...r.firstLoad, ...r.withStack].map((w) => w.file)));
  const later = readdirSync(chunksDir)
    .filter((file) => file.endsWith('.js') && !everLoaded.has(file) && !polyfills.has(file))
    .map((file) => weigh(file, readFileSync(path.join(chunksDir, file))));
  const legacy = [...polyfills].map((file) => weigh(file, readFileSync(path.join(chunksDir, file))));
  table('Loaded later still (the QR encoder of the claim result, error pages, the other page’s parts)', later);
  table('Polyfills for browsers without ES modules (nomodule: others never download them)', legacy);

  console.log('');
  let over = false;
  for (const { page, firstLoad, withStack } of results) {
    const firstLoadGzip = total(firstLoad, 'gzip');
    const stackGzip = total(withStack, 'gzip');
    const verdict = firstLoadGzip <= BUDGET_BYTES ? 'within' : 'OVER';
    over ||= verdict === 'OVER';
    console.log(
      `${page.padEnd(10)} first-load JavaScript: ${kib(firstLoadGzip)} gzip (${(firstLoadGzip / 1000).toFixed(1)} kB), ${verdict} the budget of ${BUDGET_BYTES / 1000} kB;` +
        ` with the wallet stack: ${kib(stackGzip)} gzip.`,
    );
  }
  if (over) process.exit(1);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
