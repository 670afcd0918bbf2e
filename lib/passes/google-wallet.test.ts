// The Save to Google Wallet link, checked as Google would: a JWT signed RS256 by the service
// account (verified here with its public key), with Google's claims, the pass as a Generic
// object in its wallet's colour, and short enough to survive as a link.
import { decodeProtectedHeader, importSPKI, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import { TEST_ISSUER_ID, testServiceAccount } from '@/test/support/google';
import { ConfigError, loadConfig } from '../config';
import { WALLET_TYPES } from '../wallet-types';
import type { PassContent } from './content';
import { designFor } from './designs';
import { createGoogleWallet, GOOGLE_SAVE_URL, googleSaveUrl, LONGEST_PASS, MAX_JWT_LENGTH } from './google-wallet';

const account = testServiceAccount();
const ADDRESS = '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin';

const walletFor = (env: Record<string, string> = {}) =>
  createGoogleWallet(
    loadConfig({
      PUBLIC_BASE_URL: 'https://passes.example.com',
      PASS_ORGANIZATION_NAME: 'Door Test Club',
      GOOGLE_WALLET_ISSUER_ID: TEST_ISSUER_ID,
      GOOGLE_SERVICE_ACCOUNT: account.json,
      ...env,
    }),
  );

/** The parts of a save link's claims the tests read. */
type SaveClaims = { payload: { genericObjects: { hexBackgroundColor: string; cardTitle: { defaultValue: { value: string } }; barcode: { value: string } }[] } };

async function verified(url: string) {
  expect(url.startsWith(GOOGLE_SAVE_URL)).toBe(true);
  const jwt = url.slice(GOOGLE_SAVE_URL.length);
  const { payload, protectedHeader } = await jwtVerify(jwt, await importSPKI(account.publicKeyPem, 'RS256'), {
    issuer: account.clientEmail,
    audience: 'google',
    algorithms: ['RS256'],
  });
  return { jwt, payload: payload as typeof payload & SaveClaims, protectedHeader };
}

describe('Save to Google Wallet links', () => {
  it('is off unless both Google variables are set', async () => {
    expect(await createGoogleWallet(loadConfig({}))).toBeUndefined();
  });

  it('signs a savetowallet JWT with RS256 for audience google, from the service account, for PUBLIC_BASE_URL', async () => {
    const google = (await walletFor())!;
    const content: PassContent = {
      serialNumber: '3f2b6c1e-8d4a-4f7b-9c2e-5a1d0b7e9f10',
      publicKey: ADDRESS,
      walletType: 'Phantom',
      claimedAt: new Date('2026-03-14T15:09:26Z'),
    };
    const now = new Date('2026-03-14T16:00:00Z');
    const { jwt, payload, protectedHeader } = await verified(await googleSaveUrl(content, google, now));

    expect(decodeProtectedHeader(jwt)).toEqual({ alg: 'RS256' });
    expect(protectedHeader.alg).toBe('RS256');
    expect(payload).toMatchObject({
      iss: account.clientEmail,
      aud: 'google',
      typ: 'savetowallet',
      iat: now.getTime() / 1000,
      origins: ['https://passes.example.com'],
    });
    expect(payload.payload.genericObjects).toHaveLength(1);
    expect(payload.payload.genericObjects[0]).toEqual({
      id: `${TEST_ISSUER_ID}.3f2b6c1e-8d4a-4f7b-9c2e-5a1d0b7e9f10`,
      classId: `${TEST_ISSUER_ID}.wallet_pass`,
      hexBackgroundColor: '#ab9ff2',
      cardTitle: { defaultValue: { language: 'en', value: 'Phantom' } },
      subheader: { defaultValue: { language: 'en', value: 'Wallet' } },
      header: { defaultValue: { language: 'en', value: '9xQe…VFin' } },
      textModulesData: [
        { header: 'Claimed', body: '14 Mar 2026' },
        { header: 'Issued by', body: 'Door Test Club' },
      ],
      linksModuleData: { uris: [{ uri: `https://explorer.solana.com/address/${ADDRESS}`, description: ADDRESS }] },
      barcode: { type: 'QR_CODE', value: 'https://passes.example.com/verify?serial=3f2b6c1e-8d4a-4f7b-9c2e-5a1d0b7e9f10', alternateText: '9xQe…VFin' },
    });
    expect(jwt.length).toBeLessThan(MAX_JWT_LENGTH);
  });

  it('carries the same barcode text as the Apple pass: the /verify URL with the check-in code', async () => {
    const google = (await walletFor())!;
    const serial = '3f2b6c1e-8d4a-4f7b-9c2e-5a1d0b7e9f10';
    const { payload } = await verified(await googleSaveUrl({ ...LONGEST_PASS, serialNumber: serial, checkInCode: 'q3Jx0yH1m8Zt5Lr7Vk9Hs4' }, google));
    expect(payload.payload.genericObjects[0]!.barcode.value).toBe(`https://passes.example.com/verify?serial=${serial}&c=q3Jx0yH1m8Zt5Lr7Vk9Hs4`);
  });

  it.each(WALLET_TYPES.map((t) => [t]))('gives a %s pass its design colour and name', async (walletType) => {
    const google = (await walletFor())!;
    const { payload } = await verified(await googleSaveUrl({ ...LONGEST_PASS, walletType }, google));
    const object = payload.payload.genericObjects[0]!;
    expect(object.hexBackgroundColor).toBe(designFor(walletType).background);
    expect(object.cardTitle.defaultValue.value).toBe(designFor(walletType).logoText);
  });

  it('stays under 1,800 characters for the longest pass with a 64-character issuer name and a long origin', async () => {
    // 37 characters: the barcode's check-in code (22 characters, docs/check-in.md) took the room of two more.
    const google = (await walletFor({ PASS_ORGANIZATION_NAME: 'O'.repeat(64), PUBLIC_BASE_URL: 'https://passes.example-organisat.com' }))!;
    const { jwt } = await verified(await googleSaveUrl(LONGEST_PASS, google));
    expect(jwt.length).toBeLessThan(MAX_JWT_LENGTH);
  });

  it('stops start-up with a clear line when the configuration would make links too long', async () => {
    const tooLong = walletFor({ PASS_ORGANIZATION_NAME: 'O'.repeat(64), PUBLIC_BASE_URL: `https://${'p'.repeat(150)}.example.com` });
    await expect(tooLong).rejects.toThrow(ConfigError);
    await expect(tooLong).rejects.toThrow(/^GOOGLE_WALLET_ISSUER_ID: .*over 1800: shorten PUBLIC_BASE_URL or PASS_ORGANIZATION_NAME/);
  });

  it('stops start-up when the service account key is not a usable RSA key', async () => {
    const broken = JSON.stringify({ client_email: account.clientEmail, private_key: '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n' });
    await expect(walletFor({ GOOGLE_SERVICE_ACCOUNT: broken })).rejects.toThrow(/^GOOGLE_SERVICE_ACCOUNT: private_key is not an RSA private key/);
  });
});
