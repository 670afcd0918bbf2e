// The pass files' and the scanner check's shapes (./passes.ts): the frame validates with them and
// the OpenAPI document is generated from them.
import { z } from 'zod';
import { SERIAL_NUMBER_PATTERN } from '../../passes/ids';
import { walletTypeSchema } from './wallet.schemas';

export const verifyQuerySchema = z.object({
  serial: z
    .string({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be a string') })
    .regex(SERIAL_NUMBER_PATTERN, 'must be a pass serial number (a UUID)')
    .transform((serial) => serial.toLowerCase())
    .meta({ description: "The pass's public serial number, as its QR code carries it.", example: '3f2b6c1e-8d4a-4f7b-9c2e-5a1d0b7e9f10' }),
  c: z
    .string()
    .max(64, 'is not a code this service made')
    .optional()
    .meta({
      description:
        'The check-in code the barcode carries beside the serial (docs/check-in.md). Optional: a serial alone is checked as ' +
        'before; a code given that is not the serial’s is answered as a pass not issued here.',
    }),
});

export const passCheckSchema = z
  .object({
    genuine: z.literal(true).meta({ description: 'Always true: the pass was issued here (an unknown serial is a 404). Whether it is valid now is `status`.' }),
    status: z
      .enum(['active', 'voided'])
      .meta({ description: '`active`: not voided (valid now unless `expired`). `voided`: issued here but void; do not accept it.' }),
    voidReason: z.string().nullable().meta({ description: 'Why the pass was voided (e.g. `not_eligible`); null while it is active.' }),
    expirationDate: z.string().nullable().meta({ description: 'When the pass expires (ISO 8601), as its operator set it; null: it does not.' }),
    expired: z.boolean().meta({ description: 'Past its `expirationDate`: do not accept it, whatever `status` says.' }),
    serialNumber: z.string(),
    publicKey: z.string().meta({ description: 'The wallet address the pass was issued to.' }),
    program: z.string().meta({ description: 'The program the pass belongs to (its slug; `default` for the service of parts one and two).' }),
    walletType: walletTypeSchema,
    claimedAt: z.string().meta({ description: 'ISO 8601.' }),
    issuer: z.string().meta({ description: 'PASS_ORGANIZATION_NAME of this service.' }),
  })
  .meta({ description: 'A pass issued by this service, as a scanner at the door sees it, and whether it is valid now.' });

export type PassCheck = z.infer<typeof passCheckSchema>;

export const googleSaveResponseSchema = z
  .object({ saveUrl: z.string().meta({ description: 'https://pay.google.com/gp/v/save/<jwt>' }) })
  .meta({ description: "The pass's Save to Google Wallet link." });

/** The download id: 32 random bytes, base64url (43 characters). */
export const PASS_ID_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export const passIdSchema = z.string().regex(PASS_ID_PATTERN).meta({
  description: 'The pass id from a downloadUrl: 43 characters of base64url. A missing, malformed or unknown id is answered 404.',
});

export const downloadQuerySchema = z.object({ pass: passIdSchema });
