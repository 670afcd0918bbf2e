// The check-in API's shapes (./check-ins.ts): the frame validates with them and the OpenAPI document
// is generated from them. A code is whatever a door's scanner read, so it is only bounded here
// (not empty, at most 2 KiB, printable text); whether it is a code of ours is the answer's
// `unknown_code`, not an error.
import { z } from 'zod';
import { CHECK_IN_REASONS, type CheckInAnswer } from '../../check-in/check-in';
import { programSlugSchema } from './claims.schemas';

/** The longest code taken, in UTF-8 bytes: ours are about 120; a scanner's junk is refused before any work. */
export const MAX_CODE_BYTES = 2048;

/** C0 and C1 controls and DEL: no barcode of ours holds one, and binary junk is mostly them. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this refuses
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** A surrogate not in a pair (JSON's \ud800 escapes can carry one): no text, and not UTF-8. */
const LONE_SURROGATE = /\p{Cs}/u;

const scannedText = (description: string, maxBytes: number) =>
  z
    .string({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be a string') })
    // A keyboard-wedge scanner ends what it types with a newline.
    .trim()
    .min(1, 'must not be empty')
    .refine((value) => Buffer.byteLength(value, 'utf8') <= maxBytes, `must be at most ${maxBytes} bytes`)
    .refine((value) => !CONTROL.test(value), 'must be text, without control characters')
    .refine((value) => !LONE_SURROGATE.test(value), 'must be text, without unpaired surrogates')
    .meta({ description });

export const checkInBodySchema = z
  .object({
    code: scannedText('The barcode’s text, exactly as scanned (a `/verify` URL carrying the serial and its check-in code).', MAX_CODE_BYTES).optional(),
    serialNumber: scannedText('The pass’s serial number, typed by hand when its barcode cannot be scanned.', 100).optional(),
    program: programSlugSchema.optional().meta({ description: 'The door’s program (its slug): a pass of another program is refused, `wrong_program`.' }),
  })
  .refine((body) => (body.code === undefined) !== (body.serialNumber === undefined), {
    message: 'send exactly one of code and serialNumber',
    path: ['code'],
  })
  .meta({ id: 'CheckInRequest', description: 'A scanned `code`, or a `serialNumber` typed by hand; not both.' });

const isoOrNull = (description: string) =>
  z
    .string()
    .nullable()
    .meta({ description: `${description} (ISO 8601), or null.` });

export const checkInSchema = z
  .object({
    admitted: z.boolean().meta({ description: 'Let the holder in: true exactly when `reason` is `checked_in`.' }),
    reason: z.enum(CHECK_IN_REASONS).meta({
      description:
        '`checked_in`: admitted now. `already_checked_in`: admitted before, as the program’s `checkIn` counts (once; ' +
        'today, UTC, for `daily`). `voided`: voided by an operator. `expired`: past its `expirationDate`. `not_eligible`: ' +
        'voided by an eligibility re-check. `wrong_program`: a pass of another program than the door’s. `unknown_code`: ' +
        'not a barcode of this service (made up, altered, a bare serial, or another code), or no pass has the serial typed.',
    }),
    program: z.string().nullable().meta({ description: 'The pass’s program; null for `unknown_code`.' }),
    serialNumber: z.string().nullable().meta({ description: 'The pass’s serial number; null for `unknown_code`.' }),
    publicKey: z.string().nullable().meta({ description: 'The wallet the pass was issued to; null for `unknown_code`.' }),
    checkedInAt: isoOrNull('The admission this answer is about: now for `checked_in`, the earlier one for `already_checked_in`; null otherwise'),
    firstCheckInAt: isoOrNull('The pass’s first admission ever; null if it was never admitted'),
  })
  .meta({ id: 'CheckIn', description: 'Whether to let the holder in, and why.' });

const isoOf = (date: Date | null) => (date ? date.toISOString() : null);

export const checkInJson = (answer: CheckInAnswer) => ({
  admitted: answer.admitted,
  reason: answer.reason,
  program: answer.program,
  serialNumber: answer.serialNumber,
  publicKey: answer.publicKey,
  checkedInAt: isoOf(answer.checkedInAt),
  firstCheckInAt: isoOf(answer.firstCheckInAt),
});
