// The README stays a front page, and the documentation stays true to the tree: every link inside
// the repository lands on a file (and heading) that exists, every variable the service reads is
// documented, and the README's map names everything directly under lib/.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(__dirname, '..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

const DOCS = [
  'README.md',
  ...readdirSync(path.join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** The text outside fenced code blocks: a link-like string in code is not a link. */
const prose = (markdown: string) => markdown.replace(/^```[^\n]*\n[\s\S]*?^```/gm, '');

/** GitHub's heading anchors (github-slugger): lower case, punctuation dropped, spaces to hyphens. */
const slug = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');

const anchorsOf = (markdown: string) => new Set([...prose(markdown).matchAll(/^#{1,6} (.+)$/gm)].map(([, text]) => slug(text!)));

type Link = { file: string; target: string };

const relativeLinks: Link[] = DOCS.flatMap((file) =>
  [...prose(read(file)).matchAll(/\]\(([^)\s]+)\)/g)]
    .map(([, target]) => ({ file, target: target! }))
    .filter(({ target }) => !/^[a-z][a-z0-9+.-]*:/i.test(target)),
);

describe('the documentation', () => {
  it('keeps README.md a front page of at most 150 lines', () => {
    expect(read('README.md').split('\n').length).toBeLessThanOrEqual(150);
  });

  it('finds links to check (the link reader works)', () => {
    expect(relativeLinks.some(({ target }) => target === 'docs/configuration.md')).toBe(true);
  });

  it.each(relativeLinks)('$file: $target resolves inside the repository', ({ file, target }) => {
    const [pathPart, anchor] = target.split('#') as [string, string | undefined];
    const resolved = pathPart === '' ? path.join(ROOT, file) : path.resolve(path.dirname(path.join(ROOT, file)), decodeURI(pathPart));
    const inside = path.relative(ROOT, resolved);
    expect(inside.startsWith('..') || path.isAbsolute(inside), `${target} leaves the repository`).toBe(false);
    expect(existsSync(resolved), `${target}: no such file`).toBe(true);
    if (anchor !== undefined && statSync(resolved).isFile() && resolved.endsWith('.md')) {
      expect([...anchorsOf(readFileSync(resolved, 'utf8'))], `${target}: no such heading`).toContain(anchor);
    }
  });

  it('documents every environment variable lib/config.ts reads in docs/configuration.md', () => {
    const config = read('lib/config.ts');
    const schema = /const envSchema = z\.object\(\{([\s\S]*?)\n\}\);/.exec(config)?.[1];
    expect(schema, 'the env schema of lib/config.ts').toBeDefined();
    const variables = [...schema!.matchAll(/^ {2}([A-Z][A-Z0-9_]*):/gm)].map(([, name]) => name!);
    expect(variables).toContain('PUBLIC_BASE_URL');
    const documented = read('docs/configuration.md');
    expect(variables.filter((name) => !documented.includes(`\`${name}\``))).toEqual([]);
  });

  it("names every file and folder directly under lib/ in the README's map", () => {
    const layout = /## Layout\n+```\n([\s\S]*?)```/.exec(read('README.md'))?.[1];
    expect(layout, 'a Layout section with the map in a code block').toBeDefined();
    // The lib/ part of the map: from its line to the next top-level entry.
    const libMap = /^lib\/.*\n((?:[ ].*\n)*)/m.exec(layout!)?.[1] ?? '';
    // A line names one entry, or several separated by ", " (`client/, cli/`), before its description.
    const named = new Set(
      [...libMap.matchAll(/^ {2}((?:[A-Za-z0-9_.-]+\/?, )*[A-Za-z0-9_.-]+\/?)(?=\s)/gm)].flatMap(([, names]) =>
        names!.split(', ').map((name) => name.replace(/\/$/, '')),
      ),
    );
    const entries = readdirSync(path.join(ROOT, 'lib')).filter((name) => !name.endsWith('.test.ts'));
    expect(entries.filter((name) => !named.has(name))).toEqual([]);
  });
});
