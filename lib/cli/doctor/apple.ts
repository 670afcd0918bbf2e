// The Apple checks: the signing material (configured, or the development chain) and a sample pass
// signed with it. How the material is judged is lib/passes/certificates.ts's; these lines say, for
// each way it can be wrong, what the operator sees and how to fix it.
import type { KeyObject, X509Certificate } from 'node:crypto';
import { type AppleSigning, type Config, ConfigError } from '../../config';
import {
  ensureDevelopmentChain,
  issuance,
  keyBelongsToCertificate,
  parseCertificate,
  passTypeOfCertificate,
  readSignerKey,
  validityAt,
} from '../../passes/certificates';
import { bad, type CheckLine, type FailedLine, ok } from './check-line';
import { configurationProblem, FIXES } from './configuration';
import { describeName, errorSummary, isoDate } from './describe';
import { checkSamplePass } from './sample-pass';

/** A certificate that expires within this many days fails the doctor: time to renew it. */
export const EXPIRY_WARNING_DAYS = 30;
const DAY_MS = 24 * 3600 * 1000;

type AppleMaterial = { apple: AppleSigning; signer: X509Certificate; wwdr: X509Certificate; key?: KeyObject; development: boolean };

const RENEW_FIX = 'create a new Pass Type ID certificate in the Apple Developer portal and replace APPLE_SIGNER_CERT and APPLE_SIGNER_KEY';

export async function appleChecks(config: Config, options: { production: boolean; now: Date; openssl: string }): Promise<CheckLine[]> {
  const lines: CheckLine[] = [];
  if (!config.apple) lines.push(checkDevelopmentCertificates(options.production));
  const material = readAppleMaterial(config);
  if ('problem' in material) return [...lines, material];
  lines.push(
    checkKeyMatchesCertificate(material),
    checkCertificateNotExpiring(material, options.now),
    checkWwdrIssuedSigner(material, options.now),
    checkCertificateNamesPassType(material),
    await checkSamplePass(config, material, options.now, options.openssl),
  );
  return lines;
}

/** Prevents: "the pass downloads but my iPhone won't add it" (a development chain is not Apple's). */
function checkDevelopmentCertificates(production: boolean): CheckLine {
  return bad(
    'development certificates',
    'passes will not install on a phone (no Apple certificates are configured, so a development chain in DATA_DIR signs them)',
    'set APPLE_PASS_TYPE_ID, APPLE_TEAM_ID, APPLE_SIGNER_CERT, APPLE_SIGNER_KEY and APPLE_WWDR_CERT (README.md, "Apple Wallet signing material")',
    !production,
  );
}

/** The configured material, or the development chain (created in DATA_DIR, as the service would). */
function readAppleMaterial(config: Config): AppleMaterial | FailedLine {
  const development = !config.apple;
  let apple: AppleSigning;
  try {
    apple = config.apple ?? { ...ensureDevelopmentChain(config.dataDir) };
  } catch (error) {
    return bad('development certificates', `cannot be created in DATA_DIR (${errorSummary(error)})`, FIXES.DATA_DIR);
  }
  try {
    const signer = parseCertificate(apple.signerCertPem, 'APPLE_SIGNER_CERT');
    const wwdr = parseCertificate(apple.wwdrCertPem, 'APPLE_WWDR_CERT');
    // An unreadable key is reported by checkKeyMatchesCertificate, beside the other checks.
    return { apple, signer, wwdr, key: readSignerKey(apple), development };
  } catch (error) {
    if (error instanceof ConfigError) return configurationProblem(error);
    throw error;
  }
}

/** Prevents: "every download fails" or "Wallet says the pass is invalid" (a key from another certificate). */
function checkKeyMatchesCertificate({ signer, key, apple, development }: AppleMaterial): CheckLine {
  const what = `${chainName(development)} signer key matches the signer certificate`;
  if (!key) {
    return bad(
      what,
      apple.signerKeyPassphrase === undefined
        ? 'APPLE_SIGNER_KEY cannot be read as a PEM private key'
        : 'APPLE_SIGNER_KEY cannot be read with APPLE_SIGNER_KEY_PASSPHRASE',
      'give the key the certificate was made with (and APPLE_SIGNER_KEY_PASSPHRASE if it is encrypted)',
    );
  }
  if (!keyBelongsToCertificate(key, signer)) {
    return bad(what, 'APPLE_SIGNER_KEY belongs to another certificate', 'give the key made with the CSR of this certificate, or the certificate of this key');
  }
  return ok(what);
}

/** Prevents: "passes stopped installing one morning" (the certificate ran out; Apple's last a year). */
function checkCertificateNotExpiring({ signer, development }: AppleMaterial, now: Date): CheckLine {
  const validTo = new Date(signer.validTo);
  const date = isoDate(validTo);
  const what = `${chainName(development)} signer certificate valid until ${date}`;
  const validity = validityAt(signer, now);
  if (validity === 'not yet valid') {
    return bad(what, `it is not valid before ${isoDate(new Date(signer.validFrom))}`, 'check the clock of this machine, or use a certificate valid now');
  }
  if (validity === 'expired') return bad(what, `it expired on ${date}`, RENEW_FIX);
  const daysLeft = Math.floor((validTo.getTime() - now.getTime()) / DAY_MS);
  if (daysLeft < EXPIRY_WARNING_DAYS) return bad(what, `it expires on ${date}, in ${daysLeft} ${daysLeft === 1 ? 'day' : 'days'}`, RENEW_FIX);
  return ok(what);
}

/** Prevents: "Wallet rejects the pass" (signer chained to the old WWDR G1, or the wrong intermediate). */
function checkWwdrIssuedSigner({ signer, wwdr, development }: AppleMaterial, now: Date): CheckLine {
  const what = `${development ? 'development WWDR' : 'APPLE_WWDR_CERT'} issued the signer certificate`;
  const fix = 'use the WWDR intermediate that issued it (today G4: https://www.apple.com/certificateauthority/)';
  const issued = issuance(signer, wwdr);
  if (issued === 'other name') {
    return bad(what, `the signer certificate was issued by "${describeName(signer.issuer)}", not by "${describeName(wwdr.subject)}"`, fix);
  }
  if (issued === 'other key') return bad(what, "it has the name of the signer certificate's issuer, but its key did not sign it", fix);
  if (validityAt(wwdr, now) === 'expired') return bad(what, `the WWDR certificate expired on ${isoDate(new Date(wwdr.validTo))}`, fix);
  return ok(what);
}

/** Prevents: "Wallet says the pass is invalid" when pass.json's ids are not the certificate's. */
function checkCertificateNamesPassType({ signer, apple, development }: AppleMaterial): CheckLine {
  const [typeVariable, teamVariable] = development ? ['the development pass type id', 'team id'] : ['APPLE_PASS_TYPE_ID', 'APPLE_TEAM_ID'];
  const what = `signer certificate is for ${typeVariable} ${apple.passTypeIdentifier} and ${teamVariable} ${apple.teamIdentifier}`;
  const { passTypeIdentifier: uid, teamIdentifier: ou } = passTypeOfCertificate(signer);
  if (uid === apple.passTypeIdentifier && ou === apple.teamIdentifier) return ok(what);
  return bad(
    what,
    `the certificate's subject has UID=${uid ?? '(none)'}, OU=${ou ?? '(none)'}`,
    uid?.startsWith('pass.')
      ? `set APPLE_PASS_TYPE_ID=${uid} and APPLE_TEAM_ID=${ou ?? '<your team id>'}, or use the certificate made for ${apple.passTypeIdentifier}`
      : 'use a Pass Type ID certificate from the Apple Developer portal',
  );
}

const chainName = (development: boolean) => (development ? 'development' : 'Apple');
