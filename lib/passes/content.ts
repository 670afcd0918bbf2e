// What a pass says, whichever wallet app shows it: the fields, the QR code's target and the
// Explorer link, shared by the Apple pass (./pkpass.ts) and the Google Wallet object
// (./google-wallet.ts) so the two never disagree.
import { shortAddress } from '../address';
import { barcodeText } from '../check-in/barcode';
import { fillPlaceholders } from '../programs/design';
import type { Design, DesignField, FieldGroup } from '../programs/schema';
import type { WalletType } from '../wallet-types';
import { designFor } from './designs';

/**
 * The program of a pass whose program has a design of its own (every program but the default,
 * whose passes follow each wallet's brand). Its version keys what is built from it once (the
 * Google class).
 */
export type PassProgram = { slug: string; name: string; version: string; design: Design };

/** What a pass says: one wallet's claim. */
export type PassContent = {
  serialNumber: string;
  publicKey: string;
  walletType: WalletType;
  claimedAt: Date;
  /** A voided pass: Wallet shows it as void, Google as inactive (lib/passes/lifecycle.ts). */
  voided?: boolean;
  /** Set by an operator: after it, Wallet and Google Wallet show the pass as expired. */
  expirationDate?: Date;
  /** Set by an operator: when Apple Wallet brings the pass to the lock screen (an event's start). */
  relevantDate?: Date;
  /**
   * Makes the Apple pass a living one: its webServiceURL (PUBLIC_BASE_URL/passkit) and this token,
   * with which Wallet registers for and fetches its updates (./authentication-token.ts).
   */
  authenticationToken?: string;
  /**
   * The MAC the barcode carries beside the serial (lib/check-in/barcode.ts): what check-in at the
   * door accepts. Absent (a sample pass, a test): the barcode is the bare /verify URL.
   */
  checkInCode?: string;
  /** Absent: the wallet-brand designs (./designs.ts), as the default program's passes have always had. */
  program?: PassProgram;
  /**
   * The program's latest message to its holders (lib/updates): a back field whose changeMessage
   * makes Wallet show it as a notification when it changes. Never on a voided pass.
   */
  message?: string;
};

/** The back field of a program's message: Wallet notifies with its text (`%@`) when the value changes. */
export function messageField(message: string): { key: string; label: string; value: string; changeMessage: string } {
  return { key: 'programMessage', label: 'Message', value: message, changeMessage: '%@' };
}

/** Where Wallet reaches the PassKit web service of this service's passes. */
export function webServiceUrl(publicBaseUrl: string): string {
  return `${publicBaseUrl}/passkit`;
}

/** What the issuer puts on every pass. */
export type PassIssuerText = { organizationName: string; chainId: string };

export function explorerUrl(address: string, chainId: string): string {
  const cluster = chainId.replace(/^solana:/, '');
  const query = cluster === 'mainnet' || cluster === 'mainnet-beta' ? '' : `?cluster=${encodeURIComponent(cluster)}`;
  return `https://explorer.solana.com/address/${address}${query}`;
}

/** Where the pass's QR code leads: the public scanner check, keyed by the public serial number. */
export function verifyUrl(publicBaseUrl: string, serialNumber: string): string {
  return `${publicBaseUrl}/verify?serial=${encodeURIComponent(serialNumber)}`;
}

/** The barcode's text: the /verify URL, with the check-in MAC when the pass has one. */
export function passBarcode(publicBaseUrl: string, content: Pick<PassContent, 'serialNumber' | 'checkInCode'>): string {
  return content.checkInCode ? barcodeText(publicBaseUrl, content.serialNumber, content.checkInCode) : verifyUrl(publicBaseUrl, content.serialNumber);
}

/** W3C date-time without fractional seconds, the form Wallet's date fields parse everywhere. */
export function passDate(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** The fields a pass shows, with their labels. */
export function passText(content: PassContent, issuer: PassIssuerText) {
  const design = designFor(content.walletType);
  return {
    design,
    address: { label: 'Wallet', value: shortAddress(content.publicKey) },
    walletApp: { label: 'Wallet app', value: design.logoText },
    claimed: { label: 'Claimed', value: passDate(content.claimedAt) },
    fullAddress: { label: 'Wallet address', value: content.publicKey },
    explorer: { label: 'Solana Explorer', value: explorerUrl(content.publicKey, issuer.chainId) },
    issuedBy: { label: 'Issued by', value: issuer.organizationName },
  };
}

/**
 * The dates the pass carries: the pass's own (set by an operator) before its program's design's.
 * Passes without a program design have only their own.
 */
export function passDates(content: Pick<PassContent, 'expirationDate' | 'relevantDate' | 'program'>): { expirationDate?: Date; relevantDate?: Date } {
  const design = content.program?.design;
  const expirationDate = content.expirationDate ?? (design?.expirationDate ? new Date(design.expirationDate) : undefined);
  const relevantDate = content.relevantDate ?? (design?.relevantDate ? new Date(design.relevantDate) : undefined);
  return { ...(expirationDate ? { expirationDate } : {}), ...(relevantDate ? { relevantDate } : {}) };
}

/** What a program pass says beside its fields: the names on it, falling back to the program's name. */
export function programNames(program: PassProgram): { organizationName: string; description: string; logoText: string } {
  const { design } = program;
  return {
    organizationName: design.organizationName ?? program.name,
    description: design.description ?? program.name,
    logoText: design.logoText ?? program.name,
  };
}

/** A program design's fields, group by group, with their placeholders filled for this pass. */
export function programFields(content: PassContent, program: PassProgram): Record<FieldGroup, DesignField[]> {
  const values = { publicKey: content.publicKey, serialNumber: content.serialNumber, claimedAt: content.claimedAt, walletType: content.walletType };
  const fill = (fields: DesignField[]) => fields.map((field) => ({ ...field, value: fillPlaceholders(field.value, values) }));
  const { fields } = program.design;
  return {
    header: fill(fields.header),
    primary: fill(fields.primary),
    secondary: fill(fields.secondary),
    auxiliary: fill(fields.auxiliary),
    back: fill(fields.back),
  };
}
