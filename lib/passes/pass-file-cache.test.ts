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

  it('builds a missing file once for requests that miss it together, keeps it, and builds again after a failed build', async () => {
    const cache = new PassFileCache(1000);
    let builds = 0;
    let release: () => void = () => {};
    const build = async () => {
      builds++;
      await new Promise<void>((resolve) => {
        release = resolve;
      });
      return { pkpass: Buffer.alloc(10), etag: '"built"' };
    };
    const together = [1, 2, 3].map(() => cache.getOrBuild('a', '1', at, build));
    release();
    const files = await Promise.all(together);
    expect(builds).toBe(1);
    expect(new Set(files).size).toBe(1);
    expect(cache.get('a', '1', at)?.etag).toBe('"built"');
    await expect(cache.getOrBuild('b', '1', at, () => Promise.reject(new Error('signer down')))).rejects.toThrow('signer down');
    expect((await cache.getOrBuild('b', '1', at, async () => ({ pkpass: Buffer.alloc(5), etag: '"b"' }))).etag).toBe('"b"');
  });
});
