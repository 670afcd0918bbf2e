// The router finds every method of a path with {name} segments, whatever order the table lists them in.
import { describe, expect, it } from 'vitest';
import type { Endpoint } from './endpoint';
import { Router } from './router';

const entry = (method: Endpoint['method'], path: string) => ({ method, path }) as Endpoint;

describe('the router', () => {
  it('keeps the methods of one {name} path together, and decodes its segments', () => {
    const router = new Router([entry('POST', '/a/{id}/b/{serial}'), entry('GET', '/a/{id}'), entry('DELETE', '/a/{id}/b/{serial}')]);
    const found = router.match('/a/x%20y/b/42');
    expect([...found!.methods.keys()].sort()).toEqual(['DELETE', 'POST']);
    expect(found!.params).toEqual({ id: 'x y', serial: '42' });
    expect([...router.match('/a/1')!.methods.keys()]).toEqual(['GET']);
    expect(router.match('/a/1/b')).toBeUndefined();
  });

  it('refuses a method listed twice on one path', () => {
    expect(() => new Router([entry('GET', '/a/{id}'), entry('GET', '/a/{other}')])).toThrow(/twice/);
  });
});
