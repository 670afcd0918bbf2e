import { describe, expect, it } from 'vitest';
import { newNonce, pageContentSecurityPolicy, WASM_PAGES } from './page-security';

describe('the page Content-Security-Policy', () => {
  it('allows scripts only with the response’s nonce, and no framing', () => {
    const csp = pageContentSecurityPolicy('abc123');
    expect(csp).toContain("script-src 'self' 'nonce-abc123' 'strict-dynamic'");
    expect(csp).toContain("style-src 'self' 'nonce-abc123'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toMatch(/unsafe-(inline|eval)/);
  });

  it('relaxes only for next dev, whose React build needs eval and unnonced styles', () => {
    const csp = pageContentSecurityPolicy('abc123', { dev: true });
    expect(csp).toContain("'unsafe-eval'");
    expect(csp).toContain("style-src 'self' 'unsafe-inline'");
  });

  it('lets the door page compile WebAssembly, and only that: no eval, no inline script', () => {
    const csp = pageContentSecurityPolicy('abc123', { wasm: true });
    expect(csp).toContain("script-src 'self' 'nonce-abc123' 'strict-dynamic' 'wasm-unsafe-eval';");
    expect(csp.replace("'wasm-unsafe-eval'", '')).not.toMatch(/unsafe-(inline|eval)/);
    expect(WASM_PAGES).toEqual(new Set(['/scan']));
    expect(pageContentSecurityPolicy('abc123')).not.toContain('wasm');
  });

  it('draws a new 144-bit nonce every time', () => {
    const nonces = new Set(Array.from({ length: 1000 }, newNonce));
    expect(nonces.size).toBe(1000);
    expect(Buffer.from([...nonces][0]!, 'base64')).toHaveLength(18);
  });
});
