// The reference the fast .pkpass build is compared with: the same pass model exported by
// passkit-generator's own getAsBuffer (node-forge signing, its own zip). The pass-build benchmark
// measures both; lib/passes/pkpass.test.ts checks both write the same pass.json.
import type { PassContent } from '../../lib/passes/content';
import { designFor } from '../../lib/passes/designs';
import { designImages, type PassIssuer, passModel } from '../../lib/passes/pkpass';

export function passkitGeneratorExport(content: PassContent, issuer: Omit<PassIssuer, 'signer'>): Buffer {
  const pass = passModel(content, issuer);
  for (const [name, bytes] of Object.entries(designImages(designFor(content.walletType)).files)) pass.addBuffer(name, bytes);
  const { signing } = issuer;
  pass.certificates = { wwdr: signing.wwdrCertPem, signerCert: signing.signerCertPem, signerKey: signing.signerKeyPem };
  return pass.getAsBuffer();
}
