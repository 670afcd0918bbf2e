// 1,000+ randomly mutated claim bodies: whatever a client sends, the answer is a contract status
// with a problem+json code, never a 5xx. Seeded, so a failure can be replayed with FUZZ_SEED.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROBLEMS } from '@/lib/errors';
import { WALLET_TYPES } from '@/lib/wallet-types';
import { BACKENDS, TestApp, TestWallet } from '../support/app';

const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);
const ROUNDS = 1000;

/** mulberry32: a small, seedable PRNG (tests only; nothing here is security material). */
function prng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe.each(BACKENDS)('fuzzed claims on %s', (backend) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await TestApp.open(backend);
  });
  afterAll(() => app.close());

  it(`answers ${ROUNDS} mutated bodies without a single 5xx (seed ${SEED})`, async () => {
    const random = prng(SEED);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
    const wallet = new TestWallet();
    const { message } = await app.init(wallet.publicKey);
    const valid = { message, signature: wallet.sign(message), publicKey: wallet.publicKey, walletType: 'Phantom' };

    const strange: unknown[] = [
      null,
      true,
      0,
      -1,
      1e308,
      NaN,
      '',
      ' ',
      '\u0000',
      '\ud800',
      '💥'.repeat(500),
      'x'.repeat(5000),
      [],
      [1, 2],
      {},
      { nested: { deeper: [] } },
      '1111111111111111111111111111111111111111111111111111111111111111',
      ...WALLET_TYPES.map((t) => t.toLowerCase()),
    ];
    const mutateValue = (value: unknown): unknown => {
      if (typeof value !== 'string' || random() < 0.4) return pick(strange);
      const at = Math.floor(random() * (value.length + 1));
      switch (Math.floor(random() * 4)) {
        case 0:
          return value.slice(0, at);
        case 1:
          return value.slice(0, at) + String.fromCharCode(Math.floor(random() * 0xffff)) + value.slice(at);
        case 2:
          return value.slice(0, at) + value.slice(at + 1);
        default:
          return value.replace(/[A-Za-z0-9]/, pick(['0', 'O', 'I', 'l', '+', '/']));
      }
    };
    const mutateBody = (): { body: string | Buffer<ArrayBuffer>; contentType: string } => {
      const body: Record<string, unknown> = { ...valid };
      for (let n = 1 + Math.floor(random() * 3); n > 0; n--) {
        const key = pick([...Object.keys(valid), 'extra', '__proto__', 'constructor']);
        const action = random();
        if (action < 0.2) delete body[key];
        else body[key] = mutateValue(body[key]);
      }
      let text = JSON.stringify(body);
      const mode = random();
      if (mode < 0.1) {
        // Corrupt the JSON text itself.
        const at = Math.floor(random() * text.length);
        text = text.slice(0, at) + pick(['{', '}', '"', ',', ':', '\\', '']) + text.slice(at + 1);
      } else if (mode < 0.15) {
        // Invalid UTF-8 bytes inside a string.
        const bytes = Buffer.from(text);
        const at = text.indexOf('"message"') + 12;
        return {
          body: Buffer.concat([bytes.subarray(0, at), Buffer.from([0xc3, 0x28, 0xff]), bytes.subarray(at)]) as Buffer<ArrayBuffer>,
          contentType: 'application/json',
        };
      } else if (mode < 0.2) {
        text = pick(['[]', 'null', '"str"', '123', '', '{"a":'.repeat(2000)]);
      } else if (mode < 0.23) {
        text = JSON.stringify({ ...body, padding: 'p'.repeat(17000) });
      }
      const contentType = random() < 0.05 ? pick(['text/plain', 'application/jsonx', 'multipart/form-data', '']) : 'application/json';
      return { body: text, contentType };
    };

    const statuses = new Map<number, number>();
    for (let round = 0; round < ROUNDS; round++) {
      const { body, contentType } = mutateBody();
      const response = await app.fetch('/api/v1/claim/wallet-pass', {
        method: 'POST',
        headers: contentType ? { 'content-type': contentType } : {},
        body,
      });
      statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
      expect(response.status, `round ${round}: ${String(body).slice(0, 200)}`).toBeLessThan(500);
      if (response.status >= 400) {
        const problem = await response.json();
        expect(Object.keys(PROBLEMS)).toContain(problem.code);
        expect(PROBLEMS[problem.code as keyof typeof PROBLEMS].status).toBe(response.status);
      } else {
        await response.arrayBuffer();
      }
    }
    // The mix reached past validation: some bodies were judged on their signature or message.
    expect([...statuses.keys()].filter((s) => s === 400 || s === 401 || s === 409 || s === 413 || s === 415).length).toBeGreaterThanOrEqual(4);
  });
});
