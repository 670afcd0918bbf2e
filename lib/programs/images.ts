// A program's images (CONTRACT.md "Programs"; docs/programs.md "Images"). An upload is decoded and
// re-encoded with sharp (libvips) into the @1x, @2x and @3x PNG files of Apple's size for its kind:
// the upload's own bytes are never kept, and no metadata (EXIF, XMP, ICC, text chunks) survives.
// Hostile uploads meet bounds before any pixel is decoded: the real format is read from the bytes
// (and must be the Content-Type's), at most 10,000 pixels a side and 25 megapixels in all (a
// decompression bomb declares more), decoding stops at the first error (a truncated file), and each
// job has a time limit. At most two jobs run at once, each on one libvips thread, so uploads never
// take more than two of the machine's cores nor more than two images' memory.
//
// Images are processed once per upload. A pass build reads them through programImages, cached in
// memory per program version: once per change, never once per pass.
import { createHash } from 'node:crypto';
import sharp, { type Channels, type Metadata, type OutputInfo } from 'sharp';
import { type ImageChange, type ImageKind, imageFileNames, programImagesAtVersion } from '../db/program-images';
import type { Program } from '../db/programs';
import type { Store } from '../db/store';
import { AppError } from '../errors';
import { applyProgramChange, type ProgramsDeps, programNotFound } from './programs';
import type { PassStyle } from './schema';

/** The largest upload (bytes): the endpoint stops reading one byte past it (413). */
export const MAX_IMAGE_BYTES = 2 * 1024 * 1024;
/** The media types an upload may have; the bytes must be the same format. */
export const IMAGE_MEDIA_TYPES = ['image/png', 'image/jpeg'] as const;
/** The most pixels an upload may have on a side, by its header, before anything is decoded. */
export const MAX_IMAGE_SIDE = 10_000;
/** The most pixels an upload may have in all (a 24 MP camera photo fits; a bomb does not). */
export const MAX_IMAGE_PIXELS = 25_000_000;
/** How long one image's decoding and resizing may take (libvips stops it after this). */
const JOB_TIMEOUT_SECONDS = 10;
/** Image jobs running at once in this process, and waiting for their turn (more: 503, retry). */
const MAX_RUNNING = 2;
const MAX_WAITING = 8;
/** The scales Apple asks for: name suffix and factor. */
const SCALES = [
  { suffix: '', factor: 1 },
  { suffix: '@2x', factor: 2 },
  { suffix: '@3x', factor: 3 },
] as const;

// One libvips thread per image (the two jobs at once then use two cores at most), and no libvips
// operation cache: each upload is decoded once, and a cache would only keep its pixels alive.
sharp.concurrency(1);
sharp.cache(false);

/**
 * How an image of a kind is fitted, in points (@1x): Apple's sizes (Wallet Developer Guide, "Pass
 * Design and Creation", and the Human Interface Guidelines' Wallet image dimensions).
 * - `inside`: the whole image, scaled so that it fills the box on one side (logo, thumbnail);
 * - `cover`: fills the box, cropped about its centre (strip, background);
 * - `contain`: the whole image centred in the box, the rest transparent (icon: square, nothing cut).
 */
export type ImageBox = { width: number; height: number; fit: 'inside' | 'cover' | 'contain' };

/**
 * The box of a kind. The icon is 29x29 (the Package Format's size, and the wallet brands' icons
 * of lib/passes/assets). The strip's height depends on the pass style at upload time: 98 for event
 * tickets, 144 for store cards and coupons, 123 otherwise (Apple's three strip sizes); Wallet
 * scales a strip to its width, so a later change of style shows it still, if cropped differently.
 */
export function imageBox(kind: ImageKind, style: PassStyle): ImageBox {
  switch (kind) {
    case 'icon':
      return { width: 29, height: 29, fit: 'contain' };
    case 'logo':
      return { width: 160, height: 50, fit: 'inside' };
    case 'thumbnail':
      return { width: 90, height: 90, fit: 'inside' };
    case 'background':
      return { width: 180, height: 220, fit: 'cover' };
    case 'strip':
      return { width: 375, height: style === 'eventTicket' ? 98 : style === 'storeCard' || style === 'coupon' ? 144 : 123, fit: 'cover' };
  }
}

/** The @1x size of an image of `width` x `height` pixels in `box`; @2x and @3x are exact multiples of it. */
export function pointSize(box: ImageBox, width: number, height: number): { width: number; height: number } {
  if (box.fit !== 'inside') return { width: box.width, height: box.height };
  const scale = Math.min(box.width / width, box.height / height);
  return { width: clamp(Math.round(width * scale), 1, box.width), height: clamp(Math.round(height * scale), 1, box.height) };
}

const clamp = (value: number, min: number, max: number) => Math.min(max, Math.max(min, value));

export type ImageFile = ImageChange['files'][number];

const invalidImage = (detail: string) => new AppError('invalid_image', detail);

/** Bounds what image work may run at once; a job over them waits its turn, or is refused when the queue is full. */
class JobGate {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    private readonly maxRunning: number,
    private readonly maxWaiting: number,
  ) {}

  async run<T>(job: () => Promise<T>): Promise<T> {
    if (this.running < this.maxRunning) this.running++;
    else if (this.waiting.length < this.maxWaiting) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else throw new AppError('service_unavailable', 'Other images are being processed; retry shortly.', { retryAfterSeconds: 1 });
    try {
      return await job();
    } finally {
      // A waiting job takes over this one's place; only when none waits is the place freed.
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }
}

const gate = new JobGate(MAX_RUNNING, MAX_WAITING);

/** What sharp is told about every upload: it is untrusted. */
const INPUT_OPTIONS = { failOn: 'error', limitInputPixels: MAX_IMAGE_PIXELS, sequentialRead: true } as const;

/**
 * Decodes an upload and makes its three PNG files for `kind` (`logo.png`, `logo@2x.png`,
 * `logo@3x.png`): invalid_image unless it is a decodable PNG or JPEG of the type it was sent as,
 * within the size bounds. The pixels are turned upright by their EXIF orientation first.
 */
export function processImage(upload: { type: string; bytes: Uint8Array }, kind: ImageKind, style: PassStyle): Promise<ImageFile[]> {
  return gate.run(async () => {
    const input = Buffer.from(upload.bytes.buffer, upload.bytes.byteOffset, upload.bytes.byteLength);
    const { width, height } = await checkedHeader(input, upload.type);
    const box = imageBox(kind, style);
    const points = pointSize(box, width, height);
    // One decode of the upload, to the largest size; the smaller ones are made from that.
    let largest: { data: Buffer; info: OutputInfo };
    try {
      largest = await sharp(input, { ...INPUT_OPTIONS, autoOrient: true })
        .timeout({ seconds: JOB_TIMEOUT_SECONDS })
        .resize(points.width * 3, points.height * 3, {
          fit: box.fit === 'inside' ? 'fill' : box.fit, // inside: the size already keeps its aspect ratio
          position: 'centre',
          background: { r: 0, g: 0, b: 0, alpha: 0 },
        })
        .toColourspace('srgb')
        .ensureAlpha()
        .raw({ depth: 'uchar' })
        .toBuffer({ resolveWithObject: true });
    } catch (error) {
      throw invalidImage(`The image could not be decoded (${decodeFailure(error)}).`);
    }
    const raw = { width: largest.info.width, height: largest.info.height, channels: largest.info.channels as Channels };
    // One after the other: a job stays on one thread.
    const files: ImageFile[] = [];
    for (const { suffix, factor } of SCALES) {
      const size = { width: points.width * factor, height: points.height * factor };
      const pixels = sharp(largest.data, { raw }).timeout({ seconds: JOB_TIMEOUT_SECONDS });
      const scaled = factor === 3 ? pixels : pixels.resize(size.width, size.height, { fit: 'fill' });
      // No withMetadata/keepMetadata: sharp writes the PNG with nothing but its pixels.
      const bytes = await scaled.png({ compressionLevel: 6 }).toBuffer();
      files.push({ file: `${kind}${suffix}.png`, bytes, sha1: sha1(bytes), ...size });
    }
    return files;
  });
}

/** The upload's real format and upright size, from its header alone; refuses anything out of bounds before decoding. */
async function checkedHeader(input: Buffer, declaredType: string): Promise<{ width: number; height: number }> {
  let metadata: Metadata;
  try {
    // The header alone, never the pixels: read without sharp's pixel limit, so that a bomb is
    // refused below with its size rather than as an unreadable file.
    metadata = await sharp(input, { ...INPUT_OPTIONS, limitInputPixels: false }).metadata();
  } catch {
    throw invalidImage('The body is not a PNG or JPEG image.');
  }
  const { format } = metadata;
  if (format !== 'png' && format !== 'jpeg') {
    throw invalidImage(`The body is ${format ? `a ${format.toUpperCase()} image` : 'not an image'}: send a PNG or JPEG.`);
  }
  if (`image/${format}` !== declaredType) {
    throw invalidImage(`The body is a ${format === 'png' ? 'PNG' : 'JPEG'} sent as ${declaredType}: send it with Content-Type: image/${format}.`);
  }
  const { width, height } = metadata.autoOrient;
  if (!(width > 0 && height > 0)) throw invalidImage('The image has no pixels.');
  if (width > MAX_IMAGE_SIDE || height > MAX_IMAGE_SIDE) {
    throw invalidImage(`The image is ${width}x${height} pixels: at most ${MAX_IMAGE_SIDE} a side.`);
  }
  if (width * height > MAX_IMAGE_PIXELS) {
    throw invalidImage(`The image is ${width}x${height} pixels: at most ${MAX_IMAGE_PIXELS / 1_000_000} megapixels in all.`);
  }
  return { width, height };
}

/** libvips' reason in a few words (its messages name the loader, e.g. "pngload: libpng read error"), or a timeout. */
function decodeFailure(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  if (/timeout/i.test(message)) return `it took over ${JOB_TIMEOUT_SECONDS} s`;
  const line = message.split('\n').find((part) => part.trim() !== '') ?? 'corrupt';
  return line.trim().slice(0, 120);
}

const sha1 = (bytes: Uint8Array) => createHash('sha1').update(bytes).digest('hex');

// ---- The operator's uploads, and who reads them ----

/** What an upload answers: the files made, with their sizes. */
export type ImageSet = { program: string; kind: ImageKind; files: { file: string; width: number; height: number; bytes: number }[] };

/**
 * Replaces a program's image of `kind` with an upload: processed here, then stored in the
 * program's change statement, which gives every pass of the program a new version and enqueues
 * the fan-out that pushes them (lib/programs/changes.ts).
 */
export async function putProgramImage(deps: ProgramsDeps, slug: string, kind: ImageKind, upload: { type: string; bytes: Uint8Array }): Promise<ImageSet> {
  const program = await deps.programs.find(slug);
  if (!program) throw programNotFound();
  const files = await processImage(upload, kind, program.design?.style ?? 'generic');
  await applyProgramChange(deps, slug, {}, true, { kind, files });
  deps.log.info({ event: 'program_image_set', program: slug, kind, bytes: files.reduce((sum, f) => sum + f.bytes.length, 0) }, 'program image set');
  return { program: slug, kind, files: files.map((f) => ({ file: f.file, width: f.width, height: f.height, bytes: f.bytes.length })) };
}

/** Removes a program's image of `kind` (its passes rebuilt and pushed); a kind it does not have is left as it is. */
export async function removeProgramImage(deps: ProgramsDeps, slug: string, kind: ImageKind): Promise<void> {
  const program = await deps.programs.find(slug);
  if (!program) throw programNotFound();
  if ((await imageFileNames(deps.store.sql, slug, kind)).length === 0) return;
  await applyProgramChange(deps, slug, {}, true, { kind, files: [] });
  deps.log.info({ event: 'program_image_removed', program: slug, kind }, 'program image removed');
}

/**
 * The @2x file of a program's image, for the claim page and the console (`operator`: drafts too),
 * with its SHA-1 for an ETag. program_not_found for an unknown program (and a draft, but for an
 * operator); image_not_found when it has no image of that kind.
 */
export async function programImageFile(
  deps: Pick<ProgramsDeps, 'store' | 'programs'>,
  slug: string,
  kind: ImageKind,
  options: { operator: boolean },
): Promise<{ bytes: Buffer; sha1: string }> {
  const program = await deps.programs.find(slug);
  if (!program || (program.status === 'draft' && !options.operator)) throw programNotFound();
  const images = await programImages(deps.store, program);
  const file = `${kind}@2x.png`;
  const bytes = images.files[file];
  const digest = images.sha1[file];
  if (!bytes || !digest) throw new AppError('image_not_found', `“${program.name}” has no ${kind} image.`);
  return { bytes, sha1: digest };
}

/** A program's image files for its passes: each file's bytes, and its SHA-1 for the manifest. */
export type PassImages = { files: Record<string, Buffer>; sha1: Record<string, string> };

/** Per store (each test app has its own database), per program slug: the files of one version. */
const imageCaches = new WeakMap<object, Map<string, { version: string; images: Promise<PassImages> }>>();

/**
 * A program's image files, read once per program version and kept in memory: a pass build calls
 * this for every pass, and only the first after a change reads the database. The files and the
 * version are read in one statement and kept under the version read, so a cache entry never
 * mixes two versions; requests at once share one read.
 */
export function programImages(store: Pick<Store, 'sql'>, program: Pick<Program, 'slug' | 'version'>): Promise<PassImages> {
  let cache = imageCaches.get(store.sql);
  if (!cache) {
    cache = new Map();
    imageCaches.set(store.sql, cache);
  }
  const cached = cache.get(program.slug);
  if (cached && cached.version === program.version) return cached.images;
  const images = (async () => {
    const read = await programImagesAtVersion(store.sql, program.slug);
    const passImages: PassImages = { files: {}, sha1: {} };
    for (const file of read?.files ?? []) {
      passImages.files[file.file] = file.bytes;
      passImages.sha1[file.file] = file.sha1;
    }
    return { version: read?.version ?? program.version, passImages };
  })();
  const result = images.then(({ passImages }) => passImages);
  const programCache = cache;
  // Kept under the version the read saw (which may be newer than the one asked for); a failed read is not kept.
  programCache.set(program.slug, { version: program.version, images: result });
  images.then(
    ({ version }) => {
      if (programCache.get(program.slug)?.images === result) programCache.set(program.slug, { version, images: result });
    },
    () => {
      if (programCache.get(program.slug)?.images === result) programCache.delete(program.slug);
    },
  );
  return result;
}
