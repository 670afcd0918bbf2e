// Webhooks: events POSTed to WEBHOOK_URL, signed per Standard Webhooks (`webhook-id`,
// `webhook-timestamp`, `webhook-signature`) by the `standardwebhooks` library, never by hand.
// Each event is one job of the durable queue (lib/queue): retried with backoff for at least 24
// hours, kept across restarts, sent by one instance. The job's id is the delivery's id in the
// operator API; the event's `webhook-id` (msg_…) stays the same on every retry, so a receiver
// can drop a duplicate.
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import type { Config } from '../config';
import type { JobInput, Jobs } from '../db/jobs';
import type { Pass } from '../db/passes';
import { type JobContext, PermanentJobFailure, type TaskList } from '../queue';

export const WEBHOOK_EVENT_TYPES = [
  'pass.created',
  'pass.voided',
  'pass.restored',
  'pass.updated',
  'device.registered',
  'device.unregistered',
  'pass.scanned',
  'pass.checked_in',
  'update.finished',
] as const;

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** What an event says about its pass. Never a download id: that is the pass file's bearer secret. */
export type WebhookEventData = {
  serialNumber: string;
  publicKey: string;
  /** The pass's program (`default` for the service of parts one and two). */
  program: string;
  walletType: string;
  reason?: string;
  /** The pass's dates, when an operator set them (ISO 8601). */
  expirationDate?: string;
  relevantDate?: string;
  /** device.* events: which device (its library identifier is not a secret; its push token is). */
  deviceLibraryIdentifier?: string;
  /** pass.checked_in: when the pass was admitted at the door (ISO 8601). */
  checkedInAt?: string;
};

/** The job kind of a webhook delivery. */
export const WEBHOOK_JOB = 'webhook';

/** What update.finished says: the update (lib/updates) and its final counts. */
export type UpdateEventData = { id: string; program: string; kind: string; devicesPushed: number; devicesFailed: number };

export type WebhookJobPayload = {
  /** The Standard Webhooks message id (`webhook-id`): the same on every retry. */
  id: string;
  type: WebhookEventType;
  /** When the event happened (ISO 8601); `webhook-timestamp` is when it was sent. */
  timestamp: string;
  data: WebhookEventData | UpdateEventData;
};

export const newWebhookMessageId = () => `msg_${randomBytes(16).toString('base64url')}`;

/** The fields of a pass an event tells; the dates only when an operator set them. */
export type EventPass = Pick<Pass, 'serialNumber' | 'publicKey' | 'program' | 'walletType'> & Partial<Pick<Pass, 'expirationDate' | 'relevantDate'>>;

/**
 * What every event says about its pass: the one builder of `data`. Only the documented fields are
 * copied, so a caller's extra property (a download id) never leaks out. `reason`: why the pass
 * was voided (pass.* events pass its void reason), or why a device was unregistered.
 */
export function webhookEventData(
  pass: EventPass,
  extra: { reason?: string | null; deviceLibraryIdentifier?: string; checkedInAt?: Date } = {},
): WebhookEventData {
  return {
    serialNumber: pass.serialNumber,
    publicKey: pass.publicKey,
    program: pass.program,
    walletType: pass.walletType,
    ...(extra.reason !== undefined && extra.reason !== null ? { reason: extra.reason } : {}),
    ...(pass.expirationDate ? { expirationDate: pass.expirationDate.toISOString() } : {}),
    ...(pass.relevantDate ? { relevantDate: pass.relevantDate.toISOString() } : {}),
    ...(extra.deviceLibraryIdentifier !== undefined ? { deviceLibraryIdentifier: extra.deviceLibraryIdentifier } : {}),
    ...(extra.checkedInAt !== undefined ? { checkedInAt: extra.checkedInAt.toISOString() } : {}),
  };
}

/**
 * The jobs of an event: its delivery, or none when webhooks are off (WEBHOOK_URL unset). `at`:
 * when it happened. Handed to the statement of the change that causes it, or to enqueue.
 */
export function webhookEventJobs(config: Pick<Config, 'webhook'>, type: WebhookEventType, data: WebhookEventData, at: Date): JobInput[] {
  if (!config.webhook) return [];
  const payload: WebhookJobPayload = { id: newWebhookMessageId(), type, timestamp: at.toISOString(), data };
  return [{ kind: WEBHOOK_JOB, payload }];
}

/**
 * The jobs of update.finished, or none when webhooks are off. The counts are the update's final
 * ones, which only the statement that finishes it knows: it writes them into `data` (lib/db/updates.ts).
 */
export function updateFinishedJobs(config: Pick<Config, 'webhook'>, update: Pick<UpdateEventData, 'id' | 'program' | 'kind'>, at: Date): JobInput[] {
  if (!config.webhook) return [];
  const data: UpdateEventData = { id: update.id, program: update.program, kind: update.kind, devicesPushed: 0, devicesFailed: 0 };
  const payload: WebhookJobPayload = { id: newWebhookMessageId(), type: 'update.finished', timestamp: at.toISOString(), data };
  return [{ kind: WEBHOOK_JOB, payload }];
}

/**
 * Enqueues one event that follows no change of its own (pass.scanned): a no-op when WEBHOOK_URL is
 * unset. `dedupeKey`: the event is dropped when one with this key was enqueued before.
 */
export async function enqueueWebhookEvent(
  deps: { config: Pick<Config, 'webhook'>; store: { jobs: Pick<Jobs, 'enqueue'> } },
  type: WebhookEventType,
  data: WebhookEventData,
  at: Date,
  dedupeKey?: string,
): Promise<void> {
  const jobs = webhookEventJobs(deps.config, type, data, at).map((job) => (dedupeKey === undefined ? job : { ...job, dedupeKey }));
  if (jobs.length > 0) await deps.store.jobs.enqueue(jobs);
}

/**
 * pass.scanned is coalesced to one per serial per minute of the clock (00 to 59 s): a scan is
 * unauthenticated and free to repeat, so its events must cost a bounded number of deliveries
 * however often a serial is scanned.
 */
export const SCANNED_EVENT_PERIOD_MS = 60_000;

/** The dedupe key of a pass.scanned event of `serialNumber` at `atMs`: the same for every scan in one period. */
export const scannedEventKey = (serialNumber: string, atMs: number) => `pass.scanned:${serialNumber}:${Math.floor(atMs / SCANNED_EVENT_PERIOD_MS)}`;

/** How long one delivery attempt may take: well inside the queue's lease. */
const SEND_TIMEOUT_MS = 10_000;

/** The body of an event as POSTed: `{type, timestamp, data}`. */
export const webhookBody = (payload: WebhookJobPayload) => JSON.stringify({ type: payload.type, timestamp: payload.timestamp, data: payload.data });

/** The queue's handler of webhook deliveries. */
export const webhookTasks = (deps: { config: Pick<Config, 'webhook'> }): TaskList => ({
  [WEBHOOK_JOB]: (payload: WebhookJobPayload, context) => deliverWebhook(deps.config, payload, context),
});

/** One delivery attempt: any 2xx is delivered; anything else throws, and the queue retries. */
export async function deliverWebhook(config: Pick<Config, 'webhook'>, payload: WebhookJobPayload, context: Pick<JobContext, 'signal'>): Promise<void> {
  const webhook = config.webhook;
  if (!webhook) throw new PermanentJobFailure('webhooks are no longer configured (WEBHOOK_URL unset)');
  const body = webhookBody(payload);
  const sentAt = new Date();
  const signature = new Webhook(webhook.secret).sign(payload.id, sentAt, body);
  let response: Response;
  try {
    response = await fetch(webhook.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'user-agent': 'wallet-pass-claim-webhooks/1',
        'webhook-id': payload.id,
        'webhook-timestamp': String(Math.floor(sentAt.getTime() / 1000)),
        'webhook-signature': signature,
      },
      body,
      // A redirect is not followed: the signed body would go somewhere the operator did not name.
      redirect: 'manual',
      signal: AbortSignal.any([context.signal, AbortSignal.timeout(SEND_TIMEOUT_MS)]),
    });
  } catch (error) {
    throw new Error(`no answer from the receiver: ${describeFetchError(error)}`);
  }
  await response.body?.cancel().catch(() => {});
  if (response.status < 200 || response.status > 299) throw new Error(`the receiver answered HTTP ${response.status}`);
}

/** The cause of a failed fetch (connection refused, timeout), without the URL, which may carry a secret. */
function describeFetchError(error: unknown): string {
  const e = error as { name?: string; cause?: { code?: string; message?: string } };
  if (e.name === 'TimeoutError') return `timed out after ${SEND_TIMEOUT_MS / 1000} s`;
  if (e.name === 'AbortError') return 'aborted';
  return e.cause?.code ?? e.cause?.message ?? (error as Error).message ?? 'failed';
}
