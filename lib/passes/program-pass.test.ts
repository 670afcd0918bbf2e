// A program's design as its passes show it: the Apple pass.json (style, names, colours, fields per
// group with placeholders filled, barcode format, locations, dates) and the Google Generic object
// (its program's class, colours, title, header and modules), from one design, for one wallet.
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_ISSUER_ID, testServiceAccount } from '@/test/support/google';
import { inspectPkpass } from '@/test/support/pkpass';
import { loadConfig } from '../config';
import { type Design, designSchema } from '../programs/schema';
import { ensureDevelopmentChain } from './certificates';
import type { PassContent, PassProgram } from './content';
import { createGoogleWallet, GOOGLE_SAVE_URL, type GoogleWallet, genericObject, googleSaveUrl, MAX_JWT_LENGTH } from './google-wallet';
import { createManifestSigner } from './manifest-signer';
import { buildPkpass, type PassIssuer, passModel, programPassFilename } from './pkpass';

const ADDRESS = '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin';
const SERIAL = '3f2b6c1e-8d4a-4f7b-9c2e-5a1d0b7e9f10';
const CLAIMED = new Date('2026-11-21T10:00:00Z');
const SIGNED = new Date('2026-11-21T10:01:00Z');

const design = (input: Parameters<typeof designSchema.parse>[0]): Design => designSchema.parse(input);

const program = (d: Design, name = 'Winter Gala 2026'): PassProgram => ({ slug: 'winter-gala', name, version: '1', design: d });

const pass = (p: PassProgram, extra: Partial<PassContent> = {}): PassContent => ({
  serialNumber: SERIAL,
  publicKey: ADDRESS,
  walletType: 'Phantom',
  claimedAt: CLAIMED,
  program: p,
  ...extra,
});

const TICKET = design({
  style: 'eventTicket',
  organizationName: 'Solana Lisbon',
  description: 'Entry to the Winter Gala',
  logoText: 'Winter Gala',
  backgroundColor: '#102030',
  foregroundColor: '#fafafa',
  labelColor: '#ffcc00',
  fields: {
    header: [{ key: 'door', label: 'Door', value: 'B' }],
    primary: [{ key: 'holder', label: 'Holder', value: '{shortAddress}' }],
    secondary: [
      { key: 'claimed', label: 'Claimed', value: '{claimedAt}' },
      { key: 'app', label: 'Wallet', value: '{walletType}' },
    ],
    auxiliary: [{ key: 'serial', label: '', value: 'No. {serialNumber}' }],
    back: [{ key: 'address', label: 'Wallet address', value: 'Held by {address}.\nShow at the door.' }],
  },
  barcode: 'pdf417',
  locations: [
    { latitude: 38.7223, longitude: -9.1393, relevantText: 'The gala is here' },
    { latitude: 38.7, longitude: -9.2 },
  ],
  relevantDate: '2026-12-20T19:00:00Z',
  expirationDate: '2026-12-21T06:00:00Z',
});

describe('a program pass on Apple Wallet', () => {
  let dataDir: string;
  let issuer: PassIssuer;

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'wpc-program-pass-'));
    const signing = ensureDevelopmentChain(dataDir);
    issuer = {
      signing,
      signer: await createManifestSigner(signing),
      organizationName: 'Door Test Club',
      description: 'Solana wallet pass for the door test',
      publicBaseUrl: 'https://passes.example.com',
      chainId: 'devnet',
    };
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('takes its style, names and colours from the design', () => {
    const json = passModel(pass(program(TICKET)), issuer).props as Record<string, unknown>;
    expect(json).toMatchObject({
      organizationName: 'Solana Lisbon',
      description: 'Entry to the Winter Gala',
      logoText: 'Winter Gala',
      backgroundColor: 'rgb(16, 32, 48)',
      foregroundColor: 'rgb(250, 250, 250)',
      labelColor: 'rgb(255, 204, 0)',
      serialNumber: SERIAL,
      sharingProhibited: true,
    });
    expect(json.eventTicket).toBeDefined();
    expect(json.generic).toBeUndefined();
  });

  it('lays out every field in its group, with the placeholders filled for this pass', () => {
    const json = passModel(pass(program(TICKET)), issuer).props as Record<string, any>;
    expect(json.eventTicket).toMatchObject({
      headerFields: [{ key: 'door', label: 'Door', value: 'B' }],
      primaryFields: [{ key: 'holder', label: 'Holder', value: '9xQe…VFin' }],
      secondaryFields: [
        { key: 'claimed', label: 'Claimed', value: '21 Nov 2026' },
        { key: 'app', label: 'Wallet', value: 'Phantom' },
      ],
      auxiliaryFields: [{ key: 'serial', value: `No. ${SERIAL}` }],
      backFields: [{ key: 'address', label: 'Wallet address', value: `Held by ${ADDRESS}.\nShow at the door.` }],
    });
  });

  it.each([
    ['generic', 'generic'],
    ['storeCard', 'storeCard'],
    ['coupon', 'coupon'],
    ['eventTicket', 'eventTicket'],
  ] as const)('style %s is pass.json’s %s', (style, key) => {
    const json = passModel(pass(program(design({ style }))), issuer).props as Record<string, unknown>;
    expect(json[key]).toBeDefined();
    for (const other of ['generic', 'storeCard', 'coupon', 'eventTicket', 'boardingPass'].filter((k) => k !== key)) expect(json[other]).toBeUndefined();
  });

  it('falls back to the program’s name for the organization, description and logo text', () => {
    const json = passModel(pass(program(design({}), 'Holders Club')), issuer).props as Record<string, unknown>;
    expect(json).toMatchObject({ organizationName: 'Holders Club', description: 'Holders Club', logoText: 'Holders Club' });
  });

  it.each([
    ['qr', 'PKBarcodeFormatQR'],
    ['pdf417', 'PKBarcodeFormatPDF417'],
    ['aztec', 'PKBarcodeFormatAztec'],
    ['code128', 'PKBarcodeFormatCode128'],
  ] as const)('draws barcode %s as %s, still leading to /verify', (barcode, format) => {
    const json = passModel(pass(program(design({ barcode }))), issuer).props as Record<string, any>;
    expect(json.barcodes).toEqual([
      { format, message: `https://passes.example.com/verify?serial=${SERIAL}`, messageEncoding: 'iso-8859-1', altText: '9xQe…VFin' },
    ]);
  });

  it('carries the locations, with their relevant text', () => {
    const json = passModel(pass(program(TICKET)), issuer).props as Record<string, any>;
    expect(json.locations).toEqual([
      { latitude: 38.7223, longitude: -9.1393, relevantText: 'The gala is here' },
      { latitude: 38.7, longitude: -9.2 },
    ]);
    expect(passModel(pass(program(design({}))), issuer).props.locations).toBeUndefined();
  });

  it('takes the design’s dates, and a pass’s own operator-set dates before them', () => {
    const fromDesign = passModel(pass(program(TICKET)), issuer).props as Record<string, unknown>;
    expect(fromDesign.relevantDate).toBe('2026-12-20T19:00:00.000Z');
    expect(fromDesign.expirationDate).toBe('2026-12-21T06:00:00.000Z');
    const own = { relevantDate: new Date('2026-12-24T18:00:00Z'), expirationDate: new Date('2026-12-25T00:00:00Z') };
    const fromPass = passModel(pass(program(TICKET), own), issuer).props as Record<string, unknown>;
    expect(fromPass.relevantDate).toBe('2026-12-24T18:00:00.000Z');
    expect(fromPass.expirationDate).toBe('2026-12-25T00:00:00.000Z');
    const undated = passModel(pass(program(design({}))), issuer).props as Record<string, unknown>;
    expect(undated.relevantDate).toBeUndefined();
    expect(undated.expirationDate).toBeUndefined();
  });

  it('keeps the living-pass keys as every pass has them', () => {
    const json = passModel(pass(program(TICKET), { authenticationToken: 'A'.repeat(43), voided: true }), issuer).props as Record<string, unknown>;
    expect(json).toMatchObject({ webServiceURL: 'https://passes.example.com/passkit', authenticationToken: 'A'.repeat(43), voided: true });
  });

  it('signs a file with the program’s images, the generic icon where it has none, the same bytes each time', async () => {
    const logo = readFileSync(path.join(process.cwd(), 'lib/passes/assets/phantom/logo.png'));
    const images = { files: { 'logo.png': logo }, sha1: { 'logo.png': createHash('sha1').update(logo).digest('hex') } };
    const bytes = await buildPkpass(pass(program(TICKET)), issuer, SIGNED, images);
    const built = inspectPkpass(bytes);
    expect(Object.keys(built.files).sort()).toEqual(['icon.png', 'icon@2x.png', 'icon@3x.png', 'logo.png', 'manifest.json', 'pass.json', 'signature']);
    expect(built.files['icon.png']!.equals(readFileSync(path.join(process.cwd(), 'lib/passes/assets/generic/icon.png')))).toBe(true);
    expect(built.files['logo.png']!.equals(logo)).toBe(true);
    expect(built.manifestMismatches).toEqual([]);
    expect(built.opensslVerify().ok).toBe(true);
    expect((await buildPkpass(pass(program(TICKET)), issuer, SIGNED, images)).equals(bytes)).toBe(true);
    expect(programPassFilename('winter-gala')).toBe('winter-gala-pass.pkpass');
  });

  it('refuses nothing Apple accepts: the longest fields of each style build', async () => {
    for (const style of ['generic', 'storeCard', 'eventTicket', 'coupon'] as const) {
      const long = (n: number, group: string) => Array.from({ length: n }, (_, i) => ({ key: `${group}${i}`, label: 'L'.repeat(40), value: 'V'.repeat(120) }));
      const d = design({
        style,
        fields: { header: long(3, 'h'), primary: long(1, 'p'), secondary: long(2, 's'), auxiliary: long(2, 'a'), back: long(20, 'b') },
      });
      expect(inspectPkpass(await buildPkpass(pass(program(d)), issuer, SIGNED)).manifestMismatches).toEqual([]);
    }
  });
});

describe('a program pass on Google Wallet', () => {
  let google: GoogleWallet;
  beforeAll(async () => {
    google = (await createGoogleWallet(
      loadConfig({ PUBLIC_BASE_URL: 'https://passes.example.com', GOOGLE_WALLET_ISSUER_ID: TEST_ISSUER_ID, GOOGLE_SERVICE_ACCOUNT: testServiceAccount().json }),
    ))!;
  });

  it('is an object of its program’s class, in its colour, titled with its logo text, the fields as header and modules', () => {
    expect(genericObject(pass(program(TICKET)), google)).toEqual({
      id: `${TEST_ISSUER_ID}.${SERIAL}`,
      classId: `${TEST_ISSUER_ID}.program_winter_gala`,
      hexBackgroundColor: '#102030',
      cardTitle: { defaultValue: { language: 'en', value: 'Winter Gala' } },
      subheader: { defaultValue: { language: 'en', value: 'Holder' } },
      header: { defaultValue: { language: 'en', value: '9xQe…VFin' } },
      textModulesData: [
        { id: 'door', header: 'Door', body: 'B' },
        { id: 'claimed', header: 'Claimed', body: '21 Nov 2026' },
        { id: 'app', header: 'Wallet', body: 'Phantom' },
        { id: 'serial', body: `No. ${SERIAL}` },
        { id: 'address', header: 'Wallet address', body: `Held by ${ADDRESS}.\nShow at the door.` },
      ],
      barcode: { type: 'PDF_417', value: `https://passes.example.com/verify?serial=${SERIAL}`, alternateText: '9xQe…VFin' },
      validTimeInterval: { end: { date: '2026-12-21T06:00:00.000Z' } },
    });
  });

  it.each([
    ['qr', 'QR_CODE'],
    ['pdf417', 'PDF_417'],
    ['aztec', 'AZTEC'],
    ['code128', 'CODE_128'],
  ] as const)('draws barcode %s as %s', (barcode, type) => {
    expect(genericObject(pass(program(design({ barcode }))), google).barcode.type).toBe(type);
  });

  it('falls back to the program’s name for its title and header; a pass’s own expiry comes first; voided is INACTIVE', () => {
    const bare = design({ fields: {} });
    const object = genericObject(pass(program(bare, 'Holders Club'), { voided: true, expirationDate: new Date('2027-01-01T00:00:00Z') }), google);
    expect(object).toMatchObject({
      cardTitle: { defaultValue: { value: 'Holders Club' } },
      header: { defaultValue: { value: 'Holders Club' } },
      state: 'INACTIVE',
      validTimeInterval: { end: { date: '2027-01-01T00:00:00.000Z' } },
    });
    expect(object).not.toHaveProperty('subheader');
  });

  it('keeps a save link short enough to survive as a link, however much text the design holds', async () => {
    const long = 'x'.repeat(300);
    const wordy = design({ fields: { back: Array.from({ length: 20 }, (_, i) => ({ key: `b${i}`, label: `Back ${i}`, value: long })) } });
    const url = await googleSaveUrl(pass(program(wordy)), google);
    expect(url.length - GOOGLE_SAVE_URL.length).toBeLessThanOrEqual(MAX_JWT_LENGTH);
    const [object] = (decodeJwt(url.slice(GOOGLE_SAVE_URL.length)).payload as { genericObjects: Record<string, unknown>[] }).genericObjects;
    expect(object).toMatchObject({ classId: `${TEST_ISSUER_ID}.program_winter_gala`, header: { defaultValue: { value: 'Winter Gala 2026' } } });
    expect(object!.barcode).toBeDefined();
    // The text modules that fit, in the design's order.
    const kept = object!.textModulesData as { id: string }[];
    expect(kept.length).toBeLessThan(20);
    expect(kept.map((module) => module.id)).toEqual(Array.from({ length: kept.length }, (_, i) => `b${i}`));
  });

  it('keeps the default program’s passes in the issuer’s one class, with or without a design', () => {
    const { program: _, ...plain } = pass(program(TICKET));
    expect(genericObject(plain, google).classId).toBe(`${TEST_ISSUER_ID}.wallet_pass`);
    const designed = genericObject(pass({ ...program(TICKET), slug: 'default' }), google);
    expect(designed).toMatchObject({ classId: `${TEST_ISSUER_ID}.wallet_pass`, hexBackgroundColor: '#102030' });
  });
});
