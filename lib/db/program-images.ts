// The `program_images` table: a program's images as its passes carry them (@1x, @2x and @3x files,
// already decoded, re-encoded and resized: lib/programs/images.ts). Replacing an image replaces all
// of its files in one statement, and moves the program's version in the same statement, so its
// passes are rebuilt with it.
import type { Queryable } from './sql';

/** The image slots of a program (Apple's names). */
export const IMAGE_KINDS = ['logo', 'icon', 'strip', 'thumbnail', 'background'] as const;
export type ImageKind = (typeof IMAGE_KINDS)[number];

export type ProgramImageFile = { kind: ImageKind; file: string; bytes: Buffer; sha1: string; width: number; height: number };

/** Every image file of a program. */
export async function programImageFiles(db: Queryable, program: string): Promise<ProgramImageFile[]> {
  const rows = await db.query<Omit<ProgramImageFile, 'bytes'> & { bytes: Uint8Array }>(
    `select kind, file, bytes, sha1, width, height from program_images where program = $1 order by file`,
    [program],
  );
  return rows.map((row) => ({ ...row, bytes: Buffer.from(row.bytes) }));
}

/** The kinds of image a program has (no bytes read): what its claim page links to. */
export async function programImageKinds(db: Queryable, program: string): Promise<ImageKind[]> {
  const rows = await db.query<{ kind: ImageKind }>(`select distinct kind from program_images where program = $1 order by kind`, [program]);
  return rows.map((row) => row.kind);
}
