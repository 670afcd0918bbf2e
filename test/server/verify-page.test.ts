// The scanner check page as door staff meet it: the built app behind the custom server, a pass
// claimed over HTTP, its QR code's URL opened. Runs on the production build (`npm test` builds).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClaimClient } from '@/lib/client';
import { inspectPkpass } from '../support/pkpass';
import { type RunningServer, startServer } from '../support/server';
import { TestWallet } from '../support/wallet';

/** The visible text of an HTML page, tags and scripts stripped, whitespace collapsed. */
function visibleText(html: string): string {
  return html
    .replace(/<script[\s\S]*?<\/script>/g, ' ')
    .replace(/<style[\s\S]*?<\/style>/g, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ');
}

describe('GET /verify (the scanner check page)', () => {
  let server: RunningServer;
  let qrUrl: string;
  let wallet: TestWallet;

  beforeAll(async () => {
    server = await startServer({ PASS_ORGANIZATION_NAME: 'Door Test Club' });
    const client = createClaimClient({ baseUrl: server.baseUrl });
    wallet = new TestWallet();
    const { message } = await client.init(wallet.publicKey);
    const { downloadUrl } = await client.claim({ message, signature: wallet.sign(message), publicKey: wallet.publicKey, walletType: 'Solflare' });
    const pass = inspectPkpass((await client.download(downloadUrl)).bytes);
    qrUrl = pass.passJson.barcodes[0].message;
  });
  afterAll(() => server?.dispose());

  it("opens from the pass's QR code and says the pass is genuine, for which wallet, from which app, since when", async () => {
    expect(qrUrl.startsWith(`${server.baseUrl}/verify?serial=`)).toBe(true);
    const response = await fetch(qrUrl);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await response.text();
    const text = visibleText(html);
    expect(text).toContain('Genuine pass');
    expect(text).toContain('Issued by Door Test Club');
    expect(text).toContain(wallet.publicKey);
    expect(text).toContain('Solflare');
    expect(text).toMatch(/Claimed \d{1,2} [A-Z][a-z]+ \d{4} at \d{2}:\d{2} UTC/);
    expect(html).toMatch(/<html lang="en"/);
    expect(html).toContain('<meta name="viewport" content="width=device-width, initial-scale=1"');
    expect(html).toMatch(/<h1[^>]*>Genuine pass<\/h1>/);
    expect(html).toContain('noindex');
  });

  it('answers a serial this service never issued with 404 and a clear "not issued here"', async () => {
    const response = await fetch(`${server.baseUrl}/verify?serial=00000000-0000-4000-8000-000000000000`);
    expect(response.status).toBe(404);
    const text = visibleText(await response.text());
    expect(text).toContain('Not issued here');
    expect(text).not.toContain('Genuine');
  });

  it('answers a malformed or missing serial the same way', async () => {
    for (const query of ['?serial=not-a-serial', '']) {
      const response = await fetch(`${server.baseUrl}/verify${query}`);
      expect(response.status, query).toBe(404);
      expect(visibleText(await response.text())).toContain('Not issued here');
    }
  });
});
