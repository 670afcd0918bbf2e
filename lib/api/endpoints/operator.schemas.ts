// Request and response shapes of the operator API and webhook deliveries (./operator.ts), and
// the JSON of the rows they answer with: the frame validates with them and the OpenAPI document
// is generated from them.
import { z } from 'zod';
import type { ApiKeyInfo } from '../../db/api-keys';
import type { Delivery } from '../../db/jobs';
import type { OperatorPass } from '../../db/passes';
import { SCOPES } from '../../operators/scopes';
import { BIDI_CONTROLS, NO_BIDI_CONTROLS } from '../../validate';
import { WEBHOOK_EVENT_TYPES } from '../../webhooks';
import { claimBodySchema, programSlugSchema } from './claims.schemas';
import { verifyQuerySchema } from './passes.schemas';
import { publicKeySchema } from './wallet.schemas';

const iso = (description: string) => z.string().meta({ description: `${description} (ISO 8601).` });
const isoOrNull = (description: string) =>
  z
    .string()
    .nullable()
    .meta({ description: `${description} (ISO 8601), or null.` });

/** One line of text, 1 to `max` characters, without bidirectional controls. */
const label = (max: number, description: string) =>
  z
    .string({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be a string') })
    .min(1, 'must not be empty')
    .max(max, `must be at most ${max} characters`)
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this refuses
    .refine((value) => !/[\u0000-\u001f\u007f\u2028\u2029]/.test(value), 'must be one line of text')
    .refine((value) => !BIDI_CONTROLS.test(value), NO_BIDI_CONTROLS)
    .meta({ description });

/** A page size from the query string. */
const limitSchema = (max: number, fallback: number) =>
  z
    .string()
    .regex(/^\d{1,4}$/, `must be a whole number from 1 to ${max}`)
    .transform(Number)
    .pipe(z.number().int().min(1, `must be a whole number from 1 to ${max}`).max(max, `must be a whole number from 1 to ${max}`))
    .optional()
    .meta({ description: `How many to answer, 1 to ${max} (default ${fallback}).` });

const cursorSchema = z
  .string()
  .max(512, 'is not a cursor this service gave out')
  .optional()
  .meta({ description: 'The `nextCursor` of the previous page; omit for the first page.' });

// ---- Sessions ----

export const sessionBodySchema = z
  .object({ message: claimBodySchema.shape.message, signature: claimBodySchema.shape.signature, publicKey: publicKeySchema })
  .meta({ id: 'OperatorSessionRequest', description: 'A signed operator sign-in message (from /api/v1/operator/sessions/init). Unknown fields are ignored.' });

export const sessionResponseSchema = z
  .object({
    token: z.string().meta({ description: 'The session token: send it as `Authorization: Bearer <token>`. A bearer secret.' }),
    expiresAt: iso('When the session ends: 12 hours after sign-in'),
  })
  .meta({ id: 'OperatorSession' });

export const currentOperatorSchema = z
  .object({
    publicKey: z.string().meta({ description: 'The operator wallet.' }),
    via: z.enum(['session', 'api_key']).meta({ description: 'How the request was authenticated.' }),
    expiresAt: isoOrNull('When the session ends; null for an API key'),
  })
  .meta({ id: 'CurrentOperator' });

// ---- API keys ----

const scopeSchema = z.enum(SCOPES, { error: () => 'must be operator or scan' });

export const apiKeyCreateSchema = z
  .object({
    name: label(100, 'A label for people: what the key is for.').optional(),
    scope: scopeSchema.optional().meta({
      description:
        '`operator` (the default): every operator endpoint. `scan`: a key for the door, that may only check passes in ' +
        '(`POST /api/v1/operator/check-ins`) and list programs; every other operator endpoint answers it 403 forbidden.',
    }),
  })
  .meta({ id: 'ApiKeyRequest', description: 'Optional; the body may be omitted.' });

const apiKeyFields = {
  id: z.string().meta({ description: 'The key’s public id: for listing and revoking. Not the key.' }),
  name: z.string().nullable(),
  scope: scopeSchema.meta({ description: '`operator`: every operator endpoint; `scan`: checking passes in and listing programs only.' }),
  createdBy: z.string().meta({ description: 'The operator wallet that created it; the key acts for it.' }),
  createdAt: iso('When it was created'),
  lastUsedAt: isoOrNull('When it last authenticated a request'),
};

export const apiKeySchema = z.object(apiKeyFields).meta({ id: 'ApiKey', description: 'An API key, without its secret.' });

export const apiKeyCreatedSchema = z
  .object({
    ...apiKeyFields,
    key: z.string().meta({ description: 'The key itself: shown this once, stored only as a hash. Send it as `Authorization: Bearer <key>`.' }),
  })
  .meta({ id: 'ApiKeyCreated' });

export const apiKeyListSchema = z.object({ apiKeys: z.array(apiKeySchema) }).meta({ id: 'ApiKeyList', description: 'The keys not revoked, newest first.' });

export const apiKeyParamsSchema = z.object({ id: z.string().max(64).meta({ description: 'The key’s id.' }) });

// ---- Passes ----

export const PASS_STATUSES = ['active', 'voided'] as const;

export const passesQuerySchema = z.object({
  publicKey: publicKeySchema.optional(),
  serial: verifyQuerySchema.shape.serial.optional(),
  status: z
    .enum(PASS_STATUSES, { error: () => 'must be active or voided' })
    .optional()
    .meta({ description: 'Only passes in this state.' }),
  program: programSlugSchema.optional().meta({ description: 'Only passes of this program (its slug).' }),
  cursor: cursorSchema,
  limit: limitSchema(200, 50),
});

export const statsQuerySchema = z.object({
  program: programSlugSchema.optional().meta({ description: 'Only this program’s passes, devices, claims and check-ins (its slug); omitted: every program.' }),
});

export const operatorPassSchema = z
  .object({
    serialNumber: z.string(),
    publicKey: z.string(),
    program: z.string().meta({ description: 'The program’s slug (`default` for the service of parts one and two).' }),
    walletType: z.string(),
    claimedAt: iso('When it was claimed'),
    status: z.enum(PASS_STATUSES),
    voidReason: z.string().nullable().meta({ description: 'Why it was voided (an operator’s words, or `not_eligible`); null while active.' }),
    expirationDate: isoOrNull('When the pass expires: Wallet then shows it as expired and the scanner check refuses it'),
    relevantDate: isoOrNull('When Apple Wallet brings the pass to the lock screen (an event’s start)'),
    updatedAt: iso('When it last changed (its claim, a void, a restore, a change of its dates)'),
    devices: z.number().int().min(0).meta({ description: 'How many devices have it registered for updates.' }),
  })
  .meta({ id: 'OperatorPass', description: 'A pass as operators see it. Never its download id.' });

export const passPageSchema = z
  .object({
    passes: z.array(operatorPassSchema),
    nextCursor: z.string().nullable().meta({ description: 'Pass it as `cursor` for the next page; null on the last page.' }),
  })
  .meta({ id: 'OperatorPassPage', description: 'Newest claim first.' });

export const serialParamsSchema = z.object({
  serialNumber: z
    .string()
    .max(100)
    .transform((serial) => serial.toLowerCase())
    .meta({ description: 'The pass’s serial number (as on the pass and its QR code).' }),
});

/** A date-time a pass can carry: ISO 8601 with its time zone, an instant in the years 2000 to 9999 (UTC); null clears it. */
const passDateSchema = (description: string) =>
  z.iso
    .datetime({ offset: true, error: 'must be an ISO 8601 date-time with a time zone, such as 2026-12-31T23:00:00Z' })
    .transform((value) => new Date(value))
    // The instant's year, not the text's: 2000-01-01T00:00:00+23:59 is in 1999, 9999-12-31T23:59:59-23:59 in 10000.
    .refine((date) => date.getUTCFullYear() >= 2000 && date.getUTCFullYear() <= 9999, 'must be in the years 2000 to 9999 (UTC)')
    .nullable()
    .optional()
    .meta({ description: `${description} ISO 8601 with a time zone; null removes it; omitted, it stays as it is.` });

export const passDatesBodySchema = z
  .object({
    expirationDate: passDateSchema('When the pass expires: Wallet and Google Wallet then show it as expired, and the scanner check refuses it.'),
    relevantDate: passDateSchema('When Apple Wallet brings the pass to the lock screen, such as the start of the event it admits to.'),
  })
  .refine((body) => body.expirationDate !== undefined || body.relevantDate !== undefined, 'must set expirationDate or relevantDate (null removes one)')
  .meta({ id: 'PassDatesRequest' });

export const voidBodySchema = z.object({ reason: label(200, 'Why: shown to operators, sent in the pass.voided webhook.') }).meta({ id: 'VoidRequest' });

export const statsSchema = z
  .object({
    passes: z.number().int().meta({ description: 'Passes issued.' }),
    active: z.number().int(),
    voided: z.number().int(),
    devicesRegistered: z.number().int().meta({ description: 'Device registrations (a pass on two phones counts twice).' }),
    claimsPerDay: z
      .array(z.object({ date: z.string().meta({ description: 'YYYY-MM-DD, UTC.' }), count: z.number().int() }))
      .meta({ description: 'The last 30 UTC days, today last; every day present, zeros included.' }),
    checkInsPerDay: z
      .array(z.object({ date: z.string().meta({ description: 'YYYY-MM-DD, UTC.' }), count: z.number().int() }))
      .meta({ description: 'Admissions at the door (`POST /api/v1/operator/check-ins`), per day as `claimsPerDay`.' }),
    installsPerDay: z
      .array(z.object({ date: z.string().meta({ description: 'YYYY-MM-DD, UTC.' }), count: z.number().int() }))
      .meta({ description: 'Device registrations made (Apple Wallet adding the pass on a device), per day as `claimsPerDay`.' }),
    uninstallsPerDay: z.array(z.object({ date: z.string().meta({ description: 'YYYY-MM-DD, UTC.' }), count: z.number().int() })).meta({
      description:
        'Device registrations ended (the device removed the pass, APNs called its push token gone, or a newer device took its place past DEVICES_PER_PASS), per day as `claimsPerDay`.',
    }),
  })
  .meta({ id: 'OperatorStats' });

// ---- Webhook deliveries ----

export const DELIVERY_FILTERS = ['pending', 'delivered', 'failed'] as const;

export const deliveriesQuerySchema = z.object({
  status: z
    .enum(DELIVERY_FILTERS, { error: () => 'must be pending, delivered or failed' })
    .optional()
    .meta({ description: 'Only deliveries in this state (`pending` includes those being sent).' }),
  cursor: cursorSchema,
  limit: limitSchema(200, 50),
});

export const deliverySchema = z
  .object({
    id: z.string().meta({ description: 'The delivery’s id (for retry).' }),
    eventId: z.string().meta({ description: 'The `webhook-id` header: the same on every attempt.' }),
    type: z.enum(WEBHOOK_EVENT_TYPES),
    serialNumber: z.string().nullable(),
    status: z.enum(['pending', 'sending', 'delivered', 'failed']).meta({
      description:
        '`pending`: waiting for its next attempt; `sending`: an attempt is under way; `delivered`: the ' +
        'receiver answered 2xx; `failed`: given up (after 24 hours of retries).',
    }),
    attempts: z.number().int(),
    lastError: z.string().nullable().meta({ description: 'Why the last attempt failed (e.g. `the receiver answered HTTP 500`).' }),
    nextAttemptAt: isoOrNull('When the next attempt is due; null once delivered or failed'),
    createdAt: iso('When the event happened'),
    deliveredAt: isoOrNull('When the receiver accepted it'),
    failedAt: isoOrNull('When it was given up'),
  })
  .meta({ id: 'WebhookDelivery' });

export const deliveryPageSchema = z
  .object({ deliveries: z.array(deliverySchema), nextCursor: z.string().nullable() })
  .meta({ id: 'WebhookDeliveryPage', description: 'Newest first.' });

export const deliveryParamsSchema = z.object({ id: z.string().max(32).meta({ description: 'The delivery’s id.' }) });

// ---- To JSON ----

const isoOf = (date: Date | null) => (date ? date.toISOString() : null);

export const passJson = (pass: OperatorPass) => ({
  ...pass,
  claimedAt: pass.claimedAt.toISOString(),
  expirationDate: isoOf(pass.expirationDate),
  relevantDate: isoOf(pass.relevantDate),
  updatedAt: pass.updatedAt.toISOString(),
});

export const apiKeyJson = (key: ApiKeyInfo) => ({
  id: key.id,
  name: key.name,
  scope: key.scope,
  createdBy: key.createdBy,
  createdAt: key.createdAt.toISOString(),
  lastUsedAt: isoOf(key.lastUsedAt),
});

export const deliveryJson = (delivery: Delivery) => ({
  ...delivery,
  nextAttemptAt: isoOf(delivery.nextAttemptAt),
  createdAt: delivery.createdAt.toISOString(),
  deliveredAt: isoOf(delivery.deliveredAt),
  failedAt: isoOf(delivery.failedAt),
});
