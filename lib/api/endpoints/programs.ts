// The programs API (docs/programs.md): create, list, read and change programs. Image uploads are
// beside them (./program-images.ts).
import { createProgram, getProgram, getPrograms, updateProgram } from '../../programs/programs';
import { type Endpoint, endpoint } from '../endpoint';
import {
  programCreateBodySchema,
  programJson,
  programListSchema,
  programParamsSchema,
  programPatchBodySchema,
  programSchema,
  programSummaryJson,
} from './programs.schemas';

const EXAMPLE_PROGRAM_CREATE = {
  slug: 'summit-2026',
  name: 'Solana Summit 2026',
  status: 'live',
  opensAt: '2026-12-01T09:00:00Z',
  closesAt: '2026-12-12T18:00:00Z',
  supply: 500,
  policy: { token: { mint: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v', minAmount: '1000000' } },
  design: {
    style: 'eventTicket',
    organizationName: 'Solana Summit',
    description: 'Solana Summit 2026 ticket',
    logoText: 'Summit 2026',
    backgroundColor: '#101820',
    foregroundColor: '#ffffff',
    labelColor: '#14f195',
    fields: {
      primary: [{ key: 'event', label: 'Event', value: 'Solana Summit' }],
      secondary: [
        { key: 'holder', label: 'Holder', value: '{shortAddress}' },
        { key: 'doors', label: 'Doors', value: '12 Dec, 09:00' },
      ],
      back: [{ key: 'address', label: 'Wallet', value: '{address}' }],
    },
    barcode: 'qr',
    locations: [{ latitude: 38.7223, longitude: -9.1393, relevantText: 'Welcome to the Summit: show this at the door' }],
    relevantDate: '2026-12-12T09:00:00Z',
    expirationDate: '2026-12-13T00:00:00Z',
  },
};

export const PROGRAM_ENDPOINTS: readonly Endpoint[] = [
  endpoint({
    method: 'POST',
    path: '/api/v1/operator/programs',
    operationId: 'createProgram',
    tag: 'Programs',
    summary: 'Create a program',
    description:
      'A new kind of pass. Its `slug` is fixed once created and names its claim page (/p/<slug>). A ' +
      '`draft` is seen only by operators; `live` takes claims between `opensAt` and `closesAt`, up to ' +
      '`supply`; `closed` takes none. `policy` is a CLAIM_POLICY rule (without allowFile).',
    auth: 'operator',
    body: { schema: programCreateBodySchema, example: EXAMPLE_PROGRAM_CREATE },
    invalidExample: { slug: 'No Spaces', name: '' },
    responses: { 201: { description: 'Created.', json: programSchema } },
    problems: ['invalid_request', 'program_exists', 'payload_too_large', 'unsupported_media_type'],
    handle: async ({ body }, { services }) => ({ status: 201, json: programJson(await createProgram(services, body)) }),
  }),
  endpoint({
    method: 'GET',
    path: '/api/v1/operator/programs',
    operationId: 'listPrograms',
    tag: 'Programs',
    summary: 'List programs',
    description:
      'Every program, `default` first, with its counts of passes issued and active. A door’s scan key may list them ' +
      'too, to choose the door’s program: it gets each one’s `slug`, `name`, `status` and `checkIn` only (never its policy).',
    auth: 'scan',
    responses: { 200: { description: 'The programs.', json: programListSchema } },
    problems: [],
    handle: async (_, { services, operator }) => {
      const programs = await getPrograms(services);
      return { json: { programs: programs.map(operator.scope === 'scan' ? programSummaryJson : programJson) } };
    },
  }),
  endpoint({
    method: 'GET',
    path: '/api/v1/operator/programs/{slug}',
    operationId: 'getProgram',
    tag: 'Programs',
    summary: 'Read a program',
    description: 'One program, with its counts of passes issued (`passes`) and not voided (`active`).',
    auth: 'operator',
    params: programParamsSchema,
    malformedInput: 'program_not_found',
    responses: { 200: { description: 'The program.', json: programSchema } },
    problems: ['program_not_found'],
    handle: async ({ params }, { services }) => ({ json: programJson(await getProgram(services, params.slug)) }),
  }),
  endpoint({
    method: 'PATCH',
    path: '/api/v1/operator/programs/{slug}',
    operationId: 'updateProgram',
    tag: 'Programs',
    summary: 'Change a program',
    description:
      'Any fields but `slug`. A change of what its passes show (`design`, `name`) reaches every pass: each ' +
      'is rebuilt at its next download (a new ETag), every registered device is pushed, and each Google ' +
      'Wallet object is updated, through the job queue.',
    auth: 'operator',
    params: programParamsSchema,
    body: { schema: programPatchBodySchema, example: { status: 'closed' } },
    invalidExample: { slug: 'renamed' },
    responses: { 200: { description: 'The program as changed.', json: programSchema } },
    problems: ['invalid_request', 'program_not_found', 'payload_too_large', 'unsupported_media_type'],
    handle: async ({ params, body }, { services }) => ({ json: programJson(await updateProgram(services, params.slug, body)) }),
  }),
];
