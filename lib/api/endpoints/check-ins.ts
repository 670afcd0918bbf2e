// Check-in at the door (docs/check-in.md): one endpoint, open to operators and to scan keys.
import { checkIn } from '../../check-in/check-in';
import { type Endpoint, endpoint } from '../endpoint';
import { checkInBodySchema, checkInJson, checkInSchema } from './check-ins.schemas';

const EXAMPLE_SERIAL = '3f2b6c1e-8d4a-4f7b-9c2e-5a1d0b7e9f10';

export const CHECK_IN_ENDPOINTS: readonly Endpoint[] = [
  endpoint({
    method: 'POST',
    path: '/api/v1/operator/check-ins',
    operationId: 'checkIn',
    tag: 'Check-in',
    summary: 'Check a pass in at the door',
    description:
      'The barcode’s text as scanned (`code`), or a serial typed by hand (`serialNumber`), and optionally the door’s ' +
      '`program`. Always 200 for a well-formed request: `admitted` says whether to let the holder in, `reason` why. ' +
      'Only a barcode this service made counts: a made-up or altered code, or a bare serial in `code`, is ' +
      '`unknown_code`. The program’s `checkIn` rule (`once`, `daily` by UTC day, `unlimited`) is enforced in one ' +
      'statement: one pass scanned at two doors at once is admitted once. Each admission sends a `pass.checked_in` ' +
      'webhook. Open to operators and to scan keys (`"scope": "scan"`).',
    auth: 'scan',
    body: {
      schema: checkInBodySchema,
      example: { code: `https://passes.example.com/verify?serial=${EXAMPLE_SERIAL}&c=q3Jx0yH1m8Zt5Lr7Vk9Hs4`, program: 'summit-2026' },
    },
    invalidExample: { code: '' },
    responses: {
      200: {
        description: 'The answer: admitted or not, and why.',
        json: checkInSchema,
        example: {
          admitted: true,
          reason: 'checked_in',
          program: 'summit-2026',
          serialNumber: EXAMPLE_SERIAL,
          publicKey: '9C6hybhQ6Aycep9jaUnP6uL9ZYvDjUp1aSkFWPUFJtpj',
          checkedInAt: '2026-12-12T09:04:31.207Z',
          firstCheckInAt: '2026-12-12T09:04:31.207Z',
        },
      },
    },
    problems: ['invalid_request', 'payload_too_large', 'unsupported_media_type'],
    handle: async ({ body }, { services, operator }) => ({ json: checkInJson(await checkIn(services, body, operator)) }),
  }),
];
