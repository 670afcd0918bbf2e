// Living passes: a pass that changes (voided, restored, its fields) reaches the phone. The current
// .pkpass is built for the pass's current version, signed with that version's Last-Modified, so
// every build of one version gives the same bytes; it is kept in memory only (./pass-file-cache.ts),
// as it holds the pass's authentication token. Every device registered for the pass gets an APNs
// push (one queued job each); its Google Wallet object is PATCHed.
import { createHash } from 'node:crypto';
import { type BarcodeKey, barcodeMac } from '../check-in/barcode';
import type { Config } from '../config';
import { markGoogle, type Pass, passFileLastModified, savePassFile, savePassFileEtag } from '../db/passes';
import { findProgram, type Program } from '../db/programs';
import type { Store } from '../db/store';
import { isAppError } from '../errors';
import type { Logger } from '../log';
import { programImages } from '../programs/images';
import { DEFAULT_PROGRAM } from '../programs/schema';
import { isWalletType, type WalletType } from '../wallet-types';
import { ApnsClient } from './apns';
import { authenticationToken, loadTokenKey, type TokenKey, tokenHash } from './authentication-token';
import type { SigningMaterial } from './certificates';
import type { PassContent, PassProgram } from './content';
import { GoogleWalletApi } from './google-api';
import { type GoogleWallet, googleObjectId, googleSaveUrl, googleSaveUrlOfObject } from './google-wallet';
import { PassFileCache } from './pass-file-cache';
import { buildPkpass, type PassIssuer, passFilename, programPassFilename } from './pkpass';

export type Living = {
  tokenKey: TokenKey;
  /** The key of the barcodes' check-in MACs (lib/check-in/barcode.ts). */
  barcodeKey: BarcodeKey;
  /** The current files of recently served passes: never stored, they hold the token. */
  files: PassFileCache;
  passTypeIdentifier: string;
  apns: ApnsClient;
  /** Set when Google Wallet is configured. */
  googleApi?: GoogleWalletApi;
  close(): void;
};

/**
 * The version of what a pass file holds beyond the pass itself, moved when every pass's file must
 * change: a recorded file of an older format is built anew, with a later Last-Modified (and so a
 * new ETag), at its next download or fetch by Wallet. 2: the barcode carries the check-in MAC.
 */
export const PASS_FILE_FORMAT = 2;

export function createLiving(config: Config, signing: SigningMaterial, google: GoogleWallet | undefined, barcodeKey: BarcodeKey): Living {
  const apns = new ApnsClient({
    url: config.apnsUrl,
    // Apple: the push authenticates with the certificate and key that sign the pass.
    certPem: signing.signerCertPem,
    keyPem: signing.signerKeyPem,
    topic: signing.passTypeIdentifier,
  });
  return {
    tokenKey: loadTokenKey(config.passkitTokenKey, config.dataDir),
    barcodeKey,
    files: new PassFileCache(),
    passTypeIdentifier: signing.passTypeIdentifier,
    apns,
    googleApi:
      google && config.google
        ? new GoogleWalletApi(google, { tokenUri: config.google.tokenUri, apiUrl: config.google.apiUrl, rps: config.googleWalletRps })
        : undefined,
    close: () => apns.close(),
  };
}

/** The keys a pass's content is derived under: its web service token's and its barcode's. */
export type PassKeys = Pick<Living, 'tokenKey' | 'barcodeKey'>;

/**
 * What the pass says now, with its web service token and its barcode's check-in MAC: the input of both the Apple file and the
 * Google object. `program` is the pass's program as read after the pass: with a design, the pass
 * is drawn from it; without (the default program), from its wallet's brand.
 */
export function passContentOf(pass: Pass, keys: PassKeys, program?: Program): PassContent & { authenticationToken: string } {
  const walletType: WalletType = isWalletType(pass.walletType) ? pass.walletType : 'Generic';
  return {
    serialNumber: pass.serialNumber,
    publicKey: pass.publicKey,
    walletType,
    claimedAt: pass.claimedAt,
    voided: pass.status === 'voided',
    ...(pass.expirationDate ? { expirationDate: pass.expirationDate } : {}),
    ...(pass.relevantDate ? { relevantDate: pass.relevantDate } : {}),
    authenticationToken: authenticationToken(keys.tokenKey, pass.serialNumber),
    checkInCode: barcodeMac(keys.barcodeKey, pass.serialNumber),
    ...(program ? passProgramOf(program) : {}),
    ...(program?.message && pass.status !== 'voided' ? { message: program.message } : {}),
  };
}

function passProgramOf(program: Program): { program?: PassProgram } {
  if (!program.design) return {};
  return { program: { slug: program.slug, name: program.name, version: program.version, design: program.design } };
}

/**
 * The program of a pass, read from the database after the pass, never from a cache: a program
 * change moves its passes' versions in the same statement, so a program read after a pass is at
 * least as new as the pass's version says, and a file recorded for a version never carries an
 * older design (a cache another instance has not yet forgotten could give it one).
 */
export function programOfPass(store: Pick<Store, 'sql'>, pass: Pick<Pass, 'program'>): Promise<Program | undefined> {
  return findProgram(store.sql, pass.program);
}

/** What the pass says now, with its program read after it (see programOfPass). */
export async function currentPassContent(store: Pick<Store, 'sql'>, pass: Pass, keys: PassKeys): Promise<PassContent & { authenticationToken: string }> {
  return passContentOf(pass, keys, await programOfPass(store, pass));
}

export type CurrentFile = { pkpass: Buffer; etag: string; lastModified: Date; filename: string };

/** How many times a first build of a version is retried when the pass changes again while it is being built. */
const REBUILD_ATTEMPTS = 3;

/**
 * The pass's current .pkpass. Once a file of the pass's current version is recorded (its ETag and
 * Last-Modified), it is rebuilt whenever this process does not have it in memory, signed with that
 * Last-Modified: the same bytes on every download, on every instance, after every restart.
 * Otherwise it is built for the current version and recorded; concurrent first builds of one
 * version keep the first one recorded.
 */
export async function currentPassFile(
  deps: { living: Pick<Living, 'tokenKey' | 'barcodeKey' | 'files'>; issuer: PassIssuer; store: Pick<Store, 'sql'> },
  pass: Pass,
): Promise<CurrentFile> {
  const { living, store } = deps;
  let current = pass;
  for (let attempt = 0; ; attempt++) {
    const { serialNumber, version } = current;
    // A file of an older format is not this version's file: built anew below, later Last-Modified.
    const recorded = current.pkpassBuiltFor === version && current.pkpassFormat === PASS_FILE_FORMAT ? current.pkpassModifiedAt : null;
    if (recorded) {
      const pass = current;
      const file = await living.files.getOrBuild(serialNumber, version, recorded, async () => {
        const built = await buildFile(deps, pass, recorded);
        if (built.etag !== pass.pkpassEtag) await savePassFileEtag(store.sql, serialNumber, version, built.etag, PASS_FILE_FORMAT);
        return built;
      });
      return { pkpass: file.pkpass, etag: file.etag, lastModified: recorded, filename: filenameOf(pass) };
    }
    if (attempt === REBUILD_ATTEMPTS) throw new Error('the pass kept changing while its file was rebuilt');
    const lastModified = passFileLastModified(current);
    const file = await buildFile(deps, current, lastModified);
    current = await savePassFile(store.sql, serialNumber, version, {
      etag: file.etag,
      lastModified,
      authTokenHash: file.authTokenHash,
      format: PASS_FILE_FORMAT,
    });
    if (
      current.pkpassBuiltFor === version &&
      current.pkpassFormat === PASS_FILE_FORMAT &&
      current.pkpassModifiedAt?.getTime() === lastModified.getTime() &&
      current.pkpassEtag === file.etag
    ) {
      living.files.set(serialNumber, { version, lastModified, pkpass: file.pkpass, etag: file.etag });
      return { pkpass: file.pkpass, etag: file.etag, lastModified, filename: filenameOf(current) };
    }
  }
}

/**
 * The signed file of the pass as it is, signed at `signingTime`: a pure function of the pass, its
 * program (design and images, at its version), the issuer and that time.
 */
async function buildFile(deps: { living: PassKeys; issuer: PassIssuer; store: Pick<Store, 'sql'> }, pass: Pass, signingTime: Date) {
  const program = await programOfPass(deps.store, pass);
  const content = passContentOf(pass, deps.living, program);
  const images = program && content.program ? await programImages(deps.store, program) : undefined;
  const pkpass = await buildPkpass(content, deps.issuer, signingTime, images);
  const etag = `"${createHash('sha256').update(pkpass).digest('base64url').slice(0, 32)}"`;
  return { pkpass, etag, authTokenHash: tokenHash(content.authenticationToken) };
}

/** The default program's passes are named after their wallet, as they always were; other programs' after the program. */
function filenameOf(pass: Pass): string {
  if (pass.program !== DEFAULT_PROGRAM) return programPassFilename(pass.program);
  return passFilename(isWalletType(pass.walletType) ? pass.walletType : 'Generic');
}

/**
 * The Save to Google Wallet link of a pass. The first time, its Generic object is created through
 * Google's REST API (with its current state), so the link only names it by id: a short JWT, and
 * later changes reach the saved pass by PATCH (./change-jobs.ts). Should Google's API not answer,
 * the link carries the whole object instead (Google creates it on save, as before): the person
 * still gets their pass, and the next change inserts the object if it is missing.
 */
export async function googleSaveLink(
  deps: { google?: GoogleWallet; living: Pick<Living, 'tokenKey' | 'barcodeKey' | 'googleApi'>; log: Logger; store: Pick<Store, 'sql'> },
  pass: Pass,
): Promise<string> {
  const { google, living } = deps;
  if (!google) throw new Error('Google Wallet is not configured');
  if (pass.googleObjectAt) return googleSaveUrlOfObject(googleObjectId(pass, google), google);
  const content = await currentPassContent(deps.store, pass, living);
  try {
    if (!living.googleApi) throw new Error('the Google Wallet API is not configured');
    await living.googleApi.upsertObject(content);
    await markGoogle(deps.store.sql, pass.serialNumber, new Date(), true);
    return googleSaveUrlOfObject(googleObjectId(content, google), google);
  } catch (error) {
    if (isAppError(error)) throw error;
    deps.log.warn(
      { event: 'google_object_insert_failed', serial: pass.serialNumber, err: (error as Error).message },
      'Google Wallet API did not create the object: the link carries it whole',
    );
    // Not marked as created: the next request tries the API again, and the next change inserts it.
    await markGoogle(deps.store.sql, pass.serialNumber, new Date(), false);
    return googleSaveUrl(content, google);
  }
}
