// A program's images as its passes carry them: the files of program_images (already decoded,
// re-encoded and resized when uploaded) and their manifest hashes, read once per program version.
// An upload or removal moves the program's version, so a cached set is never served after a change.
import { programImageFiles } from '../db/program-images';
import type { Program } from '../db/programs';
import type { Store } from '../db/store';

export type ProgramImages = { files: Record<string, Buffer>; sha1: Record<string, string> };

/** The latest version read of each program (one entry per program: an older version is dropped when a newer one is read). */
const cache = new Map<string, { version: string; images: Promise<ProgramImages> }>();

/** The image files of `program` at its version, read from the database once per (slug, version) in this process. */
export function programImages(store: Pick<Store, 'sql'>, program: Pick<Program, 'slug' | 'version'>): Promise<ProgramImages> {
  const known = cache.get(program.slug);
  if (known && known.version === program.version) return known.images;
  const images = programImageFiles(store.sql, program.slug).then((rows) => ({
    files: Object.fromEntries(rows.map((row) => [row.file, row.bytes])),
    sha1: Object.fromEntries(rows.map((row) => [row.file, row.sha1])),
  }));
  cache.set(program.slug, { version: program.version, images });
  // A failed read is not kept: the next build asks the database again.
  images.catch(() => {
    if (cache.get(program.slug)?.images === images) cache.delete(program.slug);
  });
  return images;
}
