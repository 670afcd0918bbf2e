// Request and response shapes of messages and updates (./updates.ts).
import { z } from 'zod';
import type { Update } from '../../db/updates';
import { MESSAGE_MAX_LENGTH } from '../../updates/updates';

export const messageBodySchema = z
  .object({
    text: z
      .string()
      .min(1)
      .max(MESSAGE_MAX_LENGTH)
      .meta({ description: `The message: 1 to ${MESSAGE_MAX_LENGTH} characters, shown on the back of every active pass and as a notification.` }),
  })
  .meta({ id: 'MessageRequest' });

export const messageSentSchema = z
  .object({
    id: z.string().meta({ description: 'The update that carries the message to every device (GET /api/v1/operator/updates/{id}).' }),
    passes: z.number().int().meta({ description: 'The active passes that carry it.' }),
    devices: z.number().int().meta({ description: 'The registered devices to be pushed.' }),
  })
  .meta({ id: 'MessageSent' });

export const updateParamsSchema = z.object({ id: z.string().max(64).meta({ description: 'The update’s id.' }) });

export const updateSchema = z
  .object({
    id: z.string(),
    program: z.string().meta({ description: 'The program’s slug.' }),
    kind: z.enum(['change', 'message']).meta({ description: '`change`: a change of what the passes show; `message`: a message to the holders.' }),
    status: z.enum(['running', 'done']),
    passes: z.number().int().meta({ description: 'The passes it reaches.' }),
    devicesTotal: z.number().int().meta({ description: 'The devices it pushes (exact once every batch is planned).' }),
    devicesPushed: z.number().int().meta({ description: 'Devices pushed (APNs accepted the push).' }),
    devicesFailed: z.number().int().meta({ description: 'Devices not pushed: the token was gone (the registration is removed), or the push kept failing.' }),
    startedAt: z.string(),
    finishedAt: z.string().nullable().meta({ description: 'When the last device was pushed or given up; null while running.' }),
  })
  .meta({ id: 'Update', description: 'A program change or a message, reaching every device of the program.' });

export const updateListSchema = z.object({ updates: z.array(updateSchema) }).meta({ id: 'UpdateList', description: 'The newest updates first.' });

export const updateJson = (update: Update) => ({
  id: update.id,
  program: update.program,
  kind: update.kind,
  status: update.status,
  passes: update.passes,
  devicesTotal: update.devicesTotal,
  devicesPushed: update.devicesPushed,
  devicesFailed: update.devicesFailed,
  startedAt: update.startedAt.toISOString(),
  finishedAt: update.finishedAt ? update.finishedAt.toISOString() : null,
});
