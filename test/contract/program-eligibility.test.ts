// Each program's `policy` works as CLAIM_POLICY does: at init, at claim, and in the re-check rounds,
// while CLAIM_POLICY governs the default program only. Against the local Solana JSON-RPC stand-in
// (real SPL Token accounts in litesvm) and a local webhook receiver.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runRecheckRound } from '@/lib/eligibility/recheck';
import { getOperatorPass } from '@/lib/operators/passes';
import { TestApp, TestWallet } from '../support/app';
import { SolanaRpcStandIn } from '../support/stand-ins/solana-rpc';
import { newWebhookSecret, WebhookReceiver } from '../support/stand-ins/webhook-receiver';

type ProblemBody = { code: string; status: number; detail: string; fields?: { field: string; message: string }[] };
type WebhookEvent = { type: string; data: { serialNumber: string; publicKey: string; program: string; reason?: string } };

/** Reads `read()` until it gives a value: for what a job or a timer does in the background. */
async function eventually<T>(read: () => T | undefined | Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error('not seen in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Creates a program through the operator API; resolves with the answer's status and body. */
async function createProgram(
  app: TestApp,
  token: string,
  program: Record<string, unknown>,
): Promise<{ status: number; body: ProblemBody & { slug?: string } }> {
  const response = await app.fetch('/api/v1/operator/programs', {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(program),
  });
  return { status: response.status, body: (await response.json()) as ProblemBody };
}

async function changeProgram(app: TestApp, token: string, slug: string, patch: Record<string, unknown>): Promise<{ status: number; body: ProblemBody }> {
  const response = await app.fetch(`/api/v1/operator/programs/${slug}`, {
    method: 'PATCH',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(patch),
  });
  return { status: response.status, body: (await response.json()) as ProblemBody };
}

function initFor(app: TestApp, wallet: TestWallet, program?: string): Promise<Response> {
  const query = new URLSearchParams({ publicKey: wallet.publicKey, ...(program ? { program } : {}) });
  return app.fetch(`/api/v1/claim/init?${query}`);
}

/** The message of a successful init for `program`. */
async function messageFor(app: TestApp, wallet: TestWallet, program?: string): Promise<string> {
  const response = await initFor(app, wallet, program);
  expect(response.status, await response.clone().text()).toBe(200);
  return ((await response.json()) as { message: string }).message;
}

function claim(app: TestApp, wallet: TestWallet, message: string, program?: string): Promise<Response> {
  return app.postClaim({ message, signature: wallet.sign(message), publicKey: wallet.publicKey, ...(program ? { program } : {}) });
}

/** init, sign, claim for `program`: resolves with the new pass's serial. */
async function claimPass(app: TestApp, wallet: TestWallet, program?: string): Promise<string> {
  const response = await claim(app, wallet, await messageFor(app, wallet, program), program);
  expect(response.status, await response.clone().text()).toBe(201);
  const [row] = await app.services.store.sql.query<{ serial: string }>('select serial_number as serial from passes where public_key = $1 and program = $2', [
    wallet.publicKey,
    program ?? 'default',
  ]);
  return row!.serial;
}

async function stored(app: TestApp, table: 'passes' | 'sign_in_messages', publicKey: string): Promise<number> {
  const [row] = await app.services.store.sql.query<{ n: number }>(`select count(*)::int as n from ${table} where public_key = $1`, [publicKey]);
  return row!.n;
}

describe('a program’s policy', () => {
  let rpc: SolanaRpcStandIn;
  let receiver: WebhookReceiver;
  let app: TestApp;
  let token: string;
  let defaultMint: string;
  const secret = newWebhookSecret();
  const operator = new TestWallet();

  beforeAll(async () => {
    rpc = await SolanaRpcStandIn.start();
    receiver = await WebhookReceiver.start();
    defaultMint = await rpc.createMint();
    app = await TestApp.open('pglite', {
      CLAIM_POLICY: JSON.stringify({ token: { mint: defaultMint, minAmount: '1' } }),
      SOLANA_RPC_URL: rpc.url,
      // Each claim asks the chain again, as a wallet that sold between init and claim would meet.
      ELIGIBILITY_CACHE_SECONDS: '0',
      ELIGIBILITY_RECHECK_SECONDS: '0', // rounds are run by the tests
      OPERATOR_WALLETS: operator.publicKey,
      WEBHOOK_URL: receiver.url,
      WEBHOOK_SECRET: secret,
      JOB_RETRY_BASE_MS: '50',
    });
    token = await app.operatorToken(operator);
  });
  afterAll(async () => {
    await app?.close();
    await receiver?.close();
    await rpc?.close();
  });

  describe('at init and at claim', () => {
    it('a token rule: a wallet without the token gets 403 not_eligible at init, nothing stored; a holder claims; one who sold after init is refused at claim', async () => {
      const mint = await rpc.createMint();
      expect((await createProgram(app, token, { slug: 'holders', name: 'Holders', status: 'live', policy: { token: { mint, minAmount: '5' } } })).status).toBe(
        201,
      );

      const outsider = new TestWallet();
      const refused = await initFor(app, outsider, 'holders');
      expect(refused.status).toBe(403);
      expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(await refused.json()).toMatchObject({
        status: 403,
        code: 'not_eligible',
        detail: `This wallet cannot claim a pass yet: to be eligible, it needs to hold at least 5 base units of the token ${mint} (it holds 0).`,
      });
      expect(await stored(app, 'sign_in_messages', outsider.publicKey)).toBe(0);
      expect(await stored(app, 'passes', outsider.publicKey)).toBe(0);

      // A holder of the program's token claims, though it holds none of CLAIM_POLICY's.
      const holder = new TestWallet();
      await rpc.mintTo(mint, holder.publicKey, 5n);
      await claimPass(app, holder, 'holders');
      // …and CLAIM_POLICY still keeps it out of the default program.
      expect(await (await initFor(app, holder)).json()).toMatchObject({ code: 'not_eligible', detail: expect.stringContaining(defaultMint) });

      // Sold between init and claim: the claim is checked again and refused; back, it claims.
      const seller = new TestWallet();
      const account = await rpc.mintTo(mint, seller.publicKey, 5n);
      const message = await messageFor(app, seller, 'holders');
      await rpc.transfer(account, seller.keyPair.secretKey, new TestWallet().publicKey, 5n);
      const late = await claim(app, seller, message, 'holders');
      expect(late.status).toBe(403);
      expect(await late.json()).toMatchObject({ code: 'not_eligible', detail: expect.stringContaining('(it holds 0)') });
      expect(await stored(app, 'passes', seller.publicKey)).toBe(0);
      await rpc.mintTo(mint, seller.publicKey, 5n);
      expect((await claim(app, seller, message, 'holders')).status).toBe(201);
    });

    it('an allow rule: the invited wallet claims; another is refused without seeing the list', async () => {
      const invited = new TestWallet();
      expect((await createProgram(app, token, { slug: 'invited', name: 'Invited', status: 'live', policy: { allow: [invited.publicKey] } })).status).toBe(201);

      const other = new TestWallet();
      const refused = await initFor(app, other, 'invited');
      expect(refused.status).toBe(403);
      const body = (await refused.json()) as ProblemBody;
      expect(body).toMatchObject({
        code: 'not_eligible',
        detail: 'This wallet cannot claim a pass yet: to be eligible, it needs to be on the list of wallets invited to claim.',
      });
      expect(JSON.stringify(body)).not.toContain(invited.publicKey);
      expect(await stored(app, 'sign_in_messages', other.publicKey)).toBe(0);

      await claimPass(app, invited, 'invited');
    });

    it('a program without a policy admits anyone, though CLAIM_POLICY is set: it governs the default program only', async () => {
      expect((await createProgram(app, token, { slug: 'open-door', name: 'Open door', status: 'live' })).status).toBe(201);
      const anyone = new TestWallet();
      const before = rpc.count();
      await claimPass(app, anyone, 'open-door');
      expect(rpc.count() - before).toBe(0);
      expect((await initFor(app, anyone)).status).toBe(403);
    });

    it('a policy with allowFile is refused at create with 400 naming `policy`, and nothing is created', async () => {
      const created = await createProgram(app, token, { slug: 'from-a-file', name: 'From a file', status: 'live', policy: { allowFile: '/etc/passwd' } });
      expect(created.status).toBe(400);
      expect(created.body.code).toBe('invalid_request');
      expect(created.body.fields?.map((field) => field.field)).toEqual([expect.stringMatching(/^policy/)]);
      expect((await app.fetch('/api/v1/operator/programs/from-a-file', { headers: { authorization: `Bearer ${token}` } })).status).toBe(404);
      // Nor through a change.
      const changed = await changeProgram(app, token, 'open-door', { policy: { allowFile: '/etc/passwd' } });
      expect(changed.status).toBe(400);
      expect(changed.body.fields?.map((field) => field.field)).toEqual([expect.stringMatching(/^policy/)]);
    });
  });

  describe('re-check rounds', () => {
    it('cover every program with a policy: a program’s seller is voided and restored, a policy-free program is never touched, the default still follows CLAIM_POLICY', async () => {
      const mintA = await rpc.createMint();
      expect(
        (await createProgram(app, token, { slug: 'program-a', name: 'A', status: 'live', policy: { token: { mint: mintA, minAmount: '1' } } })).status,
      ).toBe(201);
      expect((await createProgram(app, token, { slug: 'program-b', name: 'B', status: 'live' })).status).toBe(201);

      // One wallet with a pass in each: A (its token), B (no policy) and default (CLAIM_POLICY's token).
      const wallet = new TestWallet();
      const accountA = await rpc.mintTo(mintA, wallet.publicKey, 1n);
      const accountDefault = await rpc.mintTo(defaultMint, wallet.publicKey, 1n);
      const serialA = await claimPass(app, wallet, 'program-a');
      const serialB = await claimPass(app, wallet, 'program-b');
      const serialDefault = await claimPass(app, wallet);
      // A holder of nothing, with a pass of B only.
      const bystander = new TestWallet();
      const serialBystander = await claimPass(app, bystander, 'program-b');
      const versionOf = async (serial: string) => (await getOperatorPass(app.services, serial)).updatedAt;
      const untouched = { [serialB]: await versionOf(serialB), [serialBystander]: await versionOf(serialBystander) };

      // Passes of programs with a policy (the earlier tests' too, all still eligible), and of default.
      const [{ n: withPolicy } = { n: 0 }] = await app.services.store.sql.query<{ n: number }>(
        `select count(*)::int as n from passes where program not in ('program-b', 'open-door')`,
      );

      // Sells A's token: the next round voids the A pass only.
      await rpc.transfer(accountA, wallet.keyPair.secretKey, new TestWallet().publicKey, 1n);
      const sold = await runRecheckRound(app.services, { intervalSeconds: 0 });
      expect(sold).toMatchObject({ ran: true, round: { checked: withPolicy, voided: 1, restored: 0, error: null } });
      expect(await getOperatorPass(app.services, serialA)).toMatchObject({ program: 'program-a', status: 'voided', voidReason: 'not_eligible' });
      expect(await getOperatorPass(app.services, serialDefault)).toMatchObject({ status: 'active' });
      const voided = await eventually(() =>
        receiver
          .accepted()
          .map((request) => JSON.parse(request.body) as WebhookEvent)
          .find((event) => event.type === 'pass.voided' && event.data.serialNumber === serialA),
      );
      expect(voided.data).toMatchObject({ publicKey: wallet.publicKey, program: 'program-a', reason: 'not_eligible' });

      // Sells CLAIM_POLICY's token: the default pass goes too.
      await rpc.transfer(accountDefault, wallet.keyPair.secretKey, new TestWallet().publicKey, 1n);
      expect(await runRecheckRound(app.services, { intervalSeconds: 0 })).toMatchObject({ ran: true, round: { voided: 1, restored: 0, error: null } });
      expect(await getOperatorPass(app.services, serialDefault)).toMatchObject({ program: 'default', status: 'voided', voidReason: 'not_eligible' });

      // Buys A's token back: the A pass is restored; the default pass stays voided.
      await rpc.mintTo(mintA, wallet.publicKey, 1n);
      expect(await runRecheckRound(app.services, { intervalSeconds: 0 })).toMatchObject({
        ran: true,
        round: { checked: withPolicy, voided: 0, restored: 1, error: null },
      });
      expect(await getOperatorPass(app.services, serialA)).toMatchObject({ status: 'active', voidReason: null });
      expect(await getOperatorPass(app.services, serialDefault)).toMatchObject({ status: 'voided', voidReason: 'not_eligible' });
      await eventually(() =>
        receiver
          .accepted()
          .map((request) => JSON.parse(request.body) as WebhookEvent)
          .find((event) => event.type === 'pass.restored' && event.data.serialNumber === serialA),
      );

      // B's passes were never touched: still active, never changed, never announced.
      for (const serial of [serialB, serialBystander]) {
        expect(await getOperatorPass(app.services, serial)).toMatchObject({ program: 'program-b', status: 'active', updatedAt: untouched[serial] });
      }
      const aboutB = receiver
        .accepted()
        .map((request) => JSON.parse(request.body) as WebhookEvent)
        .filter((event) => event.data.program === 'program-b' && event.type !== 'pass.created');
      expect(aboutB).toEqual([]);
    });
  });
});

describe('a program’s policy without CLAIM_POLICY', () => {
  let app: TestApp;
  let token: string;
  const operator = new TestWallet();

  beforeAll(async () => {
    // No CLAIM_POLICY, no SOLANA_RPC_URL, and rounds on their own timer every second.
    app = await TestApp.open('pglite', { OPERATOR_WALLETS: operator.publicKey, ELIGIBILITY_RECHECK_SECONDS: '1' });
    token = await app.operatorToken(operator);
  });
  afterAll(() => app?.close());

  it('a token rule without SOLANA_RPC_URL is refused at create and at change with 400 naming `policy`', async () => {
    const policy = { token: { mint: new TestWallet().publicKey, minAmount: '1' } };
    const created = await createProgram(app, token, { slug: 'no-rpc', name: 'No RPC', status: 'live', policy });
    expect(created.status).toBe(400);
    expect(created.body).toMatchObject({ code: 'invalid_request', fields: [{ field: 'policy', message: expect.stringContaining('SOLANA_RPC_URL') }] });
    expect((await app.fetch('/api/v1/operator/programs/no-rpc', { headers: { authorization: `Bearer ${token}` } })).status).toBe(404);

    expect((await createProgram(app, token, { slug: 'no-rpc', name: 'No RPC', status: 'live' })).status).toBe(201);
    const changed = await changeProgram(app, token, 'no-rpc', { policy: { any: [{ allow: [new TestWallet().publicKey] }, policy] } });
    expect(changed.status).toBe(400);
    expect(changed.body).toMatchObject({ code: 'invalid_request', fields: [{ field: 'policy' }] });
  });

  it('rounds start on their timer for a program’s policy, and follow a change of it: dropped from the list, voided; back on it, restored', async () => {
    const member = new TestWallet();
    const other = new TestWallet();
    expect(
      (await createProgram(app, token, { slug: 'members', name: 'Members', status: 'live', policy: { allow: [member.publicKey, other.publicKey] } })).status,
    ).toBe(201);
    const serial = await claimPass(app, member, 'members');
    const otherSerial = await claimPass(app, other, 'members');
    // The default program has no policy here: anyone claims it, and its passes are never re-checked.
    const defaultSerial = await claimPass(app, member);

    expect((await changeProgram(app, token, 'members', { policy: { allow: [other.publicKey] } })).status).toBe(200);
    await eventually(async () => ((await getOperatorPass(app.services, serial)).status === 'voided' ? true : undefined));
    expect(await getOperatorPass(app.services, serial)).toMatchObject({ voidReason: 'not_eligible' });
    expect(await getOperatorPass(app.services, otherSerial)).toMatchObject({ status: 'active' });

    expect((await changeProgram(app, token, 'members', { policy: { allow: [member.publicKey, other.publicKey] } })).status).toBe(200);
    await eventually(async () => ((await getOperatorPass(app.services, serial)).status === 'active' ? true : undefined));
    expect(await getOperatorPass(app.services, defaultSerial)).toMatchObject({ status: 'active' });
  });
});
