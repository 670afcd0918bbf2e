import { describe, expect, it } from 'vitest';
import { clientIp, rateLimitKey } from './client-ip';

const xff = (value: string) => new Headers({ 'x-forwarded-for': value });

describe('clientIp', () => {
  it('ignores X-Forwarded-For without TRUST_PROXY', () => {
    expect(clientIp('10.0.0.9', xff('198.51.100.1'), 0)).toBe('10.0.0.9');
  });

  it('takes the Nth entry from the right with N trusted proxies', () => {
    expect(clientIp('10.0.0.9', xff('203.0.113.5, 198.51.100.1'), 1)).toBe('198.51.100.1');
    expect(clientIp('10.0.0.9', xff('forged, 203.0.113.5, 198.51.100.1'), 2)).toBe('203.0.113.5');
  });

  it('uses the peer when the header has fewer entries than the configured hops', () => {
    // Two proxies would have written two entries: one entry was written by someone else.
    expect(clientIp('10.0.0.9', xff('198.51.100.1'), 2)).toBe('10.0.0.9');
    expect(clientIp('10.0.0.9', xff(' , '), 1)).toBe('10.0.0.9');
    expect(clientIp('10.0.0.9', new Headers(), 1)).toBe('10.0.0.9');
  });

  it('counts an IPv4-mapped forwarded address as the IPv4 address', () => {
    expect(clientIp('10.0.0.9', xff('::ffff:198.51.100.1'), 1)).toBe('198.51.100.1');
  });

  it('reads the address of an entry with a port, brackets or a zone: one client, one key', () => {
    expect(clientIp('10.0.0.9', xff('10.7.7.7:1000'), 1)).toBe('10.7.7.7');
    expect(clientIp('10.0.0.9', xff('10.7.7.7:1001'), 1)).toBe('10.7.7.7');
    expect(clientIp('10.0.0.9', xff('[2001:db8::7]'), 1)).toBe('2001:db8::7');
    expect(clientIp('10.0.0.9', xff('[2001:db8::7]:443'), 1)).toBe('2001:db8::7');
    expect(clientIp('10.0.0.9', xff('2001:db8::7'), 1)).toBe('2001:db8::7');
    expect(clientIp('10.0.0.9', xff('fe80::7%eth0'), 1)).toBe('fe80::7');
    expect(clientIp('10.0.0.9', xff('[fe80::7%25eth0]:8080'), 1)).toBe('fe80::7');
    expect(clientIp('10.0.0.9', xff('[::ffff:198.51.100.1]:80'), 1)).toBe('198.51.100.1');
  });

  it('uses the peer for an entry that is no address', () => {
    for (const entry of ['unknown', 'junk:80', '10.7.7.7:', '10.7.7.7:99999', '[10.7.7.7', '2001:db8::7]:443', '10.7.7', '_hidden']) {
      expect(clientIp('10.0.0.9', xff(entry), 1), entry).toBe('10.0.0.9');
    }
  });
});

describe('rateLimitKey', () => {
  it('keys IPv4 addresses as they are', () => {
    expect(rateLimitKey('198.51.100.1')).toBe('198.51.100.1');
    expect(rateLimitKey('198.51.100.2')).not.toBe(rateLimitKey('198.51.100.1'));
  });

  it('keys every address of one IPv6 /64 alike, and other /64s apart', () => {
    const key = rateLimitKey('2001:db8:1:2::1');
    expect(key).toBe('2001:db8:1:2::/64');
    expect(rateLimitKey('2001:0db8:0001:0002:ffff:ffff:ffff:ffff')).toBe(key);
    expect(rateLimitKey('2001:db8:1:2:abcd::9')).toBe(key);
    expect(rateLimitKey('2001:db8:1:3::1')).not.toBe(key);
    expect(rateLimitKey('::ffff:198.51.100.1')).toBe('198.51.100.1');
  });

  it('keys text that is no address as written', () => {
    expect(rateLimitKey('unknown')).toBe('unknown');
  });
});
