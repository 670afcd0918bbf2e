// Method and path to a table entry: exact paths from a map, paths with {name} segments (decoded)
// from patterns.
import type { Endpoint, Method } from './endpoint';

/** The routes of a table: exact paths in a map, paths with {name} segments as patterns. */
export class Router {
  private readonly exact = new Map<string, Map<Method, Endpoint>>();
  private readonly patterns: { source: string; pattern: RegExp; names: string[]; methods: Map<Method, Endpoint> }[] = [];

  constructor(endpoints: readonly Endpoint[]) {
    for (const entry of endpoints) {
      const methods = this.methodsOf(entry.path);
      if (methods.has(entry.method)) throw new Error(`${entry.method} ${entry.path} is in the table twice`);
      methods.set(entry.method, entry);
    }
  }

  private methodsOf(path: string): Map<Method, Endpoint> {
    const names = (path.match(/\{\w+\}/g) ?? []).map((braced) => braced.slice(1, -1));
    if (names.length === 0) {
      const known = this.exact.get(path);
      if (known) return known;
      const methods = new Map<Method, Endpoint>();
      this.exact.set(path, methods);
      return methods;
    }
    const source = `^${path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{(\w+)\\?\}/g, '([^/]+)')}$`;
    // Compared as written: RegExp#source escapes every "/", so it never equals the text it came from.
    const known = this.patterns.find((candidate) => candidate.source === source);
    if (known) return known.methods;
    const route = { source, pattern: new RegExp(source), names, methods: new Map<Method, Endpoint>() };
    this.patterns.push(route);
    return route.methods;
  }

  match(pathname: string): { methods: Map<Method, Endpoint>; params: Record<string, string> } | undefined {
    const methods = this.exact.get(pathname);
    if (methods) return { methods, params: {} };
    for (const { pattern, names, methods } of this.patterns) {
      const found = pattern.exec(pathname);
      if (!found) continue;
      const params: Record<string, string> = {};
      for (const [i, name] of names.entries()) {
        const value = found[i + 1];
        if (value === undefined) throw new Error(`${pattern.source} has no group for {${name}}`);
        params[name] = safeDecode(value);
      }
      return { methods, params };
    }
    return undefined;
  }
}

const safeDecode = (segment: string) => {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
};
