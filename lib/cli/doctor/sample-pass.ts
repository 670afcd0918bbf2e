// The sample pass check: a pass built exactly as the service builds it, its signature verified as
// the contract states, with `openssl cms -verify`; where openssl cannot be run, with pkijs.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { unzipSync } from 'fflate';
import * as pkijs from 'pkijs';
import type { AppleSigning, Config } from '../../config';
import { checkAppleSigning, ensureDevelopmentChain, type SigningMaterial } from '../../passes/certificates';
import { createManifestSigner } from '../../passes/manifest-signer';
import { buildPkpass, passIssuer } from '../../passes/pkpass';
import { bad, type CheckLine, ok } from './check-line';
import { errorSummary } from './describe';

/** Any valid address: the sample pass is never served. */
const SAMPLE_WALLET = '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin';

/** Prevents: "the download is a broken pass" (anything between the certificates and the zip). */
export async function checkSamplePass(config: Config, material: { apple: AppleSigning; development: boolean }, now: Date, openssl: string): Promise<CheckLine> {
  let what = 'a sample pass builds and its signature verifies (openssl cms -verify)';
  let signing: SigningMaterial;
  try {
    signing = material.development ? { ...ensureDevelopmentChain(config.dataDir) } : checkAppleSigning(material.apple, now);
  } catch (error) {
    return bad(what, `not built: ${(error as Error).message}`, 'fix the Apple problems above first');
  }
  try {
    const signer = await createManifestSigner(signing);
    const issuer = passIssuer(config, signing, signer);
    const pass = await buildPkpass({ serialNumber: randomUUID(), publicKey: SAMPLE_WALLET, walletType: 'Generic', claimedAt: now }, issuer);
    const files = unzipSync(pass);
    const manifest = files['manifest.json'];
    const signature = files.signature;
    const passFile = files['pass.json'];
    if (!manifest || !signature) return bad(what, 'the pass has no manifest.json or no signature', 'report this as a bug');
    if (!passFile) return bad(what, 'the pass has no pass.json', 'report this as a bug');
    const passJson = JSON.parse(Buffer.from(passFile).toString('utf8')) as { passTypeIdentifier?: string; teamIdentifier?: string };
    if (passJson.passTypeIdentifier !== signing.passTypeIdentifier || passJson.teamIdentifier !== signing.teamIdentifier) {
      return bad(what, 'pass.json does not carry the configured pass type id and team id', 'report this as a bug');
    }
    const verdict = await opensslVerify(openssl, signature, manifest);
    if (verdict === 'unavailable') {
      what = 'a sample pass builds and its signature verifies (pkijs: openssl could not be run)';
      return (await pkijsVerify(signature, manifest)) ? ok(what) : bad(what, 'the signature does not verify', 'report this as a bug, with the openssl version');
    }
    const reason = verdict.output.split('\n')[0];
    return verdict.ok ? ok(what) : bad(what, `openssl refused the signature${reason ? ` (${reason})` : ''}`, 'report this as a bug, with the openssl version');
  } catch (error) {
    return bad(
      what,
      `building it failed (${errorSummary(error)})`,
      'check PASS_ORGANIZATION_NAME, PASS_DESCRIPTION and PUBLIC_BASE_URL; otherwise report this as a bug',
    );
  }
}

/** `openssl cms -verify -binary -inform DER -in signature -content manifest.json -noverify`, in a scratch folder. */
async function opensslVerify(openssl: string, signature: Uint8Array, manifest: Uint8Array): Promise<{ ok: boolean; output: string } | 'unavailable'> {
  const dir = mkdtempSync(path.join(tmpdir(), 'wpc-doctor-'));
  try {
    writeFileSync(path.join(dir, 'signature'), signature);
    writeFileSync(path.join(dir, 'manifest.json'), manifest);
    const args = ['cms', '-verify', '-binary', '-inform', 'DER', '-in', 'signature', '-content', 'manifest.json', '-noverify', '-out', 'verified'];
    return await new Promise((resolve) => {
      const child = spawn(openssl, args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      child.stdout.on('data', (chunk) => (output += chunk));
      child.stderr.on('data', (chunk) => (output += chunk));
      child.on('error', () => resolve('unavailable'));
      child.on('close', (code) => resolve({ ok: code === 0, output: output.trim() }));
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The same verification (signature over the signed attributes, digest of manifest.json) in pkijs. */
async function pkijsVerify(signature: Uint8Array, manifest: Uint8Array): Promise<boolean> {
  try {
    const contentInfo = pkijs.ContentInfo.fromBER(Buffer.from(signature));
    const signedData = new pkijs.SignedData({ schema: contentInfo.content });
    const data = new Uint8Array(manifest).buffer; // pkijs wants an ArrayBuffer of exactly the content
    return await signedData.verify({ signer: 0, data, checkChain: false });
  } catch {
    return false;
  }
}
