// The proxy's idea of the API's paths (./paths.ts) covers the whole table, and leaves the pages alone.
import { describe, expect, it } from 'vitest';
import { ENDPOINTS } from './endpoints';
import { isApiPath } from './paths';

/** An entry's path with a sample value in each {name} segment. */
const samplePath = (path: string) => path.replace(/\{\w+\}/g, 'sample');

describe('isApiPath', () => {
  it('matches every path of the endpoint table', () => {
    for (const entry of ENDPOINTS) expect(isApiPath(samplePath(entry.path)), entry.path).toBe(true);
  });

  it('leaves the pages and their assets to Next.js', () => {
    for (const page of ['/', '/operator', '/docs', '/no-such-page', '/api', '/passkit', '/verify/x', '/healthz', '/_next/static/x.js', '/icon.svg']) {
      expect(isApiPath(page), page).toBe(false);
    }
  });
});
