// Request and answer shapes of a program's images (./program-images.ts).
import { z } from 'zod';
import { IMAGE_KINDS } from '../../db/program-images';

export const programImageParamsSchema = z.object({
  // Any slug-sized text: one that names no program is not found (404), as on the other program paths.
  slug: z.string().max(64).meta({ description: 'The program’s slug.' }),
  kind: z.enum(IMAGE_KINDS, { error: `must be one of ${IMAGE_KINDS.join(', ')}` }).meta({
    description:
      'Which image: `icon` (29x29 points, shown on the lock screen and in notifications), `logo` (within ' +
      '160x50), `strip` (375 wide: 98 high for event tickets, 144 for store cards and coupons, 123 ' +
      'otherwise), `thumbnail` (within 90x90) or `background` (180x220, event tickets).',
  }),
});

export const imageSetSchema = z
  .object({
    program: z.string().meta({ description: 'The program’s slug.' }),
    kind: z.enum(IMAGE_KINDS),
    files: z
      .array(
        z.object({
          file: z.string().meta({ description: 'Its name in the pass: `logo.png`, `logo@2x.png`, `logo@3x.png`.' }),
          width: z.number().int().meta({ description: 'Pixels.' }),
          height: z.number().int().meta({ description: 'Pixels.' }),
          bytes: z.number().int().meta({ description: 'Its size in bytes.' }),
        }),
      )
      .meta({ description: 'The @1x, @2x and @3x PNG files made from the upload.' }),
  })
  .meta({ id: 'ProgramImage', description: 'A program’s image as its passes carry it.' });

export const EXAMPLE_IMAGE_SET = {
  program: 'summit-2026',
  kind: 'logo',
  files: [
    { file: 'logo.png', width: 160, height: 40, bytes: 2310 },
    { file: 'logo@2x.png', width: 320, height: 80, bytes: 5127 },
    { file: 'logo@3x.png', width: 480, height: 120, bytes: 8934 },
  ],
};
