// The Google Wallet check: the service account key signs as the service will sign with it.
import { type Config, ConfigError } from '../../config';
import { createGoogleWallet } from '../../passes/google-wallet';
import { bad, type CheckLine, ok } from './check-line';
import { errorSummary } from './describe';

/** Prevents: "the Save to Google Wallet link is refused" (a key that cannot sign RS256 JWTs). */
export async function checkGoogleKey(config: Config): Promise<CheckLine> {
  if (!config.google) return ok('Google Wallet: not configured (passes have no Save to Google Wallet link)');
  const what = `Google Wallet service account key is an RSA PKCS#8 key, client_email ${config.google.clientEmail}`;
  try {
    await createGoogleWallet(config); // the service's own check: imports the key as RS256, measures link length
    return ok(what);
  } catch (error) {
    const reason = error instanceof ConfigError ? error.message : errorSummary(error);
    return bad(what, reason, 'download a new JSON key for the service account (Google Cloud console, IAM, Service accounts, Keys)');
  }
}
