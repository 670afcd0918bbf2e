// The request and response shapes of Apple's PassKit web service (/passkit/v1/..., ./passkit.ts),
// as zod schemas: the frame validates with them and the OpenAPI document is built from them.
import { z } from 'zod';

/** Wallet's device identifiers and push tokens are opaque; these bounds only keep garbage out. */
const opaque = (what: string, max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .regex(/^[A-Za-z0-9._-]+$/, `must be ${what}: letters, digits, . _ -`);

export const deviceLibraryIdentifierSchema = opaque('a device library identifier', 128).meta({
  description: 'The identifier Wallet gives the device (it identifies and authenticates the device in later requests).',
});

export const passTypeIdentifierSchema = z.string().min(1).max(255).meta({ description: "The pass type identifier, as in the pass's pass.json." });

export const serialNumberSchema = z
  .string()
  .min(1)
  .max(64)
  .transform((serial) => serial.toLowerCase())
  .meta({ description: "The pass's serial number, as in its pass.json." });

export const registrationParamsSchema = z.object({
  deviceLibraryIdentifier: deviceLibraryIdentifierSchema,
  passTypeIdentifier: passTypeIdentifierSchema,
  serialNumber: serialNumberSchema,
});

export const deviceParamsSchema = z.object({ deviceLibraryIdentifier: deviceLibraryIdentifierSchema, passTypeIdentifier: passTypeIdentifierSchema });

export const passParamsSchema = z.object({ passTypeIdentifier: passTypeIdentifierSchema, serialNumber: serialNumberSchema });

export const pushTokenBodySchema = z
  .object({
    pushToken: z
      .string({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be a string') })
      .min(1)
      .max(200)
      .regex(/^[0-9a-fA-F]+$/, 'must be the hexadecimal APNs device token'),
  })
  .meta({ id: 'PassKitPushToken', description: 'The push token APNs knows the device by for this pass type.' });

/** The last tag this service can hand out: the last microsecond of year 9999, the last a pass can change in. */
const LAST_TAG = 253_402_300_799_999_999n;

export const updatedSinceQuerySchema = z.object({
  passesUpdatedSince: z
    .string()
    .max(64)
    // Digits past any tag would overflow the database's timestamps: refused here. Other text is no tag at all (everything is listed).
    .refine((tag) => !/^\d+$/.test(tag) || (tag.length <= 19 && BigInt(tag) <= LAST_TAG), 'is not a tag this service gave out')
    .optional()
    .meta({
      description: 'The `lastUpdated` tag of an earlier answer: only passes changed after it are listed. Without it, every pass the device registered.',
    }),
});

export const serialNumbersSchema = z
  .object({
    serialNumbers: z.array(z.string()).meta({ description: 'The serial numbers of the passes changed after the tag.' }),
    lastUpdated: z.string().meta({ description: 'The tag to send as passesUpdatedSince next time (opaque; microseconds since the epoch).' }),
  })
  .meta({ id: 'PassKitSerialNumbers' });

export const logsBodySchema = z
  .object({
    logs: z.array(z.string().max(10_000)).max(100).meta({ description: 'Messages Wallet reports about this web service.' }),
  })
  .meta({ id: 'PassKitLogs' });
