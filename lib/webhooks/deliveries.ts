// Webhook deliveries as operators see them: the queue's webhook jobs, newest first, and a retry.
import type { Delivery, Jobs } from '../db/jobs';
import { AppError } from '../errors';
import { WEBHOOK_JOB } from './index';

/** What the deliveries' use cases need: the jobs table. */
export type DeliveriesDeps = { store: { jobs: Pick<Jobs, 'deliveries' | 'retryDelivery'> } };

export type DeliveryPage = { deliveries: Delivery[]; nextCursor: string | null };

const encodeCursor = (id: string) => Buffer.from(`d:${id}`).toString('base64url');

function decodeCursor(cursor: string): number {
  const match = /^d:(\d{1,18})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match) {
    throw new AppError('invalid_request', 'cursor is not a cursor this service gave out', {
      fields: [{ field: 'cursor', message: 'is not a cursor this service gave out' }],
    });
  }
  return Number(match[1]);
}

export async function getDeliveries(
  deps: DeliveriesDeps,
  query: { status?: 'pending' | 'delivered' | 'failed'; cursor?: string; limit: number },
): Promise<DeliveryPage> {
  const beforeId = query.cursor ? decodeCursor(query.cursor) : undefined;
  const rows = await deps.store.jobs.deliveries(WEBHOOK_JOB, { status: query.status, beforeId }, query.limit + 1);
  const page = rows.slice(0, query.limit);
  const last = page.at(-1);
  return { deliveries: page, nextCursor: rows.length > query.limit && last ? encodeCursor(last.id) : null };
}

export async function retryWebhookDelivery(deps: DeliveriesDeps, id: string): Promise<Delivery> {
  const numeric = /^\d{1,18}$/.test(id) ? Number(id) : undefined;
  const delivery = numeric === undefined ? undefined : await deps.store.jobs.retryDelivery(WEBHOOK_JOB, numeric);
  if (!delivery) throw new AppError('delivery_not_found', 'No webhook delivery has this id.');
  return delivery;
}
