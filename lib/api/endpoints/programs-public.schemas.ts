// The answer of GET /api/v1/programs/{slug} (./programs-public.ts): a program as its claim page shows it.
import { z } from 'zod';
import { IMAGE_KINDS } from '../../db/program-images';
import type { PublicProgram } from '../../programs/public';
import { designSchema } from '../../programs/schema';

export const publicProgramSchema = z
  .object({
    slug: z.string(),
    name: z.string(),
    status: z.enum(['live', 'closed']).meta({ description: '`closed`: it issues no more passes. Drafts are not found.' }),
    opensAt: z.string().nullable().meta({ description: 'Claims open (ISO 8601), or null.' }),
    closesAt: z.string().nullable().meta({ description: 'Claims close (ISO 8601), or null.' }),
    soldOut: z.boolean().meta({ description: 'Every pass of its supply is issued.' }),
    design: designSchema.nullable().meta({ description: 'null: the default program’s wallet-brand designs.' }),
    images: z
      .partialRecord(z.enum(IMAGE_KINDS), z.string())
      .meta({ description: 'The URL of each image the program has, by kind (`logo`, `icon`, `strip`, `thumbnail`, `background`).' }),
    eligibility: z.string().meta({
      description:
        'Who may claim, in words ("Anyone with a Solana wallet", "Invited wallets", "Holders of the token 7xKX…gAsU"). Never the addresses of an allowlist.',
      example: 'Holders of an NFT of the collection 9xQe…b2Fk',
    }),
  })
  .meta({ id: 'PublicProgram' });

/** A program as the public API answers it: image paths made absolute; not the page's availability. */
export const publicProgramJson = (program: PublicProgram, publicBaseUrl: string): z.output<typeof publicProgramSchema> => ({
  slug: program.slug,
  name: program.name,
  status: program.status,
  opensAt: program.opensAt,
  closesAt: program.closesAt,
  soldOut: program.soldOut,
  design: program.design,
  images: Object.fromEntries(Object.entries(program.images).map(([kind, path]) => [kind, `${publicBaseUrl}${path}`])),
  eligibility: program.eligibility,
});
