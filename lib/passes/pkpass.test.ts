// Every design builds into a .pkpass that Wallet's checks accept: manifest hashes, a signature
// openssl verifies, the fields the issue lists, and 13 passes that look different from each other.
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { passkitGeneratorExport } from '@/scripts/support/passkit-generator-export';
import { type InspectedPass, inspectPkpass } from '@/test/support/pkpass';
import { WALLET_TYPES, type WalletType } from '../wallet-types';
import { ensureDevelopmentChain } from './certificates';
import type { PassContent } from './content';
import { designFor, rgb } from './designs';
import { createManifestSigner } from './manifest-signer';
import { buildPkpass, IMAGE_FILES, type PassIssuer, passFilename, passModel } from './pkpass';

const ADDRESS = '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin';
const CLAIMED = new Date('2026-03-14T15:09:26.535Z');
const SIGNED = new Date('2026-03-14T15:10:00Z');

describe('the .pkpass builder', () => {
  let dataDir: string;
  let issuer: PassIssuer;
  const passes = new Map<WalletType, { bytes: Buffer; pass: InspectedPass; content: PassContent }>();

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'wpc-pkpass-'));
    const signing = ensureDevelopmentChain(dataDir);
    issuer = {
      signing,
      signer: await createManifestSigner(signing),
      organizationName: 'Door Test Club',
      description: 'Solana wallet pass for the door test',
      publicBaseUrl: 'https://passes.example.com',
      chainId: 'devnet',
    };
    for (const [i, walletType] of WALLET_TYPES.entries()) {
      const content = { serialNumber: `00000000-0000-4000-8000-0000000000${String(i).padStart(2, '0')}`, publicKey: ADDRESS, walletType, claimedAt: CLAIMED };
      const bytes = await buildPkpass(content, issuer, SIGNED);
      passes.set(walletType, { bytes, pass: inspectPkpass(bytes), content });
    }
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  describe.each(WALLET_TYPES.map((walletType) => [walletType]))('%s', (walletType) => {
    const built = () => passes.get(walletType)!;

    it('holds pass.json, the six images, manifest.json and signature, with correct SHA-1s in the manifest', () => {
      const { pass } = built();
      expect(Object.keys(pass.files).sort()).toEqual(['manifest.json', 'pass.json', 'signature', ...IMAGE_FILES].sort());
      expect(Object.keys(pass.manifest).sort()).toEqual(['pass.json', ...IMAGE_FILES].sort());
      expect(pass.manifestMismatches).toEqual([]);
    });

    it('has a signature that openssl cms -verify accepts, with the signer and WWDR certificates in it', () => {
      const { pass } = built();
      const verified = pass.opensslVerify();
      expect(verified.output).toContain('Verification successful');
      expect(verified.ok).toBe(true);
      const certificates = pass.signerCertificates();
      expect(certificates).toContain('Pass Type ID: pass.dev.wallet-pass-claim');
      expect(certificates).toContain('Development WWDR CA');
    });

    it("carries its design's colours and logo text, and the fields the pass shows", () => {
      const { pass, content } = built();
      const design = designFor(walletType);
      expect(pass.passJson).toMatchObject({
        formatVersion: 1,
        passTypeIdentifier: 'pass.dev.wallet-pass-claim',
        teamIdentifier: 'DEVTEAM000',
        serialNumber: content.serialNumber,
        organizationName: 'Door Test Club',
        description: 'Solana wallet pass for the door test',
        logoText: design.logoText,
        backgroundColor: rgb(design.background),
        foregroundColor: rgb(design.foreground),
        labelColor: rgb(design.label),
        barcodes: [
          {
            format: 'PKBarcodeFormatQR',
            message: `https://passes.example.com/verify?serial=${content.serialNumber}`,
            messageEncoding: 'iso-8859-1',
            altText: '9xQe…VFin',
          },
        ],
      });
      const fields = pass.passJson.generic;
      expect(fields.primaryFields).toEqual([{ key: 'address', label: 'Wallet', value: '9xQe…VFin' }]);
      expect(fields.secondaryFields).toEqual([
        { key: 'walletType', label: 'Wallet app', value: design.logoText },
        { key: 'claimedAt', label: 'Claimed', value: '2026-03-14T15:09:26Z', dateStyle: 'PKDateStyleMedium', timeStyle: 'PKDateStyleNone' },
      ]);
      expect(fields.backFields).toEqual([
        { key: 'fullAddress', label: 'Wallet address', value: ADDRESS },
        expect.objectContaining({ key: 'explorer', value: `https://explorer.solana.com/address/${ADDRESS}?cluster=devnet` }),
        { key: 'issuer', label: 'Issued by', value: 'Door Test Club' },
      ]);
    });

    it('builds the same bytes again for the same pass and signing time', async () => {
      const { bytes, content } = built();
      expect((await buildPkpass(content, issuer, SIGNED)).equals(bytes)).toBe(true);
    });

    it('writes exactly the pass.json passkit-generator itself would', () => {
      const { pass, content } = built();
      const reference = inspectPkpass(passkitGeneratorExport(content, issuer));
      expect(pass.files['pass.json']!.equals(reference.files['pass.json']!)).toBe(true);
    });
  });

  it('makes the 13 passes distinct: colours, logo text and every image differ between any two', () => {
    const all = [...passes.values()].map(({ pass }) => pass);
    const distinct = (values: string[]) => new Set(values).size;
    expect(distinct(all.map((p) => p.passJson.backgroundColor))).toBe(13);
    expect(distinct(all.map((p) => p.passJson.logoText))).toBe(13);
    expect(distinct(all.map((p) => `${p.passJson.foregroundColor} ${p.passJson.labelColor} ${p.passJson.backgroundColor}`))).toBe(13);
    for (const image of IMAGE_FILES) {
      expect(distinct(all.map((p) => createHash('sha1').update(p.files[image]!).digest('hex'))), image).toBe(13);
    }
  });

  it('carries an expiration and a relevant date when the pass has them, and no such keys otherwise', async () => {
    const content = { ...passes.get('Generic')!.content, expirationDate: new Date('2030-06-01T16:00:00Z'), relevantDate: new Date('2030-05-31T20:00:00Z') };
    const dated = inspectPkpass(await buildPkpass(content, issuer, SIGNED));
    expect(dated.passJson).toMatchObject({ expirationDate: '2030-06-01T16:00:00.000Z', relevantDate: '2030-05-31T20:00:00.000Z' });
    expect(dated.opensslVerify().ok).toBe(true);
    expect(Object.keys(passes.get('Generic')!.pass.passJson)).not.toContain('expirationDate');
    expect(Object.keys(passes.get('Generic')!.pass.passJson)).not.toContain('relevantDate');
  });

  it('names the download after the wallet type', () => {
    expect(passFilename('Coinbase Wallet')).toBe('coinbase-wallet-wallet-pass.pkpass');
    expect(new Set(WALLET_TYPES.map(passFilename)).size).toBe(13);
  });

  it('refuses a field Apple would reject before signing anything (passkit-generator validates the model)', () => {
    const content = { serialNumber: '', publicKey: ADDRESS, walletType: 'Generic' as const, claimedAt: CLAIMED };
    expect(() => passModel(content, issuer)).toThrow(/serialNumber/);
  });
});
