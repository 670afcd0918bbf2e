// The RPC budget alone: even spacing, claims before rounds, a waiting request dropped at its
// deadline, and a provider's Retry-After holding every lane. Real timers, short intervals.
import { describe, expect, it } from 'vitest';
import { PACING_SLACK, RpcBudget } from './rpc-budget';

describe('RpcBudget', () => {
  it('lets requests through one interval apart, never in a burst', async () => {
    const budget = new RpcBudget(100); // 10.5 ms apart
    const times: number[] = [];
    await Promise.all(Array.from({ length: 10 }, () => budget.take('round').then(() => times.push(performance.now()))));
    for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(budget.intervalMs - 1.5);
    expect(budget.intervalMs).toBeCloseTo(10 * PACING_SLACK);
    expect(budget.sent).toEqual({ claim: 0, round: 10 });
  });

  it('gives the next turn to a claim before the rounds waiting', async () => {
    const budget = new RpcBudget(50);
    const order: string[] = [];
    const rounds = Array.from({ length: 5 }, (_, i) => budget.take('round').then(() => order.push(`round ${i}`)));
    const claim = budget.take('claim').then(() => order.push('claim'));
    await Promise.all([...rounds, claim]);
    // The first round request went at once (the budget was idle); the claim took the next turn.
    expect(order.slice(0, 2)).toEqual(['round 0', 'claim']);
  });

  it('drops a waiting request whose deadline passes, and the turn goes to the next', async () => {
    const budget = new RpcBudget(10); // 105 ms apart
    await budget.take('round');
    const late = budget.take('round', AbortSignal.timeout(20));
    const next = budget.take('round');
    await expect(late).rejects.toMatchObject({ name: 'TimeoutError' });
    const started = performance.now();
    await next;
    expect(performance.now() - started).toBeLessThan(budget.intervalMs + 20);
    expect(budget.waiting).toBe(0);
  });

  it('holds every lane for a Retry-After', async () => {
    const budget = new RpcBudget(1000);
    budget.hold(150);
    const started = performance.now();
    await Promise.all([budget.take('claim'), budget.take('round')]);
    expect(performance.now() - started).toBeGreaterThanOrEqual(148);
  });

  it('a gated request goes only when its gate allows too, counted in both; others of its lane go meanwhile', async () => {
    const budget = new RpcBudget(1000); // 1.05 ms apart
    const das = new RpcBudget(5); // 210 ms apart
    const gated: number[] = [];
    const order: string[] = [];
    await Promise.all([
      ...Array.from({ length: 3 }, () =>
        budget.take('round', undefined, das).then(() => {
          gated.push(performance.now());
          order.push('gated');
        }),
      ),
      ...Array.from({ length: 4 }, () => budget.take('round').then(() => order.push('plain'))),
    ]);
    for (let i = 1; i < gated.length; i++) expect(gated[i]! - gated[i - 1]!).toBeGreaterThanOrEqual(das.intervalMs - 1.5);
    // The first gated request went at once; the plain ones, queued behind the others, did not wait for the gate's pace.
    expect(order).toEqual(['gated', 'plain', 'plain', 'plain', 'plain', 'gated', 'gated']);
    expect(budget.sent.round).toBe(7);
    expect(das.sent.round).toBe(3);
  });
});
