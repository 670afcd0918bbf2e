// The pass: one wallet's Apple Wallet pass built from its walletType's design and signed into a
// .pkpass with passkit-generator.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { PKPass } from 'passkit-generator';
import type { WalletType } from '../wallet-types';
import type { SigningMaterial } from './certificates';
import { designFor, rgb, type PassDesign } from './designs';
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
  organizationName: string;
  description: string;
  publicBaseUrl: string;
  chainId: string;
};

const ASSETS_DIR = path.join(process.cwd(), 'lib', 'passes', 'assets');
const IMAGE_FILES = ['icon.png', 'icon@2x.png', 'icon@3x.png', 'logo.png', 'logo@2x.png', 'logo@3x.png'];
const imageCache = new Map<string, Record<string, Buffer>>();

/** A design's images, read from disk once per process. */
function designImages(design: PassDesign): Record<string, Buffer> {
  let images = imageCache.get(design.slug);
  if (!images) {
    images = Object.fromEntries(IMAGE_FILES.map((file) => [file, readFileSync(path.join(ASSETS_DIR, design.slug, file))]));
    imageCache.set(design.slug, images);
  }
  return images;
}

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

export function buildPkpass(content: PassContent, issuer: PassIssuer): Buffer {
  const design = designFor(content.walletType);
  const { signing } = issuer;
  const pass = new PKPass(
    { ...designImages(design) },
    {
      wwdr: signing.wwdrCertPem,
      signerCert: signing.signerCertPem,
      signerKey: signing.signerKeyPem,
    },
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
  pass.primaryFields.push({ key: 'address', label: 'Wallet', value: shortAddress(content.publicKey) });
  pass.secondaryFields.push(
    { key: 'walletType', label: 'Wallet app', value: design.logoText },
    {
      key: 'claimedAt',
      label: 'Claimed',
      value: content.claimedAt.toISOString(),
      dateStyle: 'PKDateStyleMedium',
      timeStyle: 'PKDateStyleNone',
    },
  );
  pass.backFields.push(
    { key: 'fullAddress', label: 'Wallet address', value: content.publicKey },
    {
      key: 'explorer',
      label: 'Solana Explorer',
      value: explorerUrl(content.publicKey, issuer.chainId),
      dataDetectorTypes: ['PKDataDetectorTypeLink'],
    },
    { key: 'issuer', label: 'Issued by', value: issuer.organizationName },
  );
  pass.setBarcodes({
    format: 'PKBarcodeFormatQR',
    message: verifyUrl(issuer.publicBaseUrl, content.serialNumber),
    messageEncoding: 'iso-8859-1',
    altText: shortAddress(content.publicKey),
  });
  return pass.getAsBuffer();
}
