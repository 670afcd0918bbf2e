// The scanner check page's HTML: escaped values, readable colours, a policy that allows its one
// style block and nothing else.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { contrastRatio } from '@/lib/passes/designs';
import { escapeHtml, PAGE_COLOURS, renderVerifyPage, verifyPageReply } from './verify-page';

const check = {
  genuine: true as const,
  status: 'active' as 'active' | 'voided',
  voidReason: null as string | null,
  expirationDate: null as string | null,
  expired: false,
  serialNumber: '3f2b6c1e-8d4a-4f7b-9c2e-5a1d0b7e9f10',
  publicKey: '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin',
  program: 'default',
  walletType: 'Phantom' as const,
  claimedAt: '2026-03-14T15:09:26.535Z',
  issuer: 'Bar & <Grill> "Club"',
};

describe('the scanner check page', () => {
  it('escapes what it writes: an issuer name cannot inject markup', () => {
    const { html } = renderVerifyPage({ kind: 'genuine', check });
    expect(html).toContain('Issued by Bar &amp; &lt;Grill&gt; &quot;Club&quot;');
    expect(html).not.toContain('<Grill>');
    expect(escapeHtml(`<a href="x" onclick='y'>&`)).toBe('&lt;a href=&quot;x&quot; onclick=&#39;y&#39;&gt;&amp;');
  });

  it('shows the wallet, its app, the claim time in UTC and the serial', () => {
    const { html, status } = renderVerifyPage({ kind: 'genuine', check });
    expect(status).toBe(200);
    expect(html).toContain('9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin');
    expect(html).toContain('9xQe…VFin');
    expect(html).toContain('<dd>Phantom</dd>');
    expect(html).toContain('<time datetime="2026-03-14T15:09:26.535Z">14 March 2026 at 15:09 UTC</time>');
    expect(html).toContain(check.serialNumber);
  });

  it('answers 404 for a pass not issued here and 503 or 500 when the check could not run', () => {
    expect(renderVerifyPage({ kind: 'not_issued' }).status).toBe(404);
    expect(renderVerifyPage({ kind: 'unavailable', status: 503 }).status).toBe(503);
    expect(renderVerifyPage({ kind: 'unavailable', status: 500 }).html).toContain('Cannot check right now');
  });

  it('answers 429 with Retry-After when the client checked too often, saying when to scan again', () => {
    const reply = verifyPageReply({ kind: 'too_many', retryAfterSeconds: 42 });
    expect(reply.status).toBe(429);
    expect(reply.headers).toMatchObject({ 'retry-after': '42', 'cache-control': 'no-store' });
    expect(reply.body).toContain('Scan the pass again in 42 seconds.');
  });

  it('shows a voided pass in red as "Voided", with its reason, never as genuine or valid', () => {
    const { html, status } = renderVerifyPage({ kind: 'genuine', check: { ...check, status: 'voided', voidReason: 'Refunded <at> the desk' } });
    expect(status).toBe(200);
    expect(html).toContain('<section class="verdict voided"');
    expect(html).toContain('<h1 id="verdict">Voided</h1>');
    expect(html).toContain('Refunded &lt;at&gt; the desk');
    expect(html).toContain(check.publicKey);
    expect(html.replace(/<style>[\s\S]*<\/style>/, '')).not.toMatch(/genuine|valid\b/i);
    const words = renderVerifyPage({ kind: 'genuine', check: { ...check, status: 'voided', voidReason: 'not_eligible' } }).html;
    expect(words).toContain('no longer meets the conditions');
  });

  it('shows a pass past its expiration date in red as "Expired", with the date, never as genuine or valid', () => {
    const expired = { ...check, expirationDate: '2026-03-20T18:00:00.000Z', expired: true };
    const { html, status } = renderVerifyPage({ kind: 'genuine', check: expired });
    expect(status).toBe(200);
    expect(html).toContain('<section class="verdict expired"');
    expect(html).toContain('<h1 id="verdict">Expired</h1>');
    expect(html).toContain('expired on 20 March 2026 at 18:00 UTC');
    expect(html.replace(/<style>[\s\S]*<\/style>/, '')).not.toMatch(/genuine|valid\b/i);
    // A date still ahead changes nothing; a voided pass says "Voided" whatever its date.
    expect(renderVerifyPage({ kind: 'genuine', check: { ...expired, expired: false } }).html).toContain('<h1 id="verdict">Genuine pass</h1>');
    expect(renderVerifyPage({ kind: 'genuine', check: { ...expired, status: 'voided' } }).html).toContain('<h1 id="verdict">Voided</h1>');
  });

  it('carries no script, and a policy that allows exactly its own style block', () => {
    for (const outcome of [
      { kind: 'genuine', check } as const,
      { kind: 'genuine', check: { ...check, status: 'voided' as const } } as const,
      { kind: 'not_issued' } as const,
    ]) {
      const { html, contentSecurityPolicy } = renderVerifyPage(outcome);
      expect(html).not.toMatch(/<script|\son\w+=/i);
      const css = /<style>([\s\S]*)<\/style>/.exec(html)![1]!;
      const hash = createHash('sha256').update(css).digest('base64');
      expect(contentSecurityPolicy).toBe(`default-src 'none'; style-src 'sha256-${hash}'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`);
    }
  });

  it('uses colours at WCAG AA contrast or better', () => {
    for (const background of Object.values(PAGE_COLOURS.verdicts)) {
      expect(contrastRatio(PAGE_COLOURS.verdictText, background)).toBeGreaterThanOrEqual(4.5);
    }
    for (const text of [PAGE_COLOURS.text, PAGE_COLOURS.muted, PAGE_COLOURS.note]) {
      expect(contrastRatio(text, PAGE_COLOURS.page)).toBeGreaterThanOrEqual(4.5);
      expect(contrastRatio(text, PAGE_COLOURS.card)).toBeGreaterThanOrEqual(4.5);
    }
  });
});
