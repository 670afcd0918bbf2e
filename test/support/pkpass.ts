// Checks a .pkpass as Wallet would: a zip whose manifest.json lists the SHA-1 of every other file,
// and whose signature is a detached PKCS#7 over manifest.json, verified here by openssl itself.
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { unzipSync } from 'fflate';

export type InspectedPass = {
  files: Record<string, Buffer>;
  passJson: Record<string, any>;
  manifest: Record<string, string>;
  /** Files whose SHA-1 differs from the manifest, or that the manifest misses. */
  manifestMismatches: string[];
  /** Runs openssl cms -verify on the signature and manifest: ok is its exit status, output its message. */
  opensslVerify(): { ok: boolean; output: string };
  /** The certificates embedded in the signature, as openssl prints their subjects. */
  signerCertificates(): string;
};

export function inspectPkpass(bytes: Uint8Array): InspectedPass {
  const files = Object.fromEntries(Object.entries(unzipSync(bytes)).map(([name, data]) => [name, Buffer.from(data)]));
  const manifest = JSON.parse(files['manifest.json']!.toString('utf8')) as Record<string, string>;
  const passJson = JSON.parse(files['pass.json']!.toString('utf8'));
  const mismatches: string[] = [];
  for (const [name, data] of Object.entries(files)) {
    if (name === 'manifest.json' || name === 'signature') continue;
    if (manifest[name] !== createHash('sha1').update(data).digest('hex')) mismatches.push(name);
  }
  for (const name of Object.keys(manifest)) if (!files[name]) mismatches.push(name);

  const withFiles = <T>(run: (dir: string) => T): T => {
    const dir = mkdtempSync(path.join(tmpdir(), 'pkpass-'));
    try {
      writeFileSync(path.join(dir, 'signature'), files.signature!);
      writeFileSync(path.join(dir, 'manifest.json'), files['manifest.json']!);
      return run(dir);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };

  return {
    files,
    passJson,
    manifest,
    manifestMismatches: mismatches,
    opensslVerify: () =>
      withFiles((dir) => {
        const result = spawnSync('openssl', [
          'cms',
          '-verify',
          '-binary',
          '-inform',
          'DER',
          '-in',
          path.join(dir, 'signature'),
          '-content',
          path.join(dir, 'manifest.json'),
          '-noverify',
          '-out',
          path.join(dir, 'verified'),
        ]);
        return { ok: result.status === 0, output: `${result.stdout}${result.stderr}`.trim() };
      }),
    signerCertificates: () =>
      withFiles((dir) =>
        execFileSync('openssl', ['pkcs7', '-inform', 'DER', '-in', path.join(dir, 'signature'), '-print_certs', '-noout'], {
          stdio: ['ignore', 'pipe', 'pipe'],
        }).toString(),
      ),
  };
}
