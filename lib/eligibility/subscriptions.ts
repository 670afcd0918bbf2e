// Changes as they happen (SOLANA_WS_URL): the instance holding the subscriptions' lease asks the
// provider's PubSub endpoint, through @solana/kit's RPC subscriptions, for `programSubscribe` on
// Token and on Token-2022, one subscription per program and mint of the token rules in force
// (CLAIM_POLICY's and every re-checked program's), filtered on the mint at offset 0 of the
// account data (and, for Token, `dataSize` 165: its accounts have no other size; Token-2022's
// grow with their extensions, so no size filter there). A notification carries the token
// account's bytes, whose owner (offset 32) is the wallet to re-check: wallets seen within
// BATCH_MS are re-checked together, as a round would (recheck.ts recheckHolders: void, restore,
// push and webhook), well within 5 s of the change.
//
// What may go unseen, and how it is caught up:
// - The socket drops (or the subscribe fails): every subscription is dropped with it, and set up
//   again after a capped, jittered exponential backoff; once back, a re-check round runs (the
//   rounds' own machinery, lease and budget), so a transfer made during the gap is caught.
// - Another instance held the subscriptions and stopped (released, or died and its lease
//   lapsed): the new holder catches up the same way.
// - A re-check of holders fails (the RPC did not answer): nothing is decided, and a round catches up.
// - A token account whose owner is changed (SetAuthority) is notified under its new owner only:
//   the old owner is caught by the next round.
//
// The rules are read again at every lease tick (TICK_MS): one small query of the programs table,
// so a program created, changed or closed on any instance moves the subscriptions within
// seconds, with no message between instances to lose.
//
// Subscriptions are WebSocket messages, not RPC requests: they do not count against
// SOLANA_RPC_RPS. The re-checks they cause, and the catch-up rounds, do (the budget's round lane).
import { randomUUID } from 'node:crypto';
import { type Base58EncodedBytes, createSolanaRpcSubscriptions, getAddressDecoder, getBase64Encoder } from '@solana/kit';
import type { Config } from '../config';
import { releaseSubscriptionLease, takeSubscriptionLease } from '../db/eligibility';
import { ACCOUNT_TYPE_ACCOUNT, TOKEN_2022_PROGRAM, TOKEN_ACCOUNT_SIZE, TOKEN_PROGRAM } from './accounts';
import { newTally } from './chain';
import { type RoundReads, tokenMints } from './checker';
import { type ProgramToRecheck, programsWithCheckers, type RecheckDeps, recheckHolders, runRecheckRound } from './recheck';

/** The holder's lease lasts this long past its last renewal: a holder that died is replaced after it. */
const LEASE_SECONDS = 15;
/** How often the lease is taken or renewed, and the rules read again. */
const TICK_MS = 5000;
/** Wallets seen within this long are re-checked together: one batched read rather than one each. */
const BATCH_MS = 250;
/** Reconnection backoff: from this, doubling, up to BACKOFF_MAX_MS, each wait drawn in [½, 1] of it. */
const BACKOFF_BASE_MS = 500;
const BACKOFF_MAX_MS = 30_000;
/** A connection that lived this long resets the backoff. */
const STABLE_MS = 30_000;
/** Wallets re-checked in one go at most (a round's page). */
const BATCH_WALLETS = 100;

export type SubscriptionDeps = RecheckDeps & { config: Pick<Config, 'solanaWsUrl'> };

/** What this instance's subscriptions are doing, for tests and logs. */
export type SubscriptionState = {
  holding: boolean;
  /** Mints subscribed to (each on both token programs). */
  mints: string[];
  connected: boolean;
  /** Reconnections after a drop, since start. */
  reconnects: number;
  /** Holders re-checked because of a notification, and what it changed. */
  rechecked: { checked: number; voided: number; restored: number };
  /** Catch-up rounds run after a gap. */
  catchUps: number;
};

export type Subscriptions = { state(): SubscriptionState; stop(): Promise<void> };

/** No subscriptions (SOLANA_WS_URL unset, or not started yet). */
export const NO_SUBSCRIPTIONS: Subscriptions = {
  state: () => ({ holding: false, mints: [], connected: false, reconnects: 0, rechecked: { checked: 0, voided: 0, restored: 0 }, catchUps: 0 }),
  stop: async () => {},
};

/** Starts this instance's part in the subscriptions (nothing without SOLANA_WS_URL). */
export function startSubscriptions(services: SubscriptionDeps, options: { holder?: string } = {}): Subscriptions {
  const url = services.config.solanaWsUrl;
  if (!url) return NO_SUBSCRIPTIONS;
  const watcher = new TokenWatcher(services, url, options.holder ?? randomUUID());
  watcher.start();
  return { state: () => watcher.state(), stop: () => watcher.stop() };
}

class TokenWatcher {
  private holding = false;
  /** This instance held the lease before: taking it again follows a time without subscriptions. */
  private everHeld = false;
  /** When the lease was last taken or renewed (performance.now()). */
  private renewedAt = 0;
  private stopped = false;
  private readonly stopping = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;
  /** The programs and their checkers as last read, handed to each holders' re-check. */
  private programs: ProgramToRecheck[] = [];
  /** Mints subscribed to (while connecting: being subscribed to), sorted: compared with the rules' at each tick. */
  private mints: string[] = [];
  /** The subscriptions' client and connection; each mint's pair of subscriptions under its own signal. */
  private client: ReturnType<typeof createSolanaRpcSubscriptions> | undefined;
  private connection: AbortController | undefined;
  private readonly byMint = new Map<string, AbortController>();
  private connected = false;
  private connectedAt = 0;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private attempts = 0;
  private reconnects = 0;
  /** A gap happened: a round must run once the subscriptions are back. */
  private catchUpWanted = false;
  private catchUp: Promise<void> | undefined;
  private catchUps = 0;
  /** Wallets waiting to be re-checked (gathered for BATCH_MS), each with the mints whose accounts changed. */
  private readonly pending = new Map<string, Set<string>>();
  private batchTimer: NodeJS.Timeout | undefined;
  private working: Promise<void> | undefined;
  private readonly rechecked = { checked: 0, voided: 0, restored: 0 };
  /** Each mint's token program, found once for every re-check of holders. */
  private readonly mintPrograms: RoundReads['mintPrograms'] = new Map();

  constructor(
    private readonly services: SubscriptionDeps,
    private readonly url: string,
    private readonly holder: string,
  ) {}

  start(): void {
    this.timer = setInterval(() => this.tick(), TICK_MS);
    this.timer.unref();
    this.tick();
  }

  state(): SubscriptionState {
    return {
      holding: this.holding,
      mints: [...this.mints],
      connected: this.connected,
      reconnects: this.reconnects,
      rechecked: { ...this.rechecked },
      catchUps: this.catchUps,
    };
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.stopping.abort();
    clearInterval(this.timer);
    clearTimeout(this.reconnectTimer);
    clearTimeout(this.batchTimer);
    this.disconnect();
    await this.ticking;
    await Promise.allSettled([this.working, this.catchUp]);
    if (this.holding) await releaseSubscriptionLease(this.services.store.sql, this.holder).catch(() => {});
    this.holding = false;
  }

  private tick(): void {
    if (this.ticking || this.stopped) return;
    this.ticking = this.renew()
      .catch((error: unknown) => {
        this.services.log.warn({ event: 'eligibility_subscriptions_tick_failed', err: (error as Error).message }, 'could not renew the subscriptions’ lease');
        // Unrenewed past its term, the lease may be another instance's by now: let go, so that
        // one instance at a time holds the subscriptions (the next tick takes them back if free).
        if (this.holding && performance.now() - this.renewedAt >= LEASE_SECONDS * 1000) this.release();
      })
      .finally(() => (this.ticking = undefined));
  }

  /** Takes or keeps the lease, follows the rules' mints, and runs a catch-up round that is due. */
  private async renew(): Promise<void> {
    const lease = await takeSubscriptionLease(this.services.store.sql, this.holder, LEASE_SECONDS);
    if (this.stopped) return;
    if (!lease.held) {
      if (this.holding) this.release();
      return;
    }
    this.renewedAt = performance.now();
    if (!this.holding) {
      if (this.everHeld) this.catchUpWanted = true;
      this.holding = true;
      this.everHeld = true;
      this.services.log.info({ event: 'eligibility_subscriptions_held', gap: lease.gap }, 'this instance holds the token subscriptions');
    }
    if (lease.gap) this.catchUpWanted = true;
    this.programs = await programsWithCheckers(this.services, { quiet: true });
    const mints = new Set<string>();
    for (const { checker } of this.programs) tokenMints(checker.policy, mints);
    const wanted = [...mints].sort();
    if (wanted.join() !== this.mints.join()) await this.follow(wanted);
    else if (!this.connection && !this.reconnectTimer && wanted.length > 0) void this.connect(true);
    if (wanted.length === 0) this.catchUpWanted = false;
    if (this.catchUpWanted && this.connected) this.runCatchUp();
  }

  /**
   * The rules' mints changed: on a live connection, only the mints added are subscribed to and
   * those gone unsubscribed (the others never stop listening); otherwise everything is set up anew.
   */
  private async follow(wanted: string[]): Promise<void> {
    const connection = this.connection;
    const added = wanted.filter((mint) => !this.mints.includes(mint));
    for (const mint of this.mints) {
      if (wanted.includes(mint)) continue;
      this.byMint.get(mint)?.abort();
      this.byMint.delete(mint);
    }
    if (wanted.length === 0 || !connection || !this.connected) {
      this.mints = wanted;
      if (wanted.length === 0) return this.disconnect();
      this.attempts = 0;
      clearTimeout(this.reconnectTimer);
      this.reconnectTimer = undefined;
      void this.connect(false);
      return;
    }
    try {
      await this.subscribe(added, connection);
      // Only now: `mints` are those listened to.
      this.mints = wanted;
      this.services.log.info(
        { event: 'eligibility_subscriptions_followed', mints: wanted.length, added: added.length },
        'token subscriptions follow the rules',
      );
    } catch (error) {
      this.mints = wanted;
      this.dropped(connection, error);
    }
  }

  /** Subscribes to every mint on both programs, on a fresh connection. `afterGap`: a catch-up round follows. */
  private async connect(afterGap: boolean): Promise<void> {
    this.disconnect();
    if (this.mints.length === 0 || this.stopped) return;
    const connection = new AbortController();
    this.connection = connection;
    // One client per connection: nothing of a dropped socket is reused.
    this.client = createSolanaRpcSubscriptions(this.url);
    try {
      await this.subscribe(this.mints, connection);
      if (connection.signal.aborted) return;
      this.connected = true;
      this.connectedAt = performance.now();
      this.services.log.info(
        { event: 'eligibility_subscriptions_connected', mints: this.mints.length, subscriptions: 2 * this.mints.length },
        'subscribed to the token rules’ accounts',
      );
      if (afterGap) {
        this.catchUpWanted = true;
        this.runCatchUp();
      }
    } catch (error) {
      this.dropped(connection, error);
    }
  }

  /** `programSubscribe` on Token and Token-2022 for each mint, each mint's pair under its own signal (a child of the connection's). */
  private async subscribe(mints: string[], connection: AbortController): Promise<void> {
    const client = this.client;
    if (!client) return;
    const streams = await Promise.all(
      mints.map(async (mint) => {
        const own = new AbortController();
        connection.signal.addEventListener('abort', () => own.abort(), { once: true });
        this.byMint.get(mint)?.abort();
        this.byMint.set(mint, own);
        const pair = await Promise.all(
          [TOKEN_PROGRAM, TOKEN_2022_PROGRAM].map((program) =>
            client
              .programNotifications(program, {
                encoding: 'base64',
                commitment: 'confirmed',
                filters: [
                  ...(program === TOKEN_PROGRAM ? [{ dataSize: BigInt(TOKEN_ACCOUNT_SIZE) }] : []),
                  { memcmp: { offset: 0n, bytes: mint as Base58EncodedBytes, encoding: 'base58' as const } },
                ],
              })
              .subscribe({ abortSignal: own.signal }),
          ),
        );
        return pair.map((stream) => ({ stream, own }));
      }),
    );
    for (const { stream, own } of streams.flat()) void this.read(stream, connection, own.signal);
  }

  private async read(
    stream: AsyncIterable<{ value: { account: { data: readonly [string, string] } } }>,
    connection: AbortController,
    own: AbortSignal,
  ): Promise<void> {
    try {
      for await (const notification of stream) this.seen(notification.value.account.data[0]);
      // An iterator that ends without our abort: the connection went away.
      if (!own.aborted) this.dropped(connection, new Error('the subscription ended'));
    } catch (error) {
      // A mint no longer in the rules was unsubscribed on purpose; anything else is a drop.
      if (!own.aborted) this.dropped(connection, error);
    }
  }

  /** The connection failed or dropped: everything on it is set up again after the backoff, then caught up. */
  private dropped(connection: AbortController, error: unknown): void {
    if (connection.signal.aborted || connection !== this.connection) return;
    const lived = this.connected ? performance.now() - this.connectedAt : 0;
    this.disconnect();
    if (this.stopped || !this.holding) return;
    this.catchUpWanted = true;
    if (lived >= STABLE_MS) this.attempts = 0;
    const ceiling = Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** this.attempts);
    this.attempts++;
    const delay = Math.round(ceiling * (0.5 + Math.random() * 0.5));
    this.services.log.warn(
      { event: 'eligibility_subscriptions_dropped', err: this.redact((error as Error)?.message), retryInMs: delay, attempt: this.attempts },
      'token subscriptions dropped: reconnecting, then a round catches up',
    );
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      if (this.stopped || !this.holding) return;
      this.reconnects++;
      void this.connect(true);
    }, delay);
    this.reconnectTimer.unref();
  }

  /** An error's words without the endpoint (its URL often carries an API key). */
  private redact(message: string | undefined): string | undefined {
    if (!message) return message;
    return [this.url, this.url.replace(/\/$/, '')].reduce((text, secret) => text.split(secret).join('<SOLANA_WS_URL>'), message);
  }

  /** The lease is (or may be) another instance's: its subscriptions go, and it catches up when it takes them. */
  private release(): void {
    this.services.log.warn({ event: 'eligibility_subscriptions_lost' }, 'this instance no longer holds the token subscriptions');
    this.holding = false;
    clearTimeout(this.reconnectTimer);
    this.reconnectTimer = undefined;
    this.disconnect();
    this.mints = [];
  }

  private disconnect(): void {
    this.connection?.abort();
    this.connection = undefined;
    this.client = undefined;
    this.byMint.clear();
    this.connected = false;
  }

  /** A token account changed: its owner (offset 32 of its bytes) is re-checked within BATCH_MS. */
  private seen(base64: string): void {
    const data = getBase64Encoder().encode(base64);
    if (data.length < TOKEN_ACCOUNT_SIZE) return;
    if (data.length > TOKEN_ACCOUNT_SIZE && data[TOKEN_ACCOUNT_SIZE] !== ACCOUNT_TYPE_ACCOUNT) return;
    const decode = getAddressDecoder();
    const owner = decode.decode(data.subarray(32, 64));
    const mints = this.pending.get(owner) ?? new Set<string>();
    mints.add(decode.decode(data.subarray(0, 32)));
    this.pending.set(owner, mints);
    this.schedule();
  }

  /** The pending wallets' re-check in BATCH_MS, after the one under way if any. */
  private schedule(): void {
    if (this.batchTimer || this.stopped) return;
    this.batchTimer = setTimeout(() => {
      this.batchTimer = undefined;
      if (this.working) return this.schedule();
      this.working = this.recheckPending().finally(() => {
        this.working = undefined;
        if (this.pending.size > 0) this.schedule();
      });
    }, BATCH_MS);
  }

  private async recheckPending(): Promise<void> {
    while (this.pending.size > 0 && !this.stopped) {
      const batch = [...this.pending].slice(0, BATCH_WALLETS);
      const wallets = batch.map(([wallet]) => wallet);
      const changed = new Set(batch.flatMap(([, mints]) => [...mints]));
      for (const wallet of wallets) this.pending.delete(wallet);
      // Only the programs with a rule on a mint that changed: a pass under another rule (a
      // collection) of the same wallet costs nothing here.
      const programs = this.programs.filter(({ checker }) => [...tokenMints(checker.policy)].some((mint) => changed.has(mint)));
      const started = performance.now();
      try {
        const reads: RoundReads = { tally: newTally(), mintPrograms: this.mintPrograms, mintGroups: new Map() };
        const counts = await recheckHolders(this.services, wallets, { programs, reads });
        this.rechecked.checked += counts.checked;
        this.rechecked.voided += counts.voided;
        this.rechecked.restored += counts.restored;
        if (counts.checked > 0) {
          this.services.log.info(
            {
              event: 'eligibility_holders_rechecked',
              wallets: wallets.length,
              checked: counts.checked,
              voided: counts.voided,
              restored: counts.restored,
              requests: counts.requests,
              ms: Math.round(performance.now() - started),
            },
            'holders re-checked after a change to their token accounts',
          );
        }
      } catch (error) {
        // Nothing is decided on a missing answer; a round goes over everyone once the RPC answers.
        this.catchUpWanted = true;
        this.services.log.warn(
          { event: 'eligibility_holders_recheck_failed', wallets: wallets.length, err: (error as Error).message },
          'holders could not be re-checked: a round will catch up',
        );
      }
    }
  }

  /** A re-check round after a gap; while another round holds the rounds' lease, tried again at the next tick. */
  private runCatchUp(): void {
    if (this.catchUp || this.stopped) return;
    this.catchUpWanted = false;
    this.catchUp = runRecheckRound(this.services, { intervalSeconds: 0, signal: this.stopping.signal })
      .then((outcome) => {
        if (!outcome.ran) {
          this.catchUpWanted = true;
          return;
        }
        this.catchUps++;
        if (outcome.round.error) this.catchUpWanted = true;
        this.services.log.info(
          { event: 'eligibility_caught_up', round: outcome.round.id, checked: outcome.round.checked, voided: outcome.round.voided, error: outcome.round.error },
          'a re-check round caught up after a gap in the subscriptions',
        );
      })
      .catch((error: unknown) => {
        this.catchUpWanted = true;
        this.services.log.warn({ event: 'eligibility_catch_up_failed', err: (error as Error).message }, 'the catch-up round could not run');
      })
      .finally(() => (this.catchUp = undefined));
  }
}
