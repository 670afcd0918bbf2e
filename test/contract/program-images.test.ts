// Program images (CONTRACT.md "Programs", the PUT and DELETE lines): uploads decoded and re-encoded
// into Apple's @1x/@2x/@3x PNGs without metadata, every bad image a 400 invalid_image (the service
// serving on after each), the size and type limits, removal, who may see an image, and a change
// reaching the program's passes in the upload's own statement. Through the real frame on a real
// database; every answer held against the OpenAPI document, and every documented one seen.
import { randomBytes } from 'node:crypto';
import { crc32, deflateSync } from 'node:zlib';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApiDocument } from '@/lib/api/endpoints';
import { programImages } from '@/lib/programs/images';
import { BACKENDS, TestApp, TestWallet } from '../support/app';
import { ResponseChecker } from '../support/openapi';

const BASE = 'https://passes.example.com';
const IMAGE = '/api/v1/operator/programs/{slug}/images/{kind}';
const PUBLIC_IMAGE = '/api/v1/programs/{slug}/images/{kind}';
const PROGRAMS = '/api/v1/operator/programs';

type Json = Record<string, any>;
type FileInfo = { file: string; width: number; height: number; bytes: number };

/** A PNG of `width` x `height` whose header says so but whose data holds a few rows: what a decompression bomb looks like before decoding. */
function pngDeclaring(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 6, 0, 0, 0], 8); // 8-bit RGBA, deflate, no filter, no interlace
  // Rows of zeros compress about a thousand to one: a whole image of them would fit in 2 MiB.
  const rows = deflateSync(Buffer.alloc((width * 4 + 1) * 8));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', rows),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** An image of noise (it does not compress), as PNG or JPEG. */
async function noise(width: number, height: number, format: 'png' | 'jpeg'): Promise<Buffer> {
  const pixels = randomBytes(width * height * 3);
  const image = sharp(pixels, { raw: { width, height, channels: 3 } });
  return format === 'png' ? image.png().toBuffer() : image.jpeg().toBuffer();
}

describe.each(BACKENDS)('program images on %s', (backend) => {
  const checker = new ResponseChecker(openApiDocument(BASE));
  const operator = new TestWallet();
  let app: TestApp;
  let token: string;
  let goodPng: Buffer;

  beforeAll(async () => {
    app = await TestApp.open(backend, { PUBLIC_BASE_URL: BASE, OPERATOR_WALLETS: operator.publicKey });
    token = await app.operatorToken(operator);
    goodPng = await sharp({ create: { width: 400, height: 200, channels: 4, background: '#3366ffcc' } })
      .png()
      .withExif({ IFD0: { Artist: 'Jane Doe', Copyright: 'Jane Doe 2026' } })
      .toBuffer();
    for (const [slug, status, style] of [
      ['summit', 'live', 'eventTicket'],
      ['members', 'live', 'storeCard'],
      ['secret', 'draft', 'generic'],
    ] as const) {
      const created = await call('POST', PROGRAMS, PROGRAMS, {
        headers: { ...auth(), 'content-type': 'application/json' },
        body: JSON.stringify({ slug, name: `The ${slug}`, status, design: { style } }),
      });
      expect(created.status).toBe(201);
    }
  });
  afterAll(() => app.close());

  const auth = () => ({ authorization: `Bearer ${token}` });

  /** Sends a request and checks the answer against the document's entry for `route`. */
  const call = async (method: string, route: string, path: string, init: RequestInit = {}) => {
    const response = await app.fetch(path, { method, ...init });
    const { status, headers } = response;
    const body = (await checker.check(method, route, response)) ?? {};
    return { status, headers, body: body as Json & Uint8Array };
  };
  const put = (slug: string, kind: string, bytes: Uint8Array | string, type = 'image/png', headers: Record<string, string> = auth()) =>
    call('PUT', IMAGE, `/api/v1/operator/programs/${slug}/images/${kind}`, {
      headers: { ...headers, 'content-type': type },
      body: typeof bytes === 'string' ? bytes : new Uint8Array(bytes),
    });
  const operatorGet = (slug: string, kind: string, headers: Record<string, string> = auth()) =>
    call('GET', IMAGE, `/api/v1/operator/programs/${slug}/images/${kind}`, { headers });
  const publicGet = (slug: string, kind: string, headers: Record<string, string> = {}) =>
    call('GET', PUBLIC_IMAGE, `/api/v1/programs/${slug}/images/${kind}`, { headers });
  const remove = (slug: string, kind: string, headers: Record<string, string> = auth()) =>
    call('DELETE', IMAGE, `/api/v1/operator/programs/${slug}/images/${kind}`, { headers });

  /** Each file of an answer is a PNG of the size it says, without metadata, and never the upload. */
  const expectFiles = async (slug: string, kind: string, files: FileInfo[], upload: Buffer) => {
    expect(files.map((f) => f.file)).toEqual([`${kind}.png`, `${kind}@2x.png`, `${kind}@3x.png`]);
    const [one, two, three] = files as [FileInfo, FileInfo, FileInfo];
    expect([two.width, two.height, three.width, three.height]).toEqual([one.width * 2, one.height * 2, one.width * 3, one.height * 3]);
    const stored = (await programImages(app.services.store, (await app.services.programs.find(slug))!)).files;
    for (const file of files) {
      const bytes = stored[file.file]!;
      expect(bytes.length).toBe(file.bytes);
      expect(bytes.equals(upload)).toBe(false);
      const metadata = await sharp(bytes).metadata();
      expect([metadata.format, metadata.width, metadata.height]).toEqual(['png', file.width, file.height]);
      expect([metadata.exif, metadata.icc, metadata.xmp, metadata.iptc, metadata.comments]).toEqual([undefined, undefined, undefined, undefined, undefined]);
    }
    expect(upload.includes('Jane Doe')).toBe(true);
    for (const bytes of Object.values(stored)) expect(bytes.includes('Jane Doe')).toBe(false);
  };

  it('a PNG logo: 200 with its three sizes, within 160x50 points, its metadata stripped', async () => {
    expect((await sharp(goodPng).metadata()).exif).toBeDefined();
    const answer = await put('summit', 'logo', goodPng);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ program: 'summit', kind: 'logo' });
    expect(answer.body.files.map((f: FileInfo) => [f.width, f.height])).toEqual([
      [100, 50],
      [200, 100],
      [300, 150],
    ]);
    await expectFiles('summit', 'logo', answer.body.files, goodPng);
  });

  it('a JPEG strip: 200, cropped to the style’s strip (event ticket 375x98, store card 375x144), EXIF gone', async () => {
    const jpeg = await sharp(await noise(900, 600, 'jpeg'))
      .jpeg()
      .withExif({ IFD0: { Artist: 'Jane Doe' } })
      .toBuffer();
    const ticket = await put('summit', 'strip', jpeg, 'image/jpeg');
    expect(ticket.status).toBe(200);
    expect(ticket.body.files.map((f: FileInfo) => `${f.width}x${f.height}`)).toEqual(['375x98', '750x196', '1125x294']);
    await expectFiles('summit', 'strip', ticket.body.files, jpeg);
    const card = await put('members', 'strip', jpeg, 'image/jpeg');
    expect(card.body.files.map((f: FileInfo) => `${f.width}x${f.height}`)).toEqual(['375x144', '750x288', '1125x432']);
  });

  it('a photo taken sideways is turned upright by its EXIF orientation; an icon is square, nothing cut', async () => {
    const sideways = await sharp({ create: { width: 200, height: 100, channels: 3, background: '#ff0000' } })
      .jpeg()
      .withMetadata({ orientation: 6 })
      .withExif({ IFD0: { Artist: 'Jane Doe' } })
      .toBuffer();
    const thumbnail = await put('summit', 'thumbnail', sideways, 'image/jpeg');
    expect(thumbnail.body.files.map((f: FileInfo) => `${f.width}x${f.height}`)).toEqual(['45x90', '90x180', '135x270']);
    await expectFiles('summit', 'thumbnail', thumbnail.body.files, sideways);
    const icon = await put('summit', 'icon', goodPng);
    expect(icon.body.files.map((f: FileInfo) => `${f.width}x${f.height}`)).toEqual(['29x29', '58x58', '87x87']);
    // contain: the wide image is letterboxed in transparency, not cropped.
    const icon3x = (await programImages(app.services.store, (await app.services.programs.find('summit'))!)).files['icon@3x.png']!;
    const { data, info } = await sharp(icon3x).raw().toBuffer({ resolveWithObject: true });
    expect(info.channels).toBe(4);
    expect(data[3]).toBe(0); // the top-left corner is transparent
    expect(data[(43 * 87 + 43) * 4 + 3]).toBeGreaterThan(0); // the middle is the image
  });

  it('bad images: each 400 invalid_image, answered, and the service keeps serving', async () => {
    const truncated = await noise(300, 300, 'png');
    const truncatedJpeg = await noise(300, 300, 'jpeg');
    const bad: [string, Uint8Array, string][] = [
      ['a bomb declaring 30000x30000', pngDeclaring(30_000, 30_000), 'image/png'],
      ['a bomb declaring 9000x9000 (81 megapixels)', pngDeclaring(9000, 9000), 'image/png'],
      ['a truncated PNG', truncated.subarray(0, Math.floor(truncated.length / 2)), 'image/png'],
      ['a truncated JPEG', truncatedJpeg.subarray(0, Math.floor(truncatedJpeg.length * 0.9)), 'image/jpeg'],
      ['a PNG sent as image/jpeg', goodPng, 'image/jpeg'],
      ['a JPEG sent as image/png', await noise(50, 50, 'jpeg'), 'image/png'],
      [
        'a 20,000-pixel-wide PNG',
        await sharp({ create: { width: 20_000, height: 4, channels: 3, background: '#000' } })
          .png()
          .toBuffer(),
        'image/png',
      ],
      [
        'a GIF',
        await sharp({ create: { width: 10, height: 10, channels: 3, background: '#000' } })
          .gif()
          .toBuffer(),
        'image/png',
      ],
      ['random bytes', Uint8Array.from({ length: 5000 }, (_, i) => (i * 131 + 17) % 256), 'image/png'],
      ['nothing', new Uint8Array(), 'image/png'],
    ];
    expect(truncated.length).toBeGreaterThan(100_000);
    for (const [what, bytes, type] of bad) {
      const answer = await put('summit', 'background', bytes, type);
      expect([what, answer.status, answer.body.code]).toEqual([what, 400, 'invalid_image']);
      expect(answer.body.detail).toBeTruthy();
    }
    expect((await operatorGet('summit', 'background')).body.code).toBe('image_not_found');
    const good = await put('summit', 'background', goodPng);
    expect(good.status).toBe(200);
    expect(good.body.files.map((f: FileInfo) => `${f.width}x${f.height}`)).toEqual(['180x220', '360x440', '540x660']);
  });

  it('what the messages say', async () => {
    expect((await put('summit', 'logo', goodPng, 'image/jpeg')).body.detail).toMatch(/PNG sent as image\/jpeg/);
    expect((await put('summit', 'logo', pngDeclaring(30_000, 30_000))).body.detail).toMatch(/30000x30000 pixels: at most 10000 a side/);
    expect((await put('summit', 'logo', pngDeclaring(9000, 9000))).body.detail).toMatch(/at most 25 megapixels/);
  });

  it('2 MiB + 1 byte: 413; 2 MiB: read (and, not being an image, 400); another type: 415', async () => {
    const limit = 2 * 1024 * 1024;
    const over = await put('summit', 'logo', new Uint8Array(limit + 1));
    expect([over.status, over.body.code]).toEqual([413, 'payload_too_large']);
    // Sent without a Content-Length: the reading stops one byte past the limit.
    let sent = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        sent += 64 * 1024;
        controller.enqueue(new Uint8Array(64 * 1024));
      },
    });
    const streamed = await app.fetch('/api/v1/operator/programs/summit/images/logo', {
      method: 'PUT',
      headers: { ...auth(), 'content-type': 'image/png' },
      body: endless,
      duplex: 'half',
    } as RequestInit);
    expect(streamed.status).toBe(413);
    expect(sent).toBeLessThan(limit + 4 * 64 * 1024);
    const at = await put('summit', 'logo', new Uint8Array(limit));
    expect([at.status, at.body.code]).toEqual([400, 'invalid_image']);
    for (const type of ['text/plain', 'image/gif', 'application/json']) {
      const answer = await put('summit', 'logo', goodPng, type);
      expect([type, answer.status, answer.body.code]).toEqual([type, 415, 'unsupported_media_type']);
    }
    const untyped = await call('PUT', IMAGE, '/api/v1/operator/programs/summit/images/logo', { headers: auth(), body: new Uint8Array(goodPng) });
    expect(untyped.status).toBe(415);
  });

  it('a published program’s image is public: the @2x file, a strong ETag, Cache-Control, 304', async () => {
    await put('summit', 'logo', goodPng);
    const seen = await operatorGet('summit', 'logo');
    expect(seen.status).toBe(200);
    expect(seen.headers.get('content-type')).toBe('image/png');
    expect(seen.headers.get('cache-control')).toBe('private, no-cache');
    const shown = await publicGet('summit', 'logo');
    expect(shown.status).toBe(200);
    expect((await sharp(shown.body).metadata()).width).toBe(200);
    expect(Buffer.from(shown.body).equals(Buffer.from(seen.body))).toBe(true);
    const etag = shown.headers.get('etag')!;
    expect(etag).toMatch(/^"[0-9a-f]{40}"$/);
    expect(shown.headers.get('cache-control')).toBe('public, max-age=300');
    const again = await publicGet('summit', 'logo', { 'if-none-match': etag });
    expect([again.status, again.headers.get('etag')]).toEqual([304, etag]);
    expect((await operatorGet('summit', 'logo', { ...auth(), 'if-none-match': etag })).status).toBe(304);
    // A new image: a new ETag.
    await put('summit', 'logo', await noise(320, 100, 'png'));
    const changed = await publicGet('summit', 'logo', { 'if-none-match': etag });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(etag);
  });

  it('a draft’s image is the operator’s only: 404 program_not_found to anyone else', async () => {
    expect((await put('secret', 'logo', goodPng)).status).toBe(200);
    expect((await operatorGet('secret', 'logo')).status).toBe(200);
    const hidden = await publicGet('secret', 'logo');
    expect([hidden.status, hidden.body.code]).toEqual([404, 'program_not_found']);
    const none = await publicGet('members', 'thumbnail');
    expect([none.status, none.body.code]).toEqual([404, 'image_not_found']);
  });

  it('DELETE removes an image (204), and removing one that is not there changes nothing', async () => {
    expect((await put('members', 'icon', goodPng)).status).toBe(200);
    expect((await publicGet('members', 'icon')).status).toBe(200);
    expect((await remove('members', 'icon')).status).toBe(204);
    expect((await publicGet('members', 'icon')).body.code).toBe('image_not_found');
    expect((await operatorGet('members', 'icon')).body.code).toBe('image_not_found');
    const files = (await programImages(app.services.store, (await app.services.programs.find('members'))!)).files;
    expect(Object.keys(files).filter((file) => file.startsWith('icon'))).toEqual([]);
    const before = (await app.services.programs.find('members'))!.version;
    expect((await remove('members', 'icon')).status).toBe(204);
    expect((await app.services.programs.find('members'))!.version).toBe(before);
  });

  it('an unknown program: 404 program_not_found; an unknown kind: 400 naming it; no credential: 401', async () => {
    for (const answer of [
      await put('nowhere', 'logo', goodPng),
      await remove('nowhere', 'logo'),
      await operatorGet('nowhere', 'logo'),
      await publicGet('nowhere', 'logo'),
    ]) {
      expect([answer.status, answer.body.code]).toEqual([404, 'program_not_found']);
    }
    for (const answer of [
      await put('summit', 'banner', goodPng),
      await remove('summit', 'banner'),
      await operatorGet('summit', 'banner'),
      await publicGet('summit', 'banner'),
    ]) {
      expect([answer.status, answer.body.code, answer.body.fields?.[0]?.field]).toEqual([400, 'invalid_request', 'kind']);
    }
    for (const answer of [await put('summit', 'logo', goodPng, 'image/png', {}), await remove('summit', 'logo', {}), await operatorGet('summit', 'logo', {})]) {
      expect([answer.status, answer.body.code]).toEqual([401, 'unauthorized']);
    }
  });

  it('an upload reaches the program’s passes in its own statement: new versions, and an update with its planning job', async () => {
    const wallet = new TestWallet();
    const { message } = (await (await app.fetch(`/api/v1/claim/init?publicKey=${wallet.publicKey}&program=summit`)).json()) as { message: string };
    const claimed = await app.postClaim({ message, signature: wallet.sign(message), publicKey: wallet.publicKey, program: 'summit' });
    expect(claimed.status).toBe(201);
    const { downloadUrl } = (await claimed.json()) as { downloadUrl: string };
    const download = downloadUrl.slice(BASE.length);
    const first = (await app.fetch(download)).headers.get('etag');
    const sql = app.services.store.sql;
    const jobs = async () =>
      (
        await sql.query<{ n: number }>(
          `select count(*)::int as n from jobs j join updates u on u.id = j.payload->>'update' where j.kind = 'update.plan' and u.program = 'summit'`,
        )
      )[0]!.n;
    const jobsBefore = await jobs();
    const programBefore = (await app.services.programs.find('summit'))!;
    const imagesBefore = await programImages(app.services.store, programBefore);

    expect((await put('summit', 'thumbnail', await noise(120, 90, 'png'))).status).toBe(200);

    const programAfter = (await app.services.programs.find('summit'))!;
    expect(programAfter.version).not.toBe(programBefore.version);
    expect(await jobs()).toBe(jobsBefore + 1);
    const second = await app.fetch(download, { headers: { 'if-none-match': first! } });
    expect(second.status).toBe(200);
    expect(second.headers.get('etag')).not.toBe(first);
    // Once per change: the files are read once for the new version, then served from memory.
    const imagesAfter = await programImages(app.services.store, programAfter);
    expect(imagesAfter).not.toBe(imagesBefore);
    expect(imagesAfter.sha1['thumbnail@2x.png']).not.toBe(imagesBefore.sha1['thumbnail@2x.png']);
    expect(await programImages(app.services.store, programAfter)).toBe(imagesAfter);
    expect(Object.keys(imagesAfter.files).sort()).toEqual(Object.keys(imagesAfter.sha1).sort());
  });

  it('many uploads at once: each answered, none lost', async () => {
    const upload = await noise(600, 400, 'jpeg');
    const answers = await Promise.all(Array.from({ length: 12 }, () => put('members', 'background', upload, 'image/jpeg')));
    for (const answer of answers) {
      expect([200, 503]).toContain(answer.status);
      if (answer.status === 503) expect(answer.headers.get('retry-after')).toBe('1');
    }
    expect(answers.filter((answer) => answer.status === 200).length).toBeGreaterThanOrEqual(10);
  });

  it('a wallet no longer in OPERATOR_WALLETS: 403 forbidden, before the upload is read', async () => {
    await app.restart({ OPERATOR_WALLETS: new TestWallet().publicKey });
    try {
      for (const answer of [await put('summit', 'logo', 'not read'), await remove('summit', 'logo'), await operatorGet('summit', 'logo')]) {
        expect([answer.status, answer.body.code]).toEqual([403, 'forbidden']);
      }
    } finally {
      await app.restart({ OPERATOR_WALLETS: operator.publicKey });
    }
  });

  it('every documented answer of the image endpoints was seen (but 500 and 503, held to the document in openapi.test.ts)', () => {
    const mine = (response: string) => [IMAGE, PUBLIC_IMAGE].includes(response.split(' ')[1]!) && !/ (500|503)$/.test(response);
    const documented = checker.documentedResponses().filter(mine).sort();
    expect(documented.length).toBeGreaterThan(15);
    expect(checker.seenResponses().filter(mine).sort()).toEqual(documented);
  });
});
