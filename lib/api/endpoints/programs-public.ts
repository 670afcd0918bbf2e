// A program as the public sees it: what its claim page (/p/<slug>) shows, for other front ends.
import { publicProgram } from '../../programs/public';
import { type Endpoint, endpoint } from '../endpoint';
import { programParamsSchema } from './programs.schemas';
import { publicProgramJson, publicProgramSchema } from './programs-public.schemas';

export const PUBLIC_PROGRAM_ENDPOINTS: readonly Endpoint[] = [
  endpoint({
    method: 'GET',
    path: '/api/v1/programs/{slug}',
    operationId: 'getPublicProgram',
    tag: 'Programs',
    summary: 'A program, as its claim page shows it',
    description:
      'The name, design, images, claim window and whether it is sold out, and who may claim in words, of ' +
      'a live or closed program. Not its policy (an allowlist is private), its supply or how many passes ' +
      'are issued. Unknown programs and drafts: `404 program_not_found`.',
    params: programParamsSchema,
    malformedInput: 'program_not_found',
    // Unauthenticated, and an unknown slug is a database read each time: the per-IP budget.
    rateLimited: true,
    responses: { 200: { description: 'The program.', json: publicProgramSchema } },
    problems: ['program_not_found'],
    handle: async ({ params }, { services }) => ({ json: publicProgramJson(await publicProgram(services, params.slug), services.config.publicBaseUrl) }),
  }),
];
