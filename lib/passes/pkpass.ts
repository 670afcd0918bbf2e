// The Apple Wallet pass: one wallet's pass (./content.ts), in its walletType's design, signed into
// a .pkpass.
//
// passkit-generator does what it does well here: the pass model and the validation of every
// field against Apple's schema (an invalid field throws before anything is signed). Its export
// (getAsBuffer) is replaced, because it hashes, signs and zips in ~30 ms of synchronous
// JavaScript per pass (node-forge), blocking every other request meanwhile. The export below
// hashes natively, signs through manifest-signer.ts (key imported once, RSA on the thread pool)
// and zips with fflate: `npm run bench:pass` measures both side by side.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { type Zippable, zipSync } from 'fflate';
import { PKPass } from 'passkit-generator';
import { shortAddress } from '../address';
import type { Config } from '../config';
import type { PassImages } from '../programs/images';
import type { BarcodeFormat } from '../programs/schema';
import type { WalletType } from '../wallet-types';
import type { SigningMaterial } from './certificates';
import { messageField, type PassContent, type PassProgram, passBarcode, passDates, passText, programFields, programNames, webServiceUrl } from './content';
import { designFor, type PassDesign, rgb } from './designs';
import type { ManifestSigner } from './manifest-signer';

/** What every pass of this service shares. */
export type PassIssuer = {
  signing: SigningMaterial;
  signer: ManifestSigner;
  organizationName: string;
  description: string;
  publicBaseUrl: string;
  chainId: string;
};

/** The issuer of this service's passes: its signing material and the settings that go on every pass. */
export function passIssuer(
  config: Pick<Config, 'organizationName' | 'passDescription' | 'publicBaseUrl' | 'chainId'>,
  signing: SigningMaterial,
  signer: ManifestSigner,
): PassIssuer {
  return {
    signing,
    signer,
    organizationName: config.organizationName,
    description: config.passDescription,
    publicBaseUrl: config.publicBaseUrl,
    chainId: config.chainId,
  };
}

const ASSETS_DIR = path.join(process.cwd(), 'lib', 'passes', 'assets');
export const IMAGE_FILES = ['icon.png', 'icon@2x.png', 'icon@3x.png', 'logo.png', 'logo@2x.png', 'logo@3x.png'] as const;

type DesignImages = { files: Record<string, Buffer>; sha1: Record<string, string> };
const imageCache = new Map<string, DesignImages>();

/** A design's images and their manifest hashes, read and hashed once per process. */
export function designImages(design: PassDesign): DesignImages {
  let images = imageCache.get(design.slug);
  if (!images) {
    const files = Object.fromEntries(IMAGE_FILES.map((file) => [file, readFileSync(path.join(ASSETS_DIR, design.slug, file))]));
    const sha1 = Object.fromEntries(Object.entries(files).map(([file, bytes]) => [file, sha1Hex(bytes)]));
    images = { files, sha1 };
    imageCache.set(design.slug, images);
  }
  return images;
}

const sha1Hex = (bytes: Uint8Array) => createHash('sha1').update(bytes).digest('hex');

/**
 * The images of a program pass: the program's own, and the generic design's icon where it has
 * none (Wallet refuses a pass without icon.png).
 */
export function programPassImages(images: PassImages): DesignImages {
  if (images.files['icon.png']) return images;
  const fallback = designImages(designFor('Generic'));
  const icons = IMAGE_FILES.filter((file) => file.startsWith('icon'));
  return {
    files: { ...Object.fromEntries(icons.map((file) => [file, fallback.files[file] as Buffer])), ...images.files },
    sha1: { ...Object.fromEntries(icons.map((file) => [file, fallback.sha1[file] as string])), ...images.sha1 },
  };
}

/** The download filename: the wallet type, so a person with several passes can tell them apart. */
export function passFilename(walletType: WalletType): string {
  return `${designFor(walletType).slug}-wallet-pass.pkpass`;
}

/** The download filename of a program's pass: its program. */
export function programPassFilename(slug: string): string {
  return `${slug}-pass.pkpass`;
}

const BARCODE_FORMATS: Record<BarcodeFormat, 'PKBarcodeFormatQR' | 'PKBarcodeFormatPDF417' | 'PKBarcodeFormatAztec' | 'PKBarcodeFormatCode128'> = {
  qr: 'PKBarcodeFormatQR',
  pdf417: 'PKBarcodeFormatPDF417',
  aztec: 'PKBarcodeFormatAztec',
  code128: 'PKBarcodeFormatCode128',
};

/** The pass as passkit-generator's model: every field is validated against Apple's schema here. */
export function passModel(content: PassContent, issuer: Omit<PassIssuer, 'signer'>): PKPass {
  if (content.program) return programPassModel(content, content.program, issuer);
  const { signing } = issuer;
  const text = passText(content, issuer);
  const { design } = text;
  const pass = new PKPass({}, undefined, {
    formatVersion: 1,
    passTypeIdentifier: signing.passTypeIdentifier,
    teamIdentifier: signing.teamIdentifier,
    serialNumber: content.serialNumber,
    organizationName: issuer.organizationName,
    description: issuer.description,
    logoText: design.logoText,
    backgroundColor: rgb(design.background),
    foregroundColor: rgb(design.foreground),
    labelColor: rgb(design.label),
    sharingProhibited: true,
    ...(content.authenticationToken ? { webServiceURL: webServiceUrl(issuer.publicBaseUrl), authenticationToken: content.authenticationToken } : {}),
    ...(content.voided ? { voided: true } : {}),
  });
  pass.type = 'generic';
  // Through the library's setters: its constructor does not take these two.
  if (content.expirationDate) pass.setExpirationDate(content.expirationDate);
  if (content.relevantDate) pass.setRelevantDate(content.relevantDate);
  pass.primaryFields.push({ key: 'address', ...text.address });
  pass.secondaryFields.push(
    { key: 'walletType', ...text.walletApp },
    { key: 'claimedAt', ...text.claimed, dateStyle: 'PKDateStyleMedium', timeStyle: 'PKDateStyleNone' },
  );
  if (content.message) pass.backFields.push(messageField(content.message));
  pass.backFields.push(
    { key: 'fullAddress', ...text.fullAddress },
    {
      key: 'explorer',
      ...text.explorer,
      attributedValue: `<a href="${text.explorer.value}">View this wallet on Solana Explorer</a>`,
      dataDetectorTypes: ['PKDataDetectorTypeLink'],
    },
    { key: 'issuer', ...text.issuedBy },
  );
  pass.setBarcodes({
    format: 'PKBarcodeFormatQR',
    message: passBarcode(issuer.publicBaseUrl, content),
    messageEncoding: 'iso-8859-1',
    altText: text.address.value,
  });
  return pass;
}

/**
 * A pass of a program with a design of its own: its style, names, colours and fields (placeholders
 * filled for this pass), barcode format, locations and dates; the living-pass keys as every pass.
 */
function programPassModel(content: PassContent, program: PassProgram, issuer: Omit<PassIssuer, 'signer'>): PKPass {
  const { signing } = issuer;
  const { design } = program;
  const pass = new PKPass({}, undefined, {
    formatVersion: 1,
    passTypeIdentifier: signing.passTypeIdentifier,
    teamIdentifier: signing.teamIdentifier,
    serialNumber: content.serialNumber,
    ...programNames(program),
    backgroundColor: rgb(design.backgroundColor),
    foregroundColor: rgb(design.foregroundColor),
    labelColor: rgb(design.labelColor),
    sharingProhibited: true,
    ...(content.authenticationToken ? { webServiceURL: webServiceUrl(issuer.publicBaseUrl), authenticationToken: content.authenticationToken } : {}),
    ...(content.voided ? { voided: true } : {}),
  });
  pass.type = design.style;
  const { expirationDate, relevantDate } = passDates(content);
  if (expirationDate) pass.setExpirationDate(expirationDate);
  if (relevantDate) pass.setRelevantDate(relevantDate);
  if (design.locations.length > 0) {
    pass.setLocations(...design.locations.map(({ latitude, longitude, relevantText }) => ({ latitude, longitude, ...(relevantText ? { relevantText } : {}) })));
  }
  const fields = programFields(content, program);
  const asField = ({ key, label, value }: { key: string; label: string; value: string }) => ({ key, ...(label ? { label } : {}), value });
  pass.headerFields.push(...fields.header.map(asField));
  pass.primaryFields.push(...fields.primary.map(asField));
  pass.secondaryFields.push(...fields.secondary.map(asField));
  pass.auxiliaryFields.push(...fields.auxiliary.map(asField));
  if (content.message) pass.backFields.push(messageField(content.message));
  pass.backFields.push(...fields.back.map(asField));
  pass.setBarcodes({
    format: BARCODE_FORMATS[design.barcode],
    message: passBarcode(issuer.publicBaseUrl, content),
    messageEncoding: 'iso-8859-1',
    altText: shortAddress(content.publicKey),
  });
  return pass;
}

/** Zip entries carry this fixed date, so the bytes depend on the pass alone, not on when or where (time zone) it was built. */
const ZIP_DATE = new Date(1980, 0, 1);

/**
 * The signed .pkpass. A pure function of its inputs: the same pass, issuer and signing time
 * give the same bytes (RSA PKCS#1 v1.5 signatures are deterministic). A program pass carries its
 * program's images (lib/programs/images.ts).
 */
export async function buildPkpass(content: PassContent, issuer: PassIssuer, signingTime = new Date(), programImages?: PassImages): Promise<Buffer> {
  const passJson = Buffer.from(JSON.stringify(passModel(content, issuer).props));
  const images = content.program ? programPassImages(programImages ?? { files: {}, sha1: {} }) : designImages(designFor(content.walletType));
  const manifest = Buffer.from(JSON.stringify({ 'pass.json': sha1Hex(passJson), ...images.sha1 }));
  // Whole seconds: the CMS signing time (UTCTime) has no finer resolution.
  const signature = await issuer.signer.sign(manifest, new Date(Math.floor(signingTime.getTime() / 1000) * 1000));
  const files: Zippable = { 'pass.json': passJson, ...images.files, 'manifest.json': manifest, signature };
  // Stored, not deflated, as passkit-generator's zip writer does too: the PNGs are compressed
  // already, and deflating pass.json would cost more time than its kilobyte is worth.
  const zip = zipSync(files, { level: 0, mtime: ZIP_DATE });
  // A view of the zip's bytes, not a copy of them (Buffer.from(zip) would copy every byte again).
  return Buffer.from(zip.buffer, zip.byteOffset, zip.byteLength);
}
