// The pass: one wallet's Apple Wallet pass, built from its walletType's design and signed into a
// .pkpass.
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
import { zipSync, type Zippable } from 'fflate';
import { PKPass } from 'passkit-generator';
import type { WalletType } from '../wallet-types';
import type { SigningMaterial } from './certificates';
import { designFor, rgb, type PassDesign } from './designs';
import type { ManifestSigner } from './manifest-signer';
import { shortAddress } from '../address';

/** What a pass says: one wallet's claim. */
export type PassContent = {
  serialNumber: string;
  publicKey: string;
  walletType: WalletType;
  claimedAt: Date;
};

/** What every pass of this service shares. */
export type PassIssuer = {
  signing: SigningMaterial;
  signer: ManifestSigner;
  organizationName: string;
  description: string;
  publicBaseUrl: string;
  chainId: string;
};

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

/** "7xKX…sAsU": enough of an address to recognise it at a glance. */
export { shortAddress };

export function explorerUrl(address: string, chainId: string): string {
  const cluster = chainId.replace(/^solana:/, '');
  const query = cluster === 'mainnet' || cluster === 'mainnet-beta' ? '' : `?cluster=${encodeURIComponent(cluster)}`;
  return `https://explorer.solana.com/address/${address}${query}`;
}

/** Where the pass's QR code leads: the public scanner check, keyed by the public serial number. */
export function verifyUrl(publicBaseUrl: string, serialNumber: string): string {
  return `${publicBaseUrl}/verify?serial=${encodeURIComponent(serialNumber)}`;
}

/** The download filename: the wallet type, so a person with several passes can tell them apart. */
export function passFilename(walletType: WalletType): string {
  return `${designFor(walletType).slug}-wallet-pass.pkpass`;
}

/** W3C date-time without fractional seconds, the form Wallet's date fields parse everywhere. */
export function passDate(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** The fields a pass shows, shared by the Apple pass and the Google Wallet object. */
export function passText(content: PassContent, issuer: Pick<PassIssuer, 'organizationName' | 'chainId'>) {
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
 * The pass as passkit-generator's model: every field is validated against Apple's schema here.
 * `bundle` adds the images and certificates, for an export through passkit-generator itself
 * (the benchmark's reference; the service exports with buildPkpass).
 */
export function passModel(content: PassContent, issuer: Omit<PassIssuer, 'signer'>, bundle = false): PKPass {
  const { signing } = issuer;
  const text = passText(content, issuer);
  const { design } = text;
  const pass = new PKPass(
    bundle ? { ...designImages(design).files } : {},
    bundle ? { wwdr: signing.wwdrCertPem, signerCert: signing.signerCertPem, signerKey: signing.signerKeyPem } : undefined,
    {
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
    },
  );
  pass.type = 'generic';
  pass.primaryFields.push({ key: 'address', ...text.address });
  pass.secondaryFields.push(
    { key: 'walletType', ...text.walletApp },
    { key: 'claimedAt', ...text.claimed, dateStyle: 'PKDateStyleMedium', timeStyle: 'PKDateStyleNone' },
  );
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
    message: verifyUrl(issuer.publicBaseUrl, content.serialNumber),
    messageEncoding: 'iso-8859-1',
    altText: text.address.value,
  });
  return pass;
}

/** Zip entries carry this fixed date, so the bytes depend on the pass alone, not on when or where (time zone) it was built. */
const ZIP_DATE = new Date(1980, 0, 1);

/**
 * The signed .pkpass. A pure function of its inputs: the same pass, issuer and signing time
 * give the same bytes (RSA PKCS#1 v1.5 signatures are deterministic).
 */
export async function buildPkpass(content: PassContent, issuer: PassIssuer, signingTime = new Date()): Promise<Buffer> {
  const passJson = Buffer.from(JSON.stringify(passModel(content, issuer).props));
  const images = designImages(designFor(content.walletType));
  const manifest = Buffer.from(JSON.stringify({ 'pass.json': sha1Hex(passJson), ...images.sha1 }));
  // Whole seconds: the CMS signing time (UTCTime) has no finer resolution.
  const signature = await issuer.signer.sign(manifest, new Date(Math.floor(signingTime.getTime() / 1000) * 1000));
  const files: Zippable = { 'pass.json': passJson, ...images.files, 'manifest.json': manifest, signature };
  // Stored, not deflated, as passkit-generator's zip writer does too: the PNGs are compressed
  // already, and deflating pass.json would cost more time than its kilobyte is worth.
  return Buffer.from(zipSync(files, { level: 0, mtime: ZIP_DATE }));
}
