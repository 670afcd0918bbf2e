// The in-memory pass files: found only for the version and Last-Modified they were built for, and
// bounded in bytes, the least recently used going first.
import { describe, expect, it } from 'vitest';
import { PassFileCache } from './pass-file-cache';

const at = new Date('2026-11-25T12:00:00Z');
const file = (version: string, bytes: number, lastModified = at) => ({ version, lastModified, pkpass: Buffer.alloc(bytes), etag: `"${version}"` });

describe('PassFileCache', () => {
  it('answers only for the version and Last-Modified the file was built for', () => {
    const cache = new PassFileCache(1000);
    cache.set('a', file('1', 10));
    expect(cache.get('a', '1', new Date(at))?.etag).toBe('"1"');
    expect(cache.get('a', '2', at)).toBeUndefined();
    expect(cache.get('a', '1', new Date(at.getTime() + 1000))).toBeUndefined();
    cache.set('a', file('2', 20));
    expect(cache.get('a', '1', at)).toBeUndefined();
    expect(cache.size()).toEqual({ files: 1, bytes: 20 });
  });

  it('keeps at most its bytes, dropping the least recently used first', () => {
    const cache = new PassFileCache(100);
    cache.set('a', file('1', 40));
    cache.set('b', file('1', 40));
    cache.get('a', '1', at);
    cache.set('c', file('1', 40));
    expect(cache.get('b', '1', at)).toBeUndefined();
    expect(cache.get('a', '1', at)).toBeDefined();
    expect(cache.get('c', '1', at)).toBeDefined();
    expect(cache.size()).toEqual({ files: 2, bytes: 80 });
    cache.set('d', file('1', 101));
    expect(cache.get('d', '1', at)).toBeUndefined();
    expect(cache.size()).toEqual({ files: 2, bytes: 80 });
  });
});
