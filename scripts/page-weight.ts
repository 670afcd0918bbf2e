// `npm run size`: the claim page's JavaScript, measured on the production build as a browser gets
// it. Starts the real server on the build, reads the HTML of `/`, and weighs every script it loads
// at first paint (gzip -9, and brotli for reference); then the chunks that load only later (the
// wallet stack when the person reaches for a wallet, the QR encoder for the result). Exits 1 when
// the first load is over the budget. Options: --port <n> (default 3449).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { TestServer } from '../e2e/support/server';

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

async function main(): Promise<void> {
  const portArg = process.argv.indexOf('--port');
  const port = portArg === -1 ? 3449 : Number(process.argv[portArg + 1]);
  if (!existsSync(path.join(process.cwd(), '.next', 'BUILD_ID'))) {
    console.error('page-weight: no production build in .next; run `npm run build` first.');
    process.exit(2);
  }

  const server = new TestServer({ port });
  await server.start();
  let html: string;
  const firstLoad: Weighed[] = [];
  const polyfills = new Set<string>();
  try {
    html = await (await fetch(`${server.url}/`)).text();
    // Scripts a modern browser runs at first paint: every <script src> except the nomodule
    // polyfills, which only browsers without ES modules download.
    for (const [, attributes] of html.matchAll(/<script\b([^>]*)>/g)) {
      const src = /\bsrc="([^"]+)"/.exec(attributes!)?.[1];
      if (!src) continue;
      const file = path.basename(src);
      if (/\bnomodule\b/i.test(attributes!)) {
        polyfills.add(file);
      } else if (!firstLoad.some((w) => w.file === file)) {
        const response = await fetch(new URL(src, server.url));
        firstLoad.push(weigh(file, Buffer.from(await response.arrayBuffer())));
      }
    }
  } finally {
    await server.dispose();
  }

  const chunksDir = path.join(process.cwd(), '.next', 'static', 'chunks');
  const loaded = new Set(firstLoad.map((w) => w.file));
  const later = readdirSync(chunksDir)
    .filter((file) => file.endsWith('.js') && !loaded.has(file) && !polyfills.has(file))
    .map((file) => weigh(file, readFileSync(path.join(chunksDir, file))));
  const legacy = [...polyfills].map((file) => weigh(file, readFileSync(path.join(chunksDir, file))));

  table('First load of / (scripts in the HTML)', firstLoad);
  table('Loaded later, on demand (the wallet stack on reaching for a wallet, the QR encoder, error pages)', later);
  table('Polyfills for browsers without ES modules (nomodule: others never download them)', legacy);
  const htmlWeight = weigh('HTML of /', Buffer.from(html));
  console.log(`\nHTML of /: ${kib(htmlWeight.raw)} raw, ${kib(htmlWeight.gzip)} gzip`);

  const firstLoadGzip = total(firstLoad, 'gzip');
  const verdict = firstLoadGzip <= BUDGET_BYTES ? 'within' : 'OVER';
  console.log(
    `\nFirst-load JavaScript: ${kib(firstLoadGzip)} gzip (${(firstLoadGzip / 1000).toFixed(1)} kB), ${verdict} the budget of ${BUDGET_BYTES / 1000} kB.`,
  );
  if (verdict === 'OVER') process.exit(1);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
