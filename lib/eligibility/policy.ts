// CLAIM_POLICY: who may claim, as a tree of rules. This module parses and validates it (at
// start-up, and in `npm run doctor`); evaluating the rules against the chain lives elsewhere.
//
// Grammar (each rule object has exactly one key):
//   {"allow": ["<address>", ...]}            the wallet is one of these
//   {"allowFile": "<path>"}                  the same, one address per line (# comments, blank lines)
//   {"token": {"mint": "<address>", "minAmount": "<base units>"}}
//   {"collection": "<collection mint address>"}
//   {"collection": "<address>", "traits": {"<trait_type>": "<value>", ...}}   (the one rule with two keys)
//   {"group": "<Token-2022 group mint address>"}
//   {"all": [rule, ...]}, {"any": [rule, ...]} (non-empty, nested at most MAX_POLICY_DEPTH deep)
//
// Every error is a ConfigError('CLAIM_POLICY', …) that points at the JSON path of the problem
// (`any[1].token.minAmount must be …`) and never repeats a value: an allowlist is private, and a
// value typed into the wrong place may be anything.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { ConfigError } from '../config-error';
import { firstIssue } from '../validate';
import { isSolanaAddress } from '../wallet-address';

/** all/any nested deeper than this is refused: no real policy needs it, and evaluation recurses. */
export const MAX_POLICY_DEPTH = 8;

/** The largest SPL token amount: balances are u64. */
export const U64_MAX = 18_446_744_073_709_551_615n;

/** The parsed policy. allowFile is read at parse time and becomes an `allow` rule. */
export type ClaimRule =
  | { kind: 'allow'; addresses: ReadonlySet<string>; source: 'inline' | 'file' }
  | { kind: 'token'; mint: string; minAmount: bigint }
  | { kind: 'collection'; collection: string; traits?: Readonly<Record<string, string>> }
  | { kind: 'group'; group: string }
  | { kind: 'all'; rules: ClaimRule[] }
  | { kind: 'any'; rules: ClaimRule[] };

export type ClaimPolicy = ClaimRule;

const RULE_KEYS = ['allow', 'allowFile', 'token', 'collection', 'group', 'all', 'any'] as const;
const ONE_OF = `a rule is an object with exactly one of ${RULE_KEYS.join(', ')} (collection may have traits beside it)`;
/** Traits one rule may name at most: a rule is a few attributes, not a catalogue. */
export const MAX_TRAITS = 16;
const TRAITS = 'must be an object of "<trait_type>": "<value>" pairs, e.g. {"Background": "Blue"}';
const ADDRESS = 'must be an address (base58 text of 32 bytes)';

/**
 * Parses CLAIM_POLICY: JSON text (it starts with `{`), or a path to a JSON file. A relative
 * allowFile path is resolved against the policy file's folder, or against `cwd` for JSON text.
 */
export function parseClaimPolicy(textOrPath: string, cwd = process.cwd()): ClaimPolicy {
  const { text, baseDir } = policySource(textOrPath, cwd);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new ConfigError('CLAIM_POLICY', `is not valid JSON${jsonErrorLocation(text)}`);
  }
  const parsed = ruleSchema(1, baseDir).safeParse(json);
  if (!parsed.success) throw new ConfigError('CLAIM_POLICY', describeIssue(firstIssue(parsed.error)));
  return parsed.data;
}

/**
 * A program's policy (JSON already parsed, from the operator API): the CLAIM_POLICY grammar
 * without allowFile. Each problem is reported at its JSON path (`any[1].token.mint`), never with its value.
 */
export function parseProgramPolicy(json: unknown): { rule: ClaimPolicy } | { problems: { path: string; message: string }[] } {
  const parsed = ruleSchema(1, null).safeParse(json);
  if (parsed.success) return { rule: parsed.data };
  return {
    problems: parsed.error.issues.map((issue) => {
      const described = describeIssue(issue);
      const at = jsonPath(issue.path);
      return { path: at, message: at && described.startsWith(at) ? described.slice(at.length + 1) : described.replace(/^the policy /, '') };
    }),
  };
}

/** `any[1].token.mint`: a zod issue's path as JSON path text. */
function jsonPath(pathParts: readonly PropertyKey[]): string {
  return pathParts.reduce<string>((text, key) => (typeof key === 'number' ? `${text}[${key}]` : text ? `${text}.${String(key)}` : String(key)), '');
}

/** True when some rule reads the chain (token, collection, group): SOLANA_RPC_URL is needed. */
export function needsRpc(rule: ClaimRule): boolean {
  switch (rule.kind) {
    case 'token':
    case 'collection':
    case 'group':
      return true;
    case 'all':
    case 'any':
      return rule.rules.some(needsRpc);
    case 'allow':
      return false;
  }
}

/** A one-line summary for logs and the doctor: the shape and sizes, never an address. */
export function describePolicy(rule: ClaimRule): string {
  switch (rule.kind) {
    case 'allow':
      return `${rule.source === 'file' ? 'allowFile' : 'allow'} (${rule.addresses.size} ${rule.addresses.size === 1 ? 'address' : 'addresses'})`;
    case 'token':
      return 'token';
    case 'collection':
      return rule.traits ? `collection with traits (${Object.keys(rule.traits).length})` : 'collection';
    case 'group':
      return 'group';
    case 'all':
    case 'any':
      return `${rule.kind}(${rule.rules.map(describePolicy).join(', ')})`;
  }
}

function policySource(textOrPath: string, cwd: string): { text: string; baseDir: string } {
  // A JSON rule starts with `{`; `[` and `"` are JSON too (and get a precise error below).
  if (/^\s*[{["]/.test(textOrPath)) return { text: textOrPath, baseDir: cwd };
  const file = path.resolve(cwd, textOrPath.trim());
  try {
    return { text: readFileSync(file, 'utf8'), baseDir: path.dirname(file) };
  } catch {
    // The value is not echoed: it is not JSON, and may be anything pasted into the variable.
    throw new ConfigError('CLAIM_POLICY', 'is neither JSON text (starting with {) nor a readable JSON file');
  }
}

/**
 * Where the JSON breaks, as line and column. V8's own message quotes the text around the error
 * (which may hold the allowlist), and gives no position for most mistakes, so the text is scanned
 * here instead: only the location is reported.
 */
function jsonErrorLocation(text: string): string {
  const offset = jsonErrorOffset(text);
  if (offset < 0) return '';
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  const column = offset - before.lastIndexOf('\n');
  return ` (line ${line}, column ${column})`;
}

/** The offset of the first JSON syntax error in `text` (RFC 8259 grammar), or -1 if none is found. */
export function jsonErrorOffset(text: string): number {
  let i = 0;
  const fail = (): never => {
    throw new JsonSyntaxAt(i);
  };
  const space = () => {
    while (i < text.length && ' \t\n\r'.includes(text.charAt(i))) i++;
  };
  const expect = (char: string) => (text[i] === char ? i++ : fail());
  const string = () => {
    expect('"');
    for (;;) {
      const char = text[i];
      if (char === undefined || char < ' ') fail();
      i++;
      if (char === '"') return;
      if (char === '\\') {
        const escaped = text[i];
        if (escaped === 'u' && /^[0-9a-fA-F]{4}$/.test(text.slice(i + 1, i + 5))) i += 5;
        else if (escaped !== undefined && '"\\/bfnrt'.includes(escaped)) i++;
        else fail();
      }
    }
  };
  const sequence = (close: string, item: () => void) => {
    i++;
    space();
    if (text[i] === close) return void i++;
    for (;;) {
      item();
      space();
      if (text[i] === close) return void i++;
      expect(',');
    }
  };
  const value = (): void => {
    space();
    const char = text[i];
    if (char === '{') {
      sequence('}', () => {
        space();
        string();
        space();
        expect(':');
        value();
      });
      return;
    }
    if (char === '[') {
      sequence(']', value);
      return;
    }
    if (char === '"') {
      string();
      return;
    }
    const literal = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null/y;
    literal.lastIndex = i;
    if (!literal.test(text)) fail();
    i = literal.lastIndex;
  };
  try {
    value();
    space();
    return i < text.length ? i : -1;
  } catch (error) {
    return error instanceof JsonSyntaxAt ? error.offset : -1; // -1 also for nesting too deep to scan
  }
}

class JsonSyntaxAt {
  constructor(readonly offset: number) {}
}

const address = z.string({ error: ADDRESS }).refine(isSolanaAddress, ADDRESS);

/** Base units as a decimal string: JSON numbers lose precision past 2^53, and amounts reach 2^64. */
const baseUnits = z
  .string({ error: 'must be a decimal string of base units, e.g. "1000000" (a JSON number loses precision)' })
  .regex(/^\d{1,20}$/, { message: 'must be a whole number of base units written as decimal digits, e.g. "1000000" (no sign, no decimal point)', abort: true })
  .transform((digits) => BigInt(digits))
  .refine((amount) => amount >= 1n, 'must be at least 1 (a token rule of 0 would let every wallet claim)')
  .refine((amount) => amount <= U64_MAX, `must be at most ${U64_MAX} (token amounts are u64)`);

/**
 * The rule schema at one nesting depth. Built per parse (allowFile paths depend on where the policy
 * came from), one level per depth up to MAX_POLICY_DEPTH, where all/any are refused.
 */
function ruleSchema(depth: number, baseDir: string | null): z.ZodType<ClaimRule> {
  const nested =
    depth < MAX_POLICY_DEPTH
      ? z.array(ruleSchema(depth + 1, baseDir), { error: 'must be a list of rules' }).min(1, 'must list at least one rule')
      : z.unknown().refine(() => false, `nests rules more than ${MAX_POLICY_DEPTH} levels deep`);
  return z
    .object(
      {
        allow: z.array(address, { error: 'must be a list of addresses' }).min(1, 'must list at least one address'),
        allowFile: z
          .string({ error: 'must be the path of a file listing one address per line' })
          .min(1, 'must be the path of a file listing one address per line')
          .transform((file, ctx) => {
            // A program's policy comes over the API: it never names a file of the server's.
            if (baseDir === null) {
              ctx.addIssue({ code: 'custom', message: 'is not available in a program’s policy: list the addresses with allow' });
              return new Set<string>();
            }
            return readAllowFile(path.resolve(baseDir, file), ctx);
          }),
        token: z.strictObject({ mint: address, minAmount: baseUnits }, { error: 'must be {"mint": "<address>", "minAmount": "<base units>"}' }),
        collection: address,
        traits: z
          .record(
            z.string().min(1, 'must not name a trait with an empty trait_type').max(64, 'names a trait_type longer than 64 characters'),
            z
              .string({ error: 'must be the attribute’s value as text, e.g. "Blue" (a number is written as text too: "7")' })
              .min(1, 'must not be empty: the attribute’s value, e.g. "Blue"')
              .max(200, 'must be at most 200 characters'),
            { error: TRAITS },
          )
          .refine((traits) => Object.keys(traits).length >= 1, 'must name at least one trait (or leave traits out)')
          .refine((traits) => Object.keys(traits).length <= MAX_TRAITS, `must name at most ${MAX_TRAITS} traits`),
        group: address,
        all: nested,
        any: nested,
      },
      { error: `must be a rule object: ${ONE_OF}` },
    )
    .partial()
    .strict()
    .superRefine((rule, ctx) => {
      const keys = Object.keys(rule);
      if (keys.includes('traits')) {
        // traits narrows a collection rule: it is the one key that comes beside another.
        if (!keys.includes('collection'))
          ctx.addIssue({ code: 'custom', path: ['traits'], message: 'belongs beside collection: {"collection": "<address>", "traits": {…}}' });
        else if (keys.length > 2) ctx.addIssue({ code: 'custom', message: `has ${keys.length} keys (${keys.join(', ')}): ${ONE_OF}` });
        return;
      }
      if (keys.length !== 1)
        ctx.addIssue({ code: 'custom', message: keys.length === 0 ? `is empty: ${ONE_OF}` : `has ${keys.length} keys (${keys.join(', ')}): ${ONE_OF}` });
    })
    .transform((rule) => toRule(rule as RuleObject));
}

type RuleObject = {
  allow?: string[];
  allowFile?: ReadonlySet<string>;
  token?: { mint: string; minAmount: bigint };
  collection?: string;
  traits?: Record<string, string>;
  group?: string;
  all?: ClaimRule[];
  any?: ClaimRule[];
};

function toRule(rule: RuleObject): ClaimRule {
  if (rule.allow) return { kind: 'allow', addresses: new Set(rule.allow), source: 'inline' };
  if (rule.allowFile) return { kind: 'allow', addresses: rule.allowFile, source: 'file' };
  if (rule.token) return { kind: 'token', mint: rule.token.mint, minAmount: rule.token.minAmount };
  if (rule.collection)
    return rule.traits ? { kind: 'collection', collection: rule.collection, traits: rule.traits } : { kind: 'collection', collection: rule.collection };
  if (rule.group) return { kind: 'group', group: rule.group };
  if (rule.all) return { kind: 'all', rules: rule.all };
  if (rule.any) return { kind: 'any', rules: rule.any };
  // The refinement above lets through only objects with exactly one key.
  throw new Error('a rule object passed validation without a rule key');
}

/** One address per line; blank lines and `#` comments (whole-line or trailing) are skipped. */
function readAllowFile(file: string, ctx: z.RefinementCtx): ReadonlySet<string> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    ctx.addIssue({ code: 'custom', message: `cannot be read: ${file}` });
    return new Set();
  }
  const addresses = new Set<string>();
  for (const [index, line] of text.split(/\r?\n/).entries()) {
    const entry = line.replace(/#.*/, '').trim();
    if (entry === '') continue;
    if (!isSolanaAddress(entry)) {
      ctx.addIssue({ code: 'custom', message: `line ${index + 1} is not an address (base58 text of 32 bytes)` });
      return new Set();
    }
    addresses.add(entry);
  }
  if (addresses.size === 0) ctx.addIssue({ code: 'custom', message: 'lists no addresses' });
  return addresses;
}

/** `any[1].token.minAmount must be …`: the JSON path, then the problem, never the value. */
function describeIssue(issue: z.core.$ZodIssue): string {
  const at = jsonPath(issue.path);
  let message = issue.message;
  if (issue.code === 'unrecognized_keys') {
    // Key names are the author's typos ("alow"), worth showing; a long one may be pasted data.
    const key = issue.keys[0] ?? '';
    message = `has an unknown key${/^[A-Za-z]{1,20}$/.test(key) ? ` "${key}"` : ''}: ${at.endsWith('token') ? 'token takes only mint and minAmount' : ONE_OF}`;
  } else if (issue.code === 'invalid_type' && issue.message.startsWith('Invalid input')) {
    message = 'has the wrong type';
  }
  return at ? `${at} ${message}` : `the policy ${message}`;
}
