// Check-in at the door (docs/check-in.md): a scanned barcode (or a serial typed by hand) in, an
// answer out: admitted or not, and why. Only a barcode whose MAC is the serial's counts as a code
// (./barcode.ts); anything else scanned is `unknown_code`, an answer rather than an error, since a
// door scans whatever is held up to it. The rule of the pass's program and the pass's state are
// decided by one statement that also inserts the admission and its webhook event (lib/db/check-ins.ts),
// shared by the check-ins that arrive together (Store.admit).
import { randomUUID } from 'node:crypto';
import type { Clock } from '../clock';
import type { Config } from '../config';
import { admissionsOf, type Refusal } from '../db/check-ins';
import type { Store } from '../db/store';
import { NOT_ELIGIBLE } from '../eligibility/recheck';
import type { Logger } from '../log';
import type { Operator } from '../operators/auth';
import { asSerialNumber, SERIAL_NUMBER_PATTERN, type SerialNumber } from '../passes/ids';
import type { Living } from '../passes/living';
import { webhookEventData, webhookEventJobs } from '../webhooks';
import { verifyBarcode } from './barcode';

/** Every answer's reason; only `checked_in` admits. */
export const CHECK_IN_REASONS = ['checked_in', 'already_checked_in', 'voided', 'expired', 'not_eligible', 'wrong_program', 'unknown_code'] as const;

export type CheckInReason = (typeof CHECK_IN_REASONS)[number];

export type CheckInRequest = {
  /** The barcode's text, as scanned. */
  code?: string;
  /** A serial number typed by hand. */
  serialNumber?: string;
  /** The door's program: a pass of another is refused. */
  program?: string;
};

export type CheckInAnswer = {
  admitted: boolean;
  reason: CheckInReason;
  program: string | null;
  serialNumber: string | null;
  publicKey: string | null;
  /** This admission, or (already_checked_in) the earlier one the program's rule counts. */
  checkedInAt: Date | null;
  /** The pass's first admission ever. */
  firstCheckInAt: Date | null;
};

/** What checking in needs. */
export type CheckInDeps = {
  config: Pick<Config, 'webhook'>;
  store: Pick<Store, 'sql' | 'admit'>;
  clock: Clock;
  log: Logger;
  living: Pick<Living, 'barcodeKey'>;
};

const UNKNOWN: CheckInAnswer = {
  admitted: false,
  reason: 'unknown_code',
  program: null,
  serialNumber: null,
  publicKey: null,
  checkedInAt: null,
  firstCheckInAt: null,
};

/** The serial a request names, if any: a genuine barcode's, or one typed by hand. */
function serialOf(deps: Pick<CheckInDeps, 'living'>, request: CheckInRequest): SerialNumber | undefined {
  if (request.code !== undefined) return verifyBarcode(deps.living.barcodeKey, request.code);
  const typed = request.serialNumber?.trim();
  return typed !== undefined && SERIAL_NUMBER_PATTERN.test(typed) ? asSerialNumber(typed.toLowerCase()) : undefined;
}

/** Checks a pass in at a door: the answer, admitted or not. `operator`: who scanned (for the log). */
export async function checkIn(deps: CheckInDeps, request: CheckInRequest, operator: Pick<Operator, 'credentialId' | 'via'>): Promise<CheckInAnswer> {
  const answer = await decide(deps, request);
  deps.log.info(
    {
      event: 'check_in',
      reason: answer.reason,
      serial: answer.serialNumber,
      door: request.program ?? null,
      manual: request.serialNumber !== undefined,
      // A session's credential id is its token's hash: only an API key's id is named.
      by: operator.via === 'api_key' ? operator.credentialId : 'session',
    },
    answer.admitted ? 'pass checked in' : 'pass not admitted',
  );
  return answer;
}

async function decide(deps: CheckInDeps, request: CheckInRequest): Promise<CheckInAnswer> {
  const serialNumber = serialOf(deps, request);
  if (!serialNumber) return UNKNOWN;
  const now = new Date(deps.clock.now());
  const outcome = await deps.store.admit({
    serialNumber,
    door: request.program,
    now,
    notEligibleReason: NOT_ELIGIBLE,
    uniqueKey: `unlimited:${randomUUID()}`,
    // Without WEBHOOK_URL there is no event, and the pass is not read for one.
    onAdmitted: deps.config.webhook ? (pass) => webhookEventJobs(deps.config, 'pass.checked_in', webhookEventData(pass, { checkedInAt: now }), now) : undefined,
  });
  if (!outcome.found) return UNKNOWN;
  const about = { program: outcome.pass.program, serialNumber: outcome.pass.serialNumber, publicKey: outcome.pass.publicKey };
  if (outcome.refusal)
    return { ...about, admitted: false, reason: outcome.refusal satisfies Refusal, checkedInAt: null, firstCheckInAt: outcome.firstCheckInAt };
  if (outcome.admitted) return { ...about, admitted: true, reason: 'checked_in', checkedInAt: outcome.checkedInAt, firstCheckInAt: outcome.firstCheckInAt };
  // Another door's admission: seen by the statement, or committed after it began (then read anew).
  const seen = outcome.checkedInAt ? { held: outcome.checkedInAt, first: outcome.firstCheckInAt } : await admissionsOf(deps.store.sql, serialNumber, now);
  return { ...about, admitted: false, reason: 'already_checked_in', checkedInAt: seen.held, firstCheckInAt: seen.first };
}
