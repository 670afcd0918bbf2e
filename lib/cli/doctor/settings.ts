// The checks of settings loadConfig already accepted: each line says what the service will do with
// them (who may sign in, who may claim, where events go), so a surprise shows before going live.
import type { Config } from '../../config';
import { describePolicy } from '../../eligibility/policy';
import { type CheckLine, ok } from './check-line';
import { describeUrl } from './describe';

/** Prevents: "I cannot sign in to the console" going unnoticed until the day it is needed. */
export function checkOperatorWallets(config: Config): CheckLine {
  const count = config.operatorWallets.length;
  if (count === 0) return ok('OPERATOR_WALLETS: none (nobody can sign in to the operator console)');
  return ok(`OPERATOR_WALLETS: ${count} operator ${count === 1 ? 'wallet' : 'wallets'}, each an address`);
}

/** Prevents: "everyone (or no one) can claim" from a policy that did not say what was meant. */
export function checkClaimPolicy(config: Config): CheckLine {
  if (!config.claimPolicy) return ok('CLAIM_POLICY: not set (anyone may claim)');
  return ok(`CLAIM_POLICY parses: ${describePolicy(config.claimPolicy)}`);
}

/** Prevents: "no events arrive" from a half-configured pair (the config refuses one without the other). */
export function checkWebhook(config: Config): CheckLine {
  if (!config.webhook) return ok('webhooks: not configured (no events are sent)');
  const where = `events go to ${describeUrl(config.webhook.url)}, signed with a ${config.webhook.key.length}-byte secret`;
  return ok(`webhooks: WEBHOOK_URL and WEBHOOK_SECRET are well-formed (${where})`);
}

/** Prevents: "updates never reach the phone" (APNs speaks HTTP/2 over TLS only). */
export function checkApnsUrl(config: Config): CheckLine {
  return ok(`APNS_URL is https (${new URL(config.apnsUrl).host})`);
}
