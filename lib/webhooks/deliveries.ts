// Webhook deliveries as operators see them: the queue's webhook jobs, newest first, and a retry.
import { listDeliveries, retryDelivery, type Delivery } from '../db/operators';
import { AppError } from '../errors';
import { notifyJobsEnqueued } from '../queue';
import type { Services } from '../services';
import { WEBHOOK_JOB } from './index';

export type DeliveryPage = { deliveries: Delivery[]; nextCursor: string | null };

const encodeCursor = (id: string) => Buffer.from(`d:${id}`).toString('base64url');

function decodeCursor(cursor: string): number {
  const match = /^d:(\d{1,18})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match) {
    throw new AppError('invalid_request', 'cursor is not a cursor this service gave out', { fields: [{ field: 'cursor', message: 'is not a cursor this service gave out' }] });
  }
  return Number(match[1]);
}

export async function getDeliveries(
  services: Services,
  query: { status?: 'pending' | 'delivered' | 'failed'; cursor?: string; limit: number },
): Promise<DeliveryPage> {
  const beforeId = query.cursor ? decodeCursor(query.cursor) : undefined;
  const rows = await listDeliveries(services.store.sql, WEBHOOK_JOB, { status: query.status, beforeId }, query.limit + 1);
  const page = rows.slice(0, query.limit);
  return { deliveries: page, nextCursor: rows.length > query.limit ? encodeCursor(page.at(-1)!.id) : null };
}

export async function retryWebhookDelivery(services: Services, id: string): Promise<Delivery> {
  const numeric = /^\d{1,18}$/.test(id) ? Number(id) : undefined;
  const delivery = numeric === undefined ? undefined : await retryDelivery(services.store.sql, WEBHOOK_JOB, numeric);
  if (!delivery) throw new AppError('delivery_not_found', 'No webhook delivery has this id.');
  notifyJobsEnqueued();
  return delivery;
}
