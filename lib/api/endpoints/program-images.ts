// A program's images (docs/programs.md "Images"): the operator uploads (PUT), removes (DELETE) and
// looks at (GET) each kind; anyone may fetch a published program's image (its claim page shows it).
// The upload is the raw PNG or JPEG body, read within 2 MiB by the frame.
import { IMAGE_MEDIA_TYPES, MAX_IMAGE_BYTES, programImageFile, putProgramImage, removeProgramImage } from '../../programs/images';
import { type Endpoint, endpoint, type Reply, type ResponseDoc } from '../endpoint';
import { matchesEtag } from '../etag';
import { EXAMPLE_IMAGE_SET, imageSetSchema, programImageParamsSchema } from './program-images.schemas';

const OPERATOR_PATH = '/api/v1/operator/programs/{slug}/images/{kind}';

/** The @2x file as an answer: 304 when the caller's copy is current. */
function imageReply(file: { bytes: Buffer; sha1: string }, headers: Headers, cacheControl: string): Reply {
  const validators = { etag: `"${file.sha1}"`, 'cache-control': cacheControl };
  if (matchesEtag(headers.get('if-none-match'), validators.etag)) return { status: 304, headers: validators };
  return { body: file.bytes, headers: { ...validators, 'content-type': 'image/png' } };
}

const IMAGE_RESPONSES: Record<number, ResponseDoc> = {
  200: { description: 'The @2x PNG file.', file: 'image/png', headers: ['ETag', 'Cache-Control'] },
  304: { description: 'Your copy (If-None-Match) is current.', headers: ['ETag', 'Cache-Control'] },
};

const IF_NONE_MATCH = [{ name: 'If-None-Match', description: 'The ETag of a copy you have: 304 if it is current.' }];

export const PROGRAM_IMAGE_ENDPOINTS: readonly Endpoint[] = [
  endpoint({
    method: 'PUT',
    path: OPERATOR_PATH,
    operationId: 'putProgramImage',
    tag: 'Programs',
    summary: 'Upload a program image',
    description:
      'The body is the image itself, a PNG or JPEG of at most 2 MiB, sent with its own Content-Type. ' +
      'The service decodes it and makes the @1x, @2x and @3x PNG files of Apple’s size for the kind ' +
      '(turned upright by its EXIF orientation, every metadata stripped); the upload’s own bytes are ' +
      'never kept. At most 10,000 pixels a side and 25 megapixels in all. The image replaces the ' +
      'kind’s earlier one and reaches every pass of the program: each is rebuilt at its next download, ' +
      'and every registered device is pushed.',
    auth: 'operator',
    params: programImageParamsSchema,
    rawBody: { types: IMAGE_MEDIA_TYPES, maxBytes: MAX_IMAGE_BYTES, description: 'The image: a PNG or a JPEG, as its Content-Type says.' },
    responses: { 200: { description: 'The files made.', json: imageSetSchema, example: EXAMPLE_IMAGE_SET } },
    problems: ['invalid_request', 'invalid_image', 'program_not_found', 'payload_too_large', 'unsupported_media_type'],
    handle: async ({ params, raw }, { services }) => ({ json: await putProgramImage(services, params.slug, params.kind, raw) }),
  }),
  endpoint({
    method: 'DELETE',
    path: OPERATOR_PATH,
    operationId: 'deleteProgramImage',
    tag: 'Programs',
    summary: 'Remove a program image',
    description: 'The program’s passes go without it from their next download (and are pushed). Removing one it does not have changes nothing.',
    auth: 'operator',
    params: programImageParamsSchema,
    responses: { 204: { description: 'Removed (or there was none).' } },
    problems: ['invalid_request', 'program_not_found'],
    handle: async ({ params }, { services }) => {
      await removeProgramImage(services, params.slug, params.kind);
      return { status: 204 };
    },
  }),
  endpoint({
    method: 'GET',
    path: OPERATOR_PATH,
    operationId: 'getProgramImage',
    tag: 'Programs',
    summary: 'See a program image',
    description: 'The @2x file of the image, for the console’s picture of the pass; drafts’ too. `Cache-Control: private, no-cache`.',
    auth: 'operator',
    params: programImageParamsSchema,
    requestHeaders: IF_NONE_MATCH,
    responses: IMAGE_RESPONSES,
    problems: ['invalid_request', 'program_not_found', 'image_not_found'],
    handle: async ({ params, headers }, { services }) =>
      imageReply(await programImageFile(services, params.slug, params.kind, { operator: true }), headers, 'private, no-cache'),
  }),
  endpoint({
    method: 'GET',
    path: '/api/v1/programs/{slug}/images/{kind}',
    operationId: 'getPublicProgramImage',
    tag: 'Programs',
    summary: 'A published program’s image',
    description:
      'The @2x file of a live or closed program’s image, for its claim page; a draft’s is not found. ' +
      '`Cache-Control: public, max-age=300`: a new image shows within five minutes (the ETag changes with it).',
    params: programImageParamsSchema,
    requestHeaders: IF_NONE_MATCH,
    responses: IMAGE_RESPONSES,
    problems: ['invalid_request', 'program_not_found', 'image_not_found'],
    handle: async ({ params, headers }, { services }) =>
      imageReply(await programImageFile(services, params.slug, params.kind, { operator: false }), headers, 'public, max-age=300'),
  }),
];
