// The barcode's MAC on its own: derivation, the text, and what verify refuses.
import { describe, expect, it } from 'vitest';
import { asSerialNumber } from '../passes/ids';
import { barcodeKeyOf, barcodeMac, barcodeText, parseBarcode, verifyBarcode } from './barcode';

const BASE = 'https://passes.example.com';
const serial = asSerialNumber('3f2b6c1e-8d4a-4f7b-9c2e-5a1d0b7e9f10');
const key = barcodeKeyOf(Buffer.from('a download id key of at least thirty-two characters'));

describe('barcode MACs', () => {
  it('derive the same key from the same secret, another from another, and never the secret itself', () => {
    expect(barcodeKeyOf(Buffer.from('a download id key of at least thirty-two characters')).equals(key)).toBe(true);
    expect(barcodeKeyOf(Buffer.from('another download id key, thirty-two characters long')).equals(key)).toBe(false);
    expect(key).toHaveLength(32);
    expect(key.toString('utf8')).not.toContain('download id key');
  });

  it('make a /verify URL with the serial and a 22-character code, which verifies', () => {
    const mac = barcodeMac(key, serial);
    expect(mac).toMatch(/^[A-Za-z0-9_-]{22}$/);
    const text = barcodeText(BASE, serial, mac);
    expect(text).toBe(`${BASE}/verify?serial=${serial}&c=${mac}`);
    expect(parseBarcode(text)).toEqual({ serialNumber: serial, mac });
    expect(verifyBarcode(key, text)).toBe(serial);
    // Upper-case serial, another origin, spaces around: the same pass.
    expect(verifyBarcode(key, ` ${barcodeText('http://localhost:3000', serial.toUpperCase(), mac)}\n`)).toBe(serial);
  });

  it('refuse a bare serial, an old barcode, any changed character, another key, and junk', () => {
    const mac = barcodeMac(key, serial);
    const other = barcodeKeyOf(Buffer.from('another download id key, thirty-two characters long'));
    expect(verifyBarcode(key, serial)).toBeUndefined();
    expect(verifyBarcode(key, `${BASE}/verify?serial=${serial}`)).toBeUndefined();
    expect(verifyBarcode(other, barcodeText(BASE, serial, mac))).toBeUndefined();
    for (let i = 0; i < mac.length; i++) {
      for (const c of ['A', 'B', 'g', '-']) {
        if (mac[i] === c) continue;
        expect(verifyBarcode(key, barcodeText(BASE, serial, `${mac.slice(0, i)}${c}${mac.slice(i + 1)}`))).toBeUndefined();
      }
    }
    for (const junk of ['', 'not a url', `ftp://x/verify?serial=${serial}&c=${mac}`, `${BASE}/other?serial=${serial}&c=${mac}`, `${BASE}/verify?c=${mac}`]) {
      expect(verifyBarcode(key, junk)).toBeUndefined();
    }
  });
});
