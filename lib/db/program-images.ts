// The `program_images` table: a program's images as its passes carry them (@1x, @2x and @3x files,
// already decoded, re-encoded and resized: lib/programs/images.ts). Replacing an image replaces all
// of its files in one statement, and moves the program's version in the same statement, so its
// passes are rebuilt with it: the statement is the program's change (./programs.ts changeProgram),
// and this module gives it the part on this table (IMAGE_CHANGE_CTES).
import { type Queryable, VERSION_OF } from './sql';

/** The image slots of a program (Apple's names). */
export const IMAGE_KINDS = ['logo', 'icon', 'strip', 'thumbnail', 'background'] as const;
export type ImageKind = (typeof IMAGE_KINDS)[number];

export type ProgramImageFile = { kind: ImageKind; file: string; bytes: Buffer; sha1: string; width: number; height: number };

/** One kind's new files; none: the image is removed. */
export type ImageChange = { kind: ImageKind; files: Omit<ProgramImageFile, 'kind'>[] };

/** Every image file of a program. */
export async function programImageFiles(db: Queryable, program: string): Promise<ProgramImageFile[]> {
  const rows = await db.query<Omit<ProgramImageFile, 'bytes'> & { bytes: Uint8Array }>(
    `select kind, file, bytes, sha1, width, height from program_images where program = $1 order by file`,
    [program],
  );
  return rows.map((row) => ({ ...row, bytes: Buffer.from(row.bytes) }));
}

/** The names (not the bytes) of a program's files of one kind. */
export async function imageFileNames(db: Queryable, program: string, kind: ImageKind): Promise<string[]> {
  const rows = await db.query<{ file: string }>(`select file from program_images where program = $1 and kind = $2 order by file`, [program, kind]);
  return rows.map((row) => row.file);
}

/**
 * Every image file of a program and the program's version, read in one statement, so the files
 * are those of that version (a cache keyed by the version never keeps another's files). Undefined
 * when no program has that slug.
 */
export async function programImagesAtVersion(db: Queryable, program: string): Promise<{ version: string; files: ProgramImageFile[] } | undefined> {
  const rows = await db.query<{ version: string } & ({ [K in keyof ProgramImageFile]: null } | (Omit<ProgramImageFile, 'bytes'> & { bytes: Uint8Array }))>(
    `select ${VERSION_OF('g.updated_at')} as version, i.kind, i.file, i.bytes, i.sha1, i.width, i.height
     from programs g left join program_images i on i.program = g.slug
     where g.slug = $1 order by i.file`,
    [program],
  );
  const [first] = rows;
  if (!first) return undefined;
  const files: ProgramImageFile[] = [];
  for (const row of rows) if (row.file !== null) files.push({ ...row, bytes: Buffer.from(row.bytes) });
  return { version: first.version, files };
}

/** The change as its statement reads it: the kind (null: no image change) and the files as one jsonb parameter, bytes in base64. */
export function imageChangeParameters(change: ImageChange | undefined): [string | null, string] {
  if (!change) return [null, '[]'];
  const files = change.files.map((f) => ({ file: f.file, bytes: f.bytes.toString('base64'), sha1: f.sha1, width: f.width, height: f.height }));
  return [change.kind, JSON.stringify(files)];
}

/**
 * The CTEs that replace one kind's files of the program the statement's `changed` CTE returns
 * (nothing when it returned none, or when `kindParam` is null): the kind's files not in the new
 * set are deleted, the new ones written over the old. The delete never touches a file the insert
 * writes, so the two parts of one statement cannot meet on a row.
 */
export const IMAGE_CHANGE_CTES = (kindParam: string, filesParam: string) => `image_files as (
    select f.* from jsonb_to_recordset(${filesParam}::jsonb) as f(file text, bytes text, sha1 text, width int, height int)
  ),
  image_removed as (
    delete from program_images i using changed c
    where ${kindParam}::text is not null and i.program = c.slug and i.kind = ${kindParam}::text
      and i.file not in (select file from image_files)
  ),
  image_written as (
    insert into program_images (program, kind, file, bytes, sha1, width, height)
    select c.slug, ${kindParam}::text, f.file, decode(f.bytes, 'base64'), f.sha1, f.width, f.height
    from changed c, image_files f
    where ${kindParam}::text is not null
    on conflict (program, file) do update set
      kind = excluded.kind, bytes = excluded.bytes, sha1 = excluded.sha1, width = excluded.width, height = excluded.height
  )`;

/** The kinds of image a program has (no bytes read): what its claim page links to. */
export async function programImageKinds(db: Queryable, program: string): Promise<ImageKind[]> {
  const rows = await db.query<{ kind: ImageKind }>(`select distinct kind from program_images where program = $1 order by kind`, [program]);
  return rows.map((row) => row.kind);
}
