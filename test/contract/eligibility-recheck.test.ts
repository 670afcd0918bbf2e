// Re-check rounds: passes whose wallets no longer meet CLAIM_POLICY are voided (reason
// not_eligible, announced by webhook) and restored when they qualify again; an operator's void is
// left alone; an RPC failure voids nothing; several instances on one PostgreSQL never run a round
// twice. Against the local Solana JSON-RPC stand-in and a local webhook receiver.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '@/lib/config';
import { allRounds } from '@/lib/db/eligibility';
import { eligibilityStatus, runRecheckRound } from '@/lib/eligibility/recheck';
import { getOperatorPass } from '@/lib/operators/passes';
import { voidPass } from '@/lib/passes/lifecycle';
import { createServices, type Services } from '@/lib/services';
import { missingEnv, requireService } from '../scale/support/requirements';
import { TestApp, TestWallet } from '../support/app';
import { SolanaRpcStandIn } from '../support/stand-ins/solana-rpc';

type Event = { type: string; data: { serialNumber: string; publicKey: string; reason?: string } };

/** A webhook receiver: verifies each delivery's Standard Webhooks signature and keeps the events. */
async function startReceiver(secret: string) {
  const events: Event[] = [];
  const verifier = new Webhook(secret);
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      try {
        events.push(verifier.verify(body, request.headers as Record<string, string>) as Event);
        response.writeHead(204).end();
      } catch {
        response.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    events,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function eventually<T>(read: () => T | undefined, timeoutMs = 10_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = read();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error('not seen in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function claimPass(app: TestApp, wallet: TestWallet): Promise<string> {
  const response = await app.claimWith(wallet);
  expect(response.status).toBe(201);
  const [row] = await app.services.store.sql.query<{ serial: string }>('select serial_number as serial from passes where public_key = $1', [wallet.publicKey]);
  return row!.serial;
}

describe('eligibility re-check rounds', () => {
  let rpc: SolanaRpcStandIn;
  beforeAll(async () => {
    rpc = await SolanaRpcStandIn.start();
  });
  afterAll(() => rpc.close());

  it('voids a pass whose wallet sold its tokens, restores it when they are back, announces both, and leaves an operator’s void alone', async () => {
    const secret = `whsec_${randomBytes(32).toString('base64')}`;
    const receiver = await startReceiver(secret);
    const mint = await rpc.createMint({ program: 'token-2022' });
    const seller = new TestWallet();
    const account = await rpc.mintTo(mint, seller.publicKey, 10n);
    const keeper = new TestWallet();
    await rpc.mintTo(mint, keeper.publicKey, 10n);
    const app = await TestApp.open('pglite', {
      CLAIM_POLICY: JSON.stringify({ token: { mint, minAmount: '10' } }),
      SOLANA_RPC_URL: rpc.url,
      ELIGIBILITY_RECHECK_SECONDS: '0', // rounds are run by the test
      WEBHOOK_URL: receiver.url,
      WEBHOOK_SECRET: secret,
      JOB_RETRY_BASE_MS: '50',
    });
    try {
      const sellerSerial = await claimPass(app, seller);
      const keeperSerial = await claimPass(app, keeper);
      await voidPass(app.services, keeperSerial, 'lost card');

      await rpc.transfer(account, seller.keyPair.secretKey, new TestWallet().publicKey, 10n);
      const first = await runRecheckRound(app.services, { intervalSeconds: 0 });
      expect(first).toMatchObject({ ran: true, round: { checked: 1, voided: 1, restored: 0, error: null } });
      expect(await getOperatorPass(app.services, sellerSerial)).toMatchObject({ status: 'voided', voidReason: 'not_eligible' });
      expect(await getOperatorPass(app.services, keeperSerial)).toMatchObject({ status: 'voided', voidReason: 'lost card' });
      const voided = await eventually(() => receiver.events.find((event) => event.type === 'pass.voided' && event.data.serialNumber === sellerSerial));
      expect(voided.data).toMatchObject({ publicKey: seller.publicKey, reason: 'not_eligible' });

      // A second round changes nothing more.
      expect(await runRecheckRound(app.services, { intervalSeconds: 0 })).toMatchObject({ ran: true, round: { voided: 0, restored: 0 } });

      await rpc.mintTo(mint, seller.publicKey, 10n);
      const again = await runRecheckRound(app.services, { intervalSeconds: 0 });
      expect(again).toMatchObject({ ran: true, round: { checked: 1, voided: 0, restored: 1, error: null } });
      expect(await getOperatorPass(app.services, sellerSerial)).toMatchObject({ status: 'active', voidReason: null });
      expect(await getOperatorPass(app.services, keeperSerial)).toMatchObject({ status: 'voided', voidReason: 'lost card' });
      await eventually(() => receiver.events.find((event) => event.type === 'pass.restored' && event.data.serialNumber === sellerSerial));

      // What the console shows: the policy without addresses, and the last round.
      const status = await eligibilityStatus(app.services);
      expect(status.policy).toEqual({ kind: 'token', mint, minAmount: '10' });
      expect(status.lastRound).toMatchObject({ checked: 1, voided: 0, restored: 1, error: null });
    } finally {
      await app.close();
      await receiver.close();
    }
  });

  it('an RPC that fails stops the round: nothing is voided, and the round records why', async () => {
    const mint = await rpc.createMint();
    const wallet = new TestWallet();
    const invited = new TestWallet().publicKey;
    await rpc.mintTo(mint, wallet.publicKey, 1n);
    const operator = new TestWallet();
    const app = await TestApp.open('pglite', {
      CLAIM_POLICY: JSON.stringify({ any: [{ allow: [invited] }, { token: { mint, minAmount: '1' } }] }),
      SOLANA_RPC_URL: rpc.url,
      SOLANA_RPC_TIMEOUT_MS: '500',
      ELIGIBILITY_RECHECK_SECONDS: '0',
      OPERATOR_WALLETS: operator.publicKey,
    });
    try {
      const serial = await claimPass(app, wallet);
      rpc.outage = 'hang';
      const outcome = await runRecheckRound(app.services, { intervalSeconds: 0 });
      expect(outcome).toMatchObject({ ran: true, round: { checked: 0, voided: 0, restored: 0 } });
      expect(outcome.ran && outcome.round.error).toMatch(/^stopped: the Solana RPC did not answer/);
      expect(outcome.ran && outcome.round.finishedAt).toBeInstanceOf(Date);
      expect(await getOperatorPass(app.services, serial)).toMatchObject({ status: 'active' });
      const status = await eligibilityStatus(app.services);
      expect(status.policy).toEqual({
        kind: 'any',
        rules: [
          { kind: 'allow', source: 'inline', addresses: 1 },
          { kind: 'token', mint, minAmount: '1' },
        ],
      });
      expect(JSON.stringify(status)).not.toContain(invited);

      // The same through the operator API: signed in, and refused without a token.
      const token = await app.operatorToken(operator);
      const answer = await app.fetch('/api/v1/operator/eligibility', { headers: { authorization: `Bearer ${token}` } });
      expect(answer.status).toBe(200);
      const body = (await answer.json()) as { policy: unknown; lastRound: { error: string; voided: number } };
      expect(body.policy).toEqual(status.policy);
      expect(body.lastRound).toMatchObject({ voided: 0, error: expect.stringMatching(/^stopped: /) });
      expect(JSON.stringify(body)).not.toContain(invited);
      expect((await app.fetch('/api/v1/operator/eligibility')).status).toBe(401);
    } finally {
      rpc.outage = null;
      await app.close();
    }
  });

  it('a collection policy over 101 passes, the provider without DAS: two pages, each one getMultipleAccounts call', async () => {
    rpc.das = false; // token-metadata NFTs read from their accounts (with DAS: eligibility-das.test.ts)
    const collection = await rpc.createMint({ decimals: 0 });
    const wallets = Array.from({ length: 101 }, () => new TestWallet());
    for (const wallet of wallets) await rpc.createNft(wallet.publicKey, { collection });
    const app = await TestApp.open('pglite', { CLAIM_POLICY: JSON.stringify({ collection }), SOLANA_RPC_URL: rpc.url, ELIGIBILITY_RECHECK_SECONDS: '0' });
    try {
      // Twenty at a time: claims that arrive together share a statement.
      for (let i = 0; i < wallets.length; i += 20) await Promise.all(wallets.slice(i, i + 20).map((wallet) => claimPass(app, wallet)));
      const before = rpc.count('getMultipleAccounts');
      const outcome = await runRecheckRound(app.services, { intervalSeconds: 0 });
      expect(outcome).toMatchObject({ ran: true, round: { checked: 101, voided: 0, restored: 0, error: null } });
      expect(rpc.count('getMultipleAccounts') - before).toBe(2);
    } finally {
      rpc.das = true;
      await app.close();
    }
  }, 300_000);

  describe('two instances on one PostgreSQL', () => {
    requireService('PostgreSQL', missingEnv('TEST_DATABASE_URL', 'postgres://127.0.0.1:5432/test'), 'The multi-instance re-check tests');
    let first: TestApp;
    let second: Services;
    let dataDir: string;

    beforeAll(async () => {
      const mint = await rpc.createMint();
      first = await TestApp.open('postgres', {
        CLAIM_POLICY: JSON.stringify({ token: { mint, minAmount: '1' } }),
        SOLANA_RPC_URL: rpc.url,
        ELIGIBILITY_RECHECK_SECONDS: '0',
      });
      for (let i = 0; i < 5; i++) {
        const wallet = new TestWallet();
        await rpc.mintTo(mint, wallet.publicKey, 1n);
        await claimPass(first, wallet);
      }
      dataDir = mkdtempSync(path.join(tmpdir(), 'wpc-second-'));
      second = await createServices(loadConfig({ ...first.env, DATA_DIR: dataDir }));
    });
    afterAll(async () => {
      await second?.close();
      await first?.close();
      rmSync(dataDir, { recursive: true, force: true });
    });

    it('started at the same moment, exactly one runs the round; the other runs none within the interval', async () => {
      const outcomes = await Promise.all([runRecheckRound(first.services, { intervalSeconds: 3600 }), runRecheckRound(second, { intervalSeconds: 3600 })]);
      expect(outcomes.filter((outcome) => outcome.ran)).toHaveLength(1);
      expect(await runRecheckRound(second, { intervalSeconds: 3600 })).toEqual({ ran: false });
      expect(await allRounds(first.services.store.sql)).toHaveLength(1);
    });

    it('on their timers (every second), rounds never overlap and come at most once per interval', async () => {
      const config = { ...first.env, ELIGIBILITY_RECHECK_SECONDS: '1' };
      const timed = [
        await createServices(loadConfig({ ...config, DATA_DIR: mkdtempSync(path.join(tmpdir(), 'wpc-a-')) })),
        await createServices(loadConfig({ ...config, DATA_DIR: mkdtempSync(path.join(tmpdir(), 'wpc-b-')) })),
      ];
      const before = (await allRounds(first.services.store.sql)).length;
      const started = Date.now();
      // Until two rounds have gone through: the timers ran, and twice.
      for (;;) {
        const finished = (await allRounds(first.services.store.sql)).slice(before).filter((round) => round.finishedAt);
        if (finished.length >= 2 || Date.now() - started > 30_000) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      await Promise.all(timed.map((services) => services.close()));
      const elapsedSeconds = (Date.now() - started) / 1000;
      const rounds = (await allRounds(first.services.store.sql)).slice(before);
      expect(rounds.length).toBeGreaterThanOrEqual(2);
      // At most one round per second of the interval, plus the one under way at the start.
      expect(rounds.length).toBeLessThanOrEqual(Math.floor(elapsedSeconds) + 1);
      for (const [index, round] of rounds.entries()) {
        // The round under way when the services closed stops early, saying so; every other went through.
        if (index === rounds.length - 1 && round.error) expect(round).toMatchObject({ voided: 0, error: 'stopped: the instance is shutting down' });
        else expect(round).toMatchObject({ checked: 5, voided: 0, error: null });
        const previous = rounds[index - 1];
        if (previous) expect(round.startedAt.getTime()).toBeGreaterThanOrEqual(previous.finishedAt!.getTime());
      }
    });
  });
});
