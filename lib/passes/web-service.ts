// Apple's PassKit web service, the use cases behind /passkit/v1/... (lib/api/endpoints.ts): Wallet
// registers a device for a pass, asks which of its passes changed since a tag, fetches the latest
// version of one, unregisters, and reports errors to the log endpoint. Apple's reference and what
// was decided where it is silent: docs/living-passes.md.
import type { Clock } from '../clock';
import type { Config } from '../config';
import { findPass, type Pass } from '../db/passes';
import { register, serialsUpdatedSince, unregister } from '../db/registrations';
import type { Store } from '../db/store';
import { AppError } from '../errors';
import type { Logger } from '../log';
import { webhookEventData, webhookEventJobs } from '../webhooks';
import { authorizes } from './authentication-token';
import { asSerialNumber, type SerialNumber } from './ids';
import { type CurrentFile, currentPassFile, type Living } from './living';
import type { PassIssuer } from './pkpass';

/** What the web service needs. */
export type PassKitDeps = {
  config: Pick<Config, 'webhook' | 'devicesPerPass'>;
  log: Logger;
  /** When registrations are made and ended: the day the stats count them on. */
  clock: Clock;
  store: Pick<Store, 'sql' | 'jobs'>;
  living: Pick<Living, 'passTypeIdentifier' | 'tokenKey' | 'barcodeKey' | 'files'>;
  issuer: PassIssuer;
};

/** Every way a request can fail to prove it holds the pass answers the same: 401, nothing learned. */
const unauthorized = () => new AppError('unauthorized', 'The Authorization header does not carry this pass’s authentication token (ApplePass <token>).');

/** The pass, if the request carries its authentication token and names its pass type. */
async function authorizedPass(deps: PassKitDeps, passTypeIdentifier: string, serialNumber: SerialNumber, authorization: string | null): Promise<Pass> {
  if (passTypeIdentifier !== deps.living.passTypeIdentifier) throw unauthorized();
  const pass = await findPass(deps.store.sql, { serialNumber });
  // A pass whose file was never built has no stored hash yet: no device can hold its token.
  if (!pass || !authorizes(authorization, pass.authTokenHash)) throw unauthorized();
  return pass;
}

export type Registration = { deviceLibraryIdentifier: string; passTypeIdentifier: string; serialNumber: string };

/**
 * Registers the device for the pass's pushes; `created` false when it already was (its push token
 * is updated). Past DEVICES_PER_PASS the oldest registrations go (docs/decisions.md says why).
 */
export async function registerDevice(deps: PassKitDeps, params: Registration, pushToken: string, authorization: string | null): Promise<{ created: boolean }> {
  const pass = await authorizedPass(deps, params.passTypeIdentifier, asSerialNumber(params.serialNumber), authorization);
  const { deviceLibraryIdentifier } = params;
  const now = new Date(deps.clock.now());
  const events = {
    onCreated: webhookEventJobs(deps.config, 'device.registered', webhookEventData(pass, { deviceLibraryIdentifier }), now),
    // The statement names each device it removes.
    onEvicted: webhookEventJobs(deps.config, 'device.unregistered', webhookEventData(pass, { reason: 'device_limit' }), now),
  };
  const registration = { deviceLibraryIdentifier, serialNumber: pass.serialNumber, pushToken, now };
  const { created, evicted } = await register(deps.store.jobs, registration, deps.config.devicesPerPass, events);
  if (created) {
    deps.log.info({ event: 'device_registered', serial: pass.serialNumber, evicted }, 'device registered for pass updates');
  }
  return { created };
}

/** Ends the device's registration for the pass (200 whether or not there was one: the outcome is the same). */
export async function unregisterDevice(deps: PassKitDeps, params: Registration, authorization: string | null): Promise<void> {
  const pass = await authorizedPass(deps, params.passTypeIdentifier, asSerialNumber(params.serialNumber), authorization);
  const { deviceLibraryIdentifier } = params;
  const now = new Date(deps.clock.now());
  const event = webhookEventJobs(deps.config, 'device.unregistered', webhookEventData(pass, { deviceLibraryIdentifier }), now);
  const removed = await unregister(deps.store.jobs, { deviceLibraryIdentifier, serialNumber: pass.serialNumber, now }, event);
  if (removed) {
    deps.log.info({ event: 'device_unregistered', serial: pass.serialNumber }, 'device unregistered from pass updates');
  }
}

/** A tag this service handed out: microseconds since the epoch. Anything else counts as no tag. */
const TAG = /^\d{1,19}$/;

/**
 * The serial numbers of the device's passes changed after `passesUpdatedSince` (all of them
 * without it), and the tag to send next time; undefined when there are none (204).
 */
export async function updatedSerials(
  deps: Pick<PassKitDeps, 'store' | 'living'>,
  deviceLibraryIdentifier: string,
  passTypeIdentifier: string,
  passesUpdatedSince: string | undefined,
): Promise<{ serialNumbers: string[]; lastUpdated: string } | undefined> {
  if (passTypeIdentifier !== deps.living.passTypeIdentifier) return undefined;
  const since = passesUpdatedSince !== undefined && TAG.test(passesUpdatedSince) ? passesUpdatedSince : undefined;
  const { serialNumbers, lastUpdated } = await serialsUpdatedSince(deps.store.sql, deviceLibraryIdentifier, since);
  if (serialNumbers.length === 0 || lastUpdated === undefined) return undefined;
  return { serialNumbers, lastUpdated };
}

export type LatestPass = { kind: 'file'; file: CurrentFile } | { kind: 'not_modified'; lastModified: Date };

/** The pass's current .pkpass, or not_modified when `ifModifiedSince` is at or after its Last-Modified. */
export async function latestPass(
  deps: PassKitDeps,
  passTypeIdentifier: string,
  serialNumber: string,
  authorization: string | null,
  ifModifiedSince: string | null,
): Promise<LatestPass> {
  const pass = await authorizedPass(deps, passTypeIdentifier, asSerialNumber(serialNumber), authorization);
  const file = await currentPassFile(deps, pass);
  const since = ifModifiedSince ? Date.parse(ifModifiedSince) : Number.NaN;
  if (!Number.isNaN(since) && since >= file.lastModified.getTime()) return { kind: 'not_modified', lastModified: file.lastModified };
  return { kind: 'file', file };
}

/** At most this many entries of at most this many characters each are logged per request: the endpoint is open to anyone. */
export const MAX_LOG_ENTRIES = 20;
export const MAX_LOG_ENTRY_LENGTH = 1000;

/** Wallet's error reports about this web service, into the service's log. */
export function recordDeviceLogs(deps: { log: Logger }, logs: string[]): void {
  for (const entry of logs.slice(0, MAX_LOG_ENTRIES)) {
    deps.log.warn({ event: 'passkit_device_log', entry: entry.slice(0, MAX_LOG_ENTRY_LENGTH) }, 'Wallet reported a web service problem');
  }
}
