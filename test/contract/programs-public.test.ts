// GET /api/v1/programs/{slug}: a program as its claim page shows it, to anyone. What it says, and
// what it never says (the allowlist, the counts); unknown programs and drafts are not found.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, TestApp, TestWallet } from '../support/app';

const BASE = 'https://passes.example.com';
const HOUR = 3600_000;

describe.each(BACKENDS)('the public program on %s', (backend) => {
  let app: TestApp;
  let token: string;
  const operator = new TestWallet();
  const invited = new TestWallet();

  beforeAll(async () => {
    app = await TestApp.open(backend, { PUBLIC_BASE_URL: BASE, OPERATOR_WALLETS: operator.publicKey });
    token = await app.operatorToken(operator);
  });
  afterAll(() => app?.close());

  const create = async (program: Record<string, unknown>) => {
    const response = await app.fetch('/api/v1/operator/programs', {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ status: 'live', ...program }),
    });
    expect(response.status, await response.clone().text()).toBe(201);
  };
  const read = async (slug: string) => {
    const response = await app.fetch(`/api/v1/programs/${slug}`);
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  it('answers a live program’s name, design, window and who may claim in words, never its allowlist or counts', async () => {
    await create({
      slug: 'members',
      name: 'Members',
      closesAt: new Date(Date.now() + 24 * HOUR).toISOString(),
      supply: 100,
      policy: { allow: [invited.publicKey] },
      design: { style: 'storeCard', logoText: 'Club', fields: { primary: [{ key: 'who', label: 'Member', value: '{shortAddress}' }] } },
    });
    const { status, body } = await read('members');
    expect(status).toBe(200);
    expect(body).toMatchObject({ slug: 'members', name: 'Members', status: 'live', opensAt: null, soldOut: false, images: {}, eligibility: 'Invited wallets' });
    expect(body.closesAt).toEqual(expect.any(String));
    expect(body.design).toMatchObject({ style: 'storeCard', logoText: 'Club' });
    const text = JSON.stringify(body);
    expect(text).not.toContain(invited.publicKey);
    expect(Object.keys(body).sort()).toEqual(['closesAt', 'design', 'eligibility', 'images', 'name', 'opensAt', 'slug', 'soldOut', 'status']);
  });

  it('says who may claim for token and collection rules, with short addresses', async () => {
    const mint = new TestWallet().publicKey;
    const collection = new TestWallet().publicKey;
    const short = (address: string) => `${address.slice(0, 4)}…${address.slice(-4)}`;
    // These rules read the chain; the program is refused without an RPC, so the service gets one (never called here).
    await app.restart({ SOLANA_RPC_URL: 'http://127.0.0.1:9/' });
    token = await app.operatorToken(operator);
    await create({ slug: 'holders', name: 'Holders', policy: { token: { mint, minAmount: '1' } } });
    await create({ slug: 'big-holders', name: 'Big holders', policy: { any: [{ token: { mint, minAmount: '5000' } }, { collection }] } });
    expect((await read('holders')).body.eligibility).toBe(`Holders of the token ${short(mint)}`);
    expect((await read('big-holders')).body.eligibility).toBe(
      `Wallets that either hold at least 5000 base units of the token ${short(mint)} or hold an NFT of the collection ${short(collection)}`,
    );
  });

  it('a program with no policy is open to anyone; the default program says so without CLAIM_POLICY', async () => {
    await create({ slug: 'open-to-all', name: 'Open to all' });
    expect((await read('open-to-all')).body.eligibility).toBe('Anyone with a Solana wallet');
    const defaults = await read('default');
    expect(defaults).toMatchObject({ status: 200, body: { slug: 'default', design: null, eligibility: 'Anyone with a Solana wallet' } });
  });

  it('a program not open yet says when it opens; a sold-out one says sold out once its supply is claimed', async () => {
    const opensAt = new Date(Date.now() + 2 * HOUR).toISOString();
    await create({ slug: 'later', name: 'Later', opensAt });
    expect((await read('later')).body).toMatchObject({ status: 'live', opensAt, soldOut: false });

    await create({ slug: 'only-one', name: 'Only one', supply: 1 });
    const wallet = new TestWallet();
    const init = await app.fetch(`/api/v1/claim/init?publicKey=${wallet.publicKey}&program=only-one`);
    const { message } = (await init.json()) as { message: string };
    expect((await app.postClaim({ message, signature: wallet.sign(message), publicKey: wallet.publicKey, program: 'only-one' })).status).toBe(201);
    expect((await read('only-one')).body).toMatchObject({ soldOut: true });
  });

  it('unknown programs, drafts and malformed slugs are 404 program_not_found', async () => {
    await create({ slug: 'secret-draft', name: 'Secret', status: 'draft' });
    for (const slug of ['secret-draft', 'no-such-program', 'Not_A_Slug']) {
      const { status, body } = await read(slug);
      expect(status, slug).toBe(404);
      expect(body.code).toBe('program_not_found');
    }
  });
});
