// CLAIM_POLICY parsing: each rule kind, and each mistake an operator can make, reported with the
// JSON path of the problem and never with the allowlist.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../config-error';
import { type ClaimRule, describePolicy, jsonErrorOffset, MAX_POLICY_DEPTH, needsRpc, parseClaimPolicy, U64_MAX } from './policy';

const WALLET_A = '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin';
const WALLET_B = '9C6hybhQ6Aycep9jaUnP6uL9ZYvDjUp1aSkFWPUFJtpj';
const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const COLLECTION = 'J1toso1uCk3RLmjorhTtrVwY9HJ7X8V9yYac6Y7kGCPn';

const dirs: string[] = [];
const freshDir = () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'wpc-policy-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const parse = (policy: unknown, cwd?: string) => parseClaimPolicy(typeof policy === 'string' ? policy : JSON.stringify(policy), cwd);

/** The message of the ConfigError the policy is refused with. */
const refusal = (policy: unknown, cwd?: string): string => {
  try {
    parse(policy, cwd);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).variable).toBe('CLAIM_POLICY');
    const message = (error as Error).message;
    expect(message).not.toContain('\n');
    return message;
  }
  throw new Error('expected a ConfigError');
};

describe('parseClaimPolicy: rule kinds', () => {
  it('allow: a list of addresses, duplicates merged', () => {
    expect(parse({ allow: [WALLET_A, WALLET_B, WALLET_A] })).toEqual({ kind: 'allow', addresses: new Set([WALLET_A, WALLET_B]), source: 'inline' });
  });

  it('allowFile: one address per line, blank lines and # comments skipped, relative to the working directory', () => {
    const dir = freshDir();
    writeFileSync(path.join(dir, 'allow.txt'), `# early supporters\n\n${WALLET_A}\r\n  ${WALLET_B}   # Bob\n${WALLET_A}\n`);
    expect(parse({ allowFile: 'allow.txt' }, dir)).toEqual({ kind: 'allow', addresses: new Set([WALLET_A, WALLET_B]), source: 'file' });
    expect(parse({ allowFile: path.join(dir, 'allow.txt') })).toMatchObject({ source: 'file' });
  });

  it('allowFile in a policy file: relative to the policy file', () => {
    const dir = freshDir();
    mkdirSync(path.join(dir, 'lists'));
    writeFileSync(path.join(dir, 'lists', 'allow.txt'), `${WALLET_B}\n`);
    writeFileSync(path.join(dir, 'policy.json'), JSON.stringify({ allowFile: 'lists/allow.txt' }));
    expect(parseClaimPolicy(path.join(dir, 'policy.json'), '/')).toEqual({ kind: 'allow', addresses: new Set([WALLET_B]), source: 'file' });
    // A path relative to the working directory works too.
    expect(parseClaimPolicy('policy.json', dir)).toMatchObject({ kind: 'allow' });
  });

  it('token: a mint and a minimum in base units, up to u64', () => {
    expect(parse({ token: { mint: USDC, minAmount: '1000000' } })).toEqual({ kind: 'token', mint: USDC, minAmount: 1_000_000n });
    expect(parse({ token: { mint: USDC, minAmount: U64_MAX.toString() } })).toEqual({ kind: 'token', mint: USDC, minAmount: U64_MAX });
  });

  it('collection: a collection mint', () => {
    expect(parse({ collection: COLLECTION })).toEqual({ kind: 'collection', collection: COLLECTION });
  });

  it('collection with traits: the one rule of two keys; group: a Token-2022 group mint', () => {
    expect(parse({ collection: COLLECTION, traits: { Background: 'Blue', Eyes: 'Laser' } })).toEqual({
      kind: 'collection',
      collection: COLLECTION,
      traits: { Background: 'Blue', Eyes: 'Laser' },
    });
    expect(parse({ group: USDC })).toEqual({ kind: 'group', group: USDC });
    expect(describePolicy(parse({ any: [{ collection: COLLECTION, traits: { Hat: 'Red' } }, { group: USDC }] }))).toBe(
      'any(collection with traits (1), group)',
    );
    expect(needsRpc(parse({ group: USDC }))).toBe(true);
  });

  it('all and any, nested', () => {
    const policy = parse({ all: [{ any: [{ allow: [WALLET_A] }, { collection: COLLECTION }] }, { token: { mint: USDC, minAmount: '5' } }] });
    expect(policy).toEqual({
      kind: 'all',
      rules: [
        {
          kind: 'any',
          rules: [
            { kind: 'allow', addresses: new Set([WALLET_A]), source: 'inline' },
            { kind: 'collection', collection: COLLECTION },
          ],
        },
        { kind: 'token', mint: USDC, minAmount: 5n },
      ],
    } satisfies ClaimRule);
    expect(describePolicy(policy)).toBe('all(any(allow (1 address), collection), token)');
  });

  it(`nests up to ${MAX_POLICY_DEPTH} levels of rules`, () => {
    let deepest: unknown = { allow: [WALLET_A] };
    for (let level = 1; level < MAX_POLICY_DEPTH; level++) deepest = { any: [deepest] };
    expect(parse(deepest).kind).toBe('any');
    expect(refusal({ all: [deepest] })).toBe(
      `CLAIM_POLICY: all[0]${'.any[0]'.repeat(MAX_POLICY_DEPTH - 2)}.any nests rules more than ${MAX_POLICY_DEPTH} levels deep`,
    );
  });

  it('needsRpc: true when a token, collection or group rule is anywhere in the tree', () => {
    expect(needsRpc(parse({ allow: [WALLET_A] }))).toBe(false);
    expect(needsRpc(parse({ any: [{ allow: [WALLET_A] }, { all: [{ allow: [WALLET_B] }] }] }))).toBe(false);
    expect(needsRpc(parse({ token: { mint: USDC, minAmount: '1' } }))).toBe(true);
    expect(needsRpc(parse({ any: [{ allow: [WALLET_A] }, { all: [{ collection: COLLECTION }] }] }))).toBe(true);
  });
});

describe('parseClaimPolicy: errors name the JSON path, never the values', () => {
  it.each([
    ['not JSON', '{"allow": [', 'CLAIM_POLICY: is not valid JSON'],
    [
      'a JSON array',
      [],
      'CLAIM_POLICY: the policy must be a rule object: a rule is an object with exactly one of allow, allowFile, token, collection, group, all, any (collection may have traits beside it)',
    ],
    ['an empty rule', {}, 'CLAIM_POLICY: the policy is empty: a rule is an object with exactly one of'],
    [
      'two keys in one rule',
      { allow: [WALLET_A], collection: COLLECTION },
      'CLAIM_POLICY: the policy has 2 keys (allow, collection): a rule is an object with exactly one of',
    ],
    ['an unknown key', { any: [{ alow: [WALLET_A] }] }, 'CLAIM_POLICY: any[0] has an unknown key "alow": a rule is an object with exactly one of'],
    ['allow not a list', { allow: WALLET_A }, 'CLAIM_POLICY: allow must be a list of addresses'],
    ['an empty allow', { allow: [] }, 'CLAIM_POLICY: allow must list at least one address'],
    ['a bad address in allow', { allow: [WALLET_A, 'not-an-address'] }, 'CLAIM_POLICY: allow[1] must be an address (base58 text of 32 bytes)'],
    ['a number as an address', { collection: 42 }, 'CLAIM_POLICY: collection must be an address (base58 text of 32 bytes)'],
    ['token without minAmount', { token: { mint: USDC } }, 'CLAIM_POLICY: token.minAmount must be a decimal string of base units'],
    [
      'token with an extra key',
      { token: { mint: USDC, minAmount: '1', decimals: 6 } },
      'CLAIM_POLICY: token has an unknown key "decimals": token takes only mint and minAmount',
    ],
    ['token not an object', { token: USDC }, 'CLAIM_POLICY: token must be {"mint": "<address>", "minAmount": "<base units>"}'],
    ['a bad mint', { all: [{ allow: [WALLET_A] }, { token: { mint: 'USDC', minAmount: '1' } }] }, 'CLAIM_POLICY: all[1].token.mint must be an address'],
    [
      'minAmount as a JSON number',
      { token: { mint: USDC, minAmount: 1000000 } },
      'CLAIM_POLICY: token.minAmount must be a decimal string of base units, e.g. "1000000" (a JSON number loses precision)',
    ],
    [
      'minAmount with decimals',
      { any: [{ allow: [WALLET_A] }, { token: { mint: USDC, minAmount: '1.5' } }] },
      'CLAIM_POLICY: any[1].token.minAmount must be a whole number of base units written as decimal digits',
    ],
    ['minAmount negative', { token: { mint: USDC, minAmount: '-1' } }, 'CLAIM_POLICY: token.minAmount must be a whole number of base units'],
    ['minAmount zero', { token: { mint: USDC, minAmount: '0' } }, 'CLAIM_POLICY: token.minAmount must be at least 1'],
    [
      'minAmount past u64',
      { token: { mint: USDC, minAmount: (U64_MAX + 1n).toString() } },
      'CLAIM_POLICY: token.minAmount must be at most 18446744073709551615',
    ],
    ['an empty any', { any: [] }, 'CLAIM_POLICY: any must list at least one rule'],
    ['all not a list', { all: { allow: [WALLET_A] } }, 'CLAIM_POLICY: all must be a list of rules'],
    ['a rule that is a string', { any: [WALLET_A] }, 'CLAIM_POLICY: any[0] must be a rule object'],
    [
      'traits without a collection',
      { any: [{ traits: { Hat: 'Red' } }] },
      'CLAIM_POLICY: any[0].traits belongs beside collection: {"collection": "<address>", "traits": {…}}',
    ],
    ['traits beside a token', { token: { mint: USDC, minAmount: '1' }, traits: { Hat: 'Red' } }, 'CLAIM_POLICY: traits belongs beside collection'],
    [
      'traits beside collection and another rule',
      { collection: COLLECTION, traits: { Hat: 'Red' }, group: USDC },
      'CLAIM_POLICY: the policy has 3 keys (collection, traits, group)',
    ],
    ['traits not an object', { collection: COLLECTION, traits: ['Hat', 'Red'] }, 'CLAIM_POLICY: traits must be an object of "<trait_type>": "<value>" pairs'],
    ['no traits', { collection: COLLECTION, traits: {} }, 'CLAIM_POLICY: traits must name at least one trait (or leave traits out)'],
    [
      'a trait value as a number',
      { collection: COLLECTION, traits: { Level: 7 } },
      'CLAIM_POLICY: traits.Level must be the attribute’s value as text, e.g. "Blue" (a number is written as text too: "7")',
    ],
    ['an empty trait value', { all: [{ collection: COLLECTION, traits: { Hat: '' } }] }, 'CLAIM_POLICY: all[0].traits.Hat must not be empty'],
    [
      'too many traits',
      { collection: COLLECTION, traits: Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`T${i}`, 'x'])) },
      'CLAIM_POLICY: traits must name at most 16 traits',
    ],
    ['a bad group', { group: 'seeker' }, 'CLAIM_POLICY: group must be an address (base58 text of 32 bytes)'],
  ])('%s', (_, policy, expected) => {
    expect(refusal(policy)).toContain(expected);
  });

  it('reports where the JSON breaks by line and column, without quoting it', () => {
    // V8's own message would quote the text around the mistake, allowlist included.
    const message = refusal(`{\n  "allow": ["${WALLET_A}",]\n}`);
    expect(message).toBe(`CLAIM_POLICY: is not valid JSON (line 2, column ${'  "allow": ["",]'.length + WALLET_A.length})`);
    expect(message).not.toContain(WALLET_A);
    expect(refusal('{"allow": [')).toBe('CLAIM_POLICY: is not valid JSON (line 1, column 12)');
    expect(refusal('{"any": [{"allow": ["a"]}}')).toBe('CLAIM_POLICY: is not valid JSON (line 1, column 26)');
    expect(refusal("{'allow': []}")).toBe('CLAIM_POLICY: is not valid JSON (line 1, column 2)');
  });

  it('finds the first JSON syntax error offset, and none in valid JSON', () => {
    for (const valid of ['{}', '[]', ' {"a": [1, -2.5e3, true, false, null, "x\\n\\u00e9"]} ', '"s"', '0']) {
      expect(JSON.parse(valid)).toBeDefined();
      expect(jsonErrorOffset(valid)).toBe(-1);
    }
    expect(jsonErrorOffset('{"a": 01}')).toBe(7);
    expect(jsonErrorOffset('{"a": "\t"}')).toBe(7);
    expect(jsonErrorOffset('[1,]')).toBe(3);
    expect(jsonErrorOffset('{} x')).toBe(3);
  });

  it('refuses a value that is neither JSON nor a readable file, without repeating it', () => {
    const message = refusal(`allow: ${WALLET_A}`);
    expect(message).toBe('CLAIM_POLICY: is neither JSON text (starting with {) nor a readable JSON file');
  });

  it('allowFile: names the line of a bad address, never the file contents', () => {
    const dir = freshDir();
    writeFileSync(path.join(dir, 'allow.txt'), `${WALLET_A}\n# Carol\n${WALLET_B}x\n`);
    const message = refusal({ any: [{ collection: COLLECTION }, { allowFile: 'allow.txt' }] }, dir);
    expect(message).toBe('CLAIM_POLICY: any[1].allowFile line 3 is not an address (base58 text of 32 bytes)');
  });

  it('allowFile: a missing or empty file', () => {
    const dir = freshDir();
    expect(refusal({ allowFile: 'missing.txt' }, dir)).toBe(`CLAIM_POLICY: allowFile cannot be read: ${path.join(dir, 'missing.txt')}`);
    writeFileSync(path.join(dir, 'empty.txt'), '# nobody yet\n\n');
    expect(refusal({ allowFile: 'empty.txt' }, dir)).toBe('CLAIM_POLICY: allowFile lists no addresses');
    expect(refusal({ allowFile: '' }, dir)).toBe('CLAIM_POLICY: allowFile must be the path of a file listing one address per line');
  });

  it('never prints the allowlist, whatever the mistake', () => {
    const messages = [
      refusal({ allow: [WALLET_A, WALLET_B, 'x'] }),
      refusal({ allow: [WALLET_A], any: [{ allow: [WALLET_B] }] }),
      refusal({ [WALLET_A]: [WALLET_B] }),
    ];
    for (const message of messages) {
      expect(message).not.toContain(WALLET_A);
      expect(message).not.toContain(WALLET_B);
    }
  });
});
