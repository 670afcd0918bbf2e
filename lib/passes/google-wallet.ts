// The "Save to Google Wallet" link of a pass: https://pay.google.com/gp/v/save/<jwt>, where the
// JWT (RS256, signed with the issuer's service-account key) carries the pass as a Generic object
// with the same fields as the Apple pass, in its wallet's colours. Saving creates the object
// (and, the first time, its class) in the issuer's Google Wallet account; nothing is sent to
// Google from here.
import { type CryptoKey, importPKCS8, SignJWT } from 'jose';
import { shortAddress } from '../address';
import { type Config, ConfigError } from '../config';
import { type BarcodeFormat, DEFAULT_PROGRAM } from '../programs/schema';
import { type PassContent, type PassProgram, passBarcode, passDates, passText, programFields, programNames } from './content';

export const GOOGLE_SAVE_URL = 'https://pay.google.com/gp/v/save/';

/** Browsers and chat apps truncate longer links, and Google rejects a truncated token. */
export const MAX_JWT_LENGTH = 1800;

export type GoogleWallet = {
  issuerId: string;
  clientEmail: string;
  key: CryptoKey;
  publicBaseUrl: string;
  organizationName: string;
  chainId: string;
};

/** Imports the service-account key once; an unreadable key stops start-up. */
export async function createGoogleWallet(config: Config): Promise<GoogleWallet | undefined> {
  if (!config.google) return undefined;
  let key: CryptoKey;
  try {
    key = await importPKCS8(config.google.privateKeyPem, 'RS256');
  } catch {
    throw new ConfigError('GOOGLE_SERVICE_ACCOUNT', 'private_key is not an RSA private key in PKCS#8 PEM');
  }
  const google: GoogleWallet = {
    issuerId: config.google.issuerId,
    clientEmail: config.google.clientEmail,
    key,
    publicBaseUrl: config.publicBaseUrl,
    organizationName: config.organizationName,
    chainId: config.chainId,
  };
  // The configuration decides most of a link's length: a pass with the longest of everything
  // else shows now, not at some later download, whether links would be too long.
  const longest = await googleToken(LONGEST_PASS, google);
  if (longest.length > MAX_JWT_LENGTH) {
    throw new ConfigError(
      'GOOGLE_WALLET_ISSUER_ID',
      `Save to Google Wallet links would be up to ${longest.length} characters, over ${MAX_JWT_LENGTH}: shorten PUBLIC_BASE_URL or PASS_ORGANIZATION_NAME`,
    );
  }
  return google;
}

/** A pass whose own fields are as long as any can be: 44-character address, longest wallet name and date. */
export const LONGEST_PASS: PassContent = {
  serialNumber: '00000000-0000-4000-8000-000000000000',
  publicKey: 'J'.repeat(44),
  walletType: 'Coinbase Wallet',
  claimedAt: new Date('2026-09-28T00:00:00Z'),
  // Every issued pass's barcode carries one (lib/check-in/barcode.ts): 22 characters.
  checkInCode: 'A'.repeat(22),
};

/** One class for every pass of the default program: the colours and text are the object's own. */
export const classId = (google: Pick<GoogleWallet, 'issuerId'>) => `${google.issuerId}.wallet_pass`;

/**
 * The class of a pass: one per program (slugs have no `_`, so `program_<slug>` never meets another
 * program's class or `wallet_pass`). The default program keeps the issuer's one, even given a
 * design: its objects name that class already, and an object's class does not change.
 */
export const classIdOf = (content: Pick<PassContent, 'program'>, google: Pick<GoogleWallet, 'issuerId'>) =>
  content.program && content.program.slug !== DEFAULT_PROGRAM ? `${google.issuerId}.program_${content.program.slug.replaceAll('-', '_')}` : classId(google);

const BARCODE_TYPES: Record<BarcodeFormat, string> = { qr: 'QR_CODE', pdf417: 'PDF_417', aztec: 'AZTEC', code128: 'CODE_128' };

const text = (value: string) => ({ defaultValue: { language: 'en', value } });

/**
 * The Generic object of a pass: the Apple pass's fields in its wallet's colour, laid out to keep
 * the link short. The card title is the wallet's name (Apple's logo text and "Wallet app"
 * field); the header is the short address (Apple's primary field); the full address is the
 * text of the Solana Explorer link (Apple's two back fields in one).
 */
export function genericObject(content: PassContent, google: GoogleWallet) {
  if (content.program) return programObject(content, content.program, google);
  const pass = passText(content, google);
  return {
    id: googleObjectId(content, google),
    classId: classId(google),
    hexBackgroundColor: pass.design.background,
    cardTitle: text(pass.walletApp.value),
    subheader: text(pass.address.label),
    header: text(pass.address.value),
    textModulesData: [
      { header: pass.claimed.label, body: claimedDay(content.claimedAt) },
      { header: pass.issuedBy.label, body: pass.issuedBy.value },
    ],
    linksModuleData: { uris: [{ uri: pass.explorer.value, description: pass.fullAddress.value }] },
    barcode: { type: 'QR_CODE', value: passBarcode(google.publicBaseUrl, content), alternateText: pass.address.value },
    // Only a voided pass says so: the save link of an active one stays as short as before.
    ...(content.voided ? { state: 'INACTIVE' } : {}),
    // Google shows a pass past its interval's end as expired.
    ...(content.expirationDate ? { validTimeInterval: { end: { date: content.expirationDate.toISOString() } } } : {}),
  };
}

/**
 * The Generic object of a program pass, drawn from its design as the Apple pass is: the card title
 * is the logo text (or the program's name), the header the first primary field (its label the
 * subheader), every other field a text module, the barcode in the design's format.
 */
function programObject(content: PassContent, program: PassProgram, google: GoogleWallet) {
  const fields = programFields(content, program);
  const [primary, ...morePrimary] = fields.primary;
  const { expirationDate } = passDates(content);
  const modules = [...fields.header, ...morePrimary, ...fields.secondary, ...fields.auxiliary, ...fields.back];
  return {
    id: googleObjectId(content, google),
    classId: classIdOf(content, google),
    hexBackgroundColor: program.design.backgroundColor,
    cardTitle: text(programNames(program).logoText),
    ...(primary?.label ? { subheader: text(primary.label) } : {}),
    header: text(primary?.value ?? program.name),
    textModulesData: modules.map((field) => ({ id: field.key, ...(field.label ? { header: field.label } : {}), body: field.value })),
    barcode: {
      type: BARCODE_TYPES[program.design.barcode],
      value: passBarcode(google.publicBaseUrl, content),
      alternateText: shortAddress(content.publicKey),
    },
    ...(content.voided ? { state: 'INACTIVE' } : {}),
    ...(expirationDate ? { validTimeInterval: { end: { date: expirationDate.toISOString() } } } : {}),
  };
}

/** Object ids are "<issuer id>.<unique suffix>"; the serial number is already public. */
export const googleObjectId = (content: Pick<PassContent, 'serialNumber'>, google: Pick<GoogleWallet, 'issuerId'>) =>
  `${google.issuerId}.${content.serialNumber}`;

/** The save link of an object already created through the REST API: the JWT names it by id only. */
export async function googleSaveUrlOfObject(objectId: string, google: GoogleWallet, now = new Date()): Promise<string> {
  return GOOGLE_SAVE_URL + (await signSaveJwt({ genericObjects: [{ id: objectId }] }, google, now));
}

/** "21 Nov 2026": Google shows text modules as they are, so the date is written out (UTC). */
function claimedDay(date: Date): string {
  return new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' }).format(date);
}

/** The save link of a pass. */
export async function googleSaveUrl(content: PassContent, google: GoogleWallet, now = new Date()): Promise<string> {
  return GOOGLE_SAVE_URL + (await googleToken(content, google, now));
}

async function googleToken(content: PassContent, google: GoogleWallet, now = new Date()): Promise<string> {
  return signSaveJwt({ genericObjects: [genericObject(content, google)] }, google, now);
}

async function signSaveJwt(payload: Record<string, unknown>, google: GoogleWallet, now: Date): Promise<string> {
  return new SignJWT({
    typ: 'savetowallet',
    // Google only shows the save button on pages of these origins.
    origins: [google.publicBaseUrl],
    payload,
  })
    .setProtectedHeader({ alg: 'RS256' })
    .setIssuer(google.clientEmail)
    .setAudience('google')
    .setIssuedAt(Math.floor(now.getTime() / 1000))
    .sign(google.key);
}
