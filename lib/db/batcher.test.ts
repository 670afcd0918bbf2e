import { describe, expect, it } from 'vitest';
import { Batcher } from './batcher';

/** A statement runner that records each batch and answers after `delayMs`. */
function recorder(delayMs = 5) {
  const batches: number[][] = [];
  let running = 0;
  let maxRunning = 0;
  const run = async (items: number[]) => {
    batches.push(items);
    running += 1;
    maxRunning = Math.max(maxRunning, running);
    await new Promise((resolve) => setTimeout(resolve, delayMs));
    running -= 1;
    if (items.includes(-1)) throw new Error('item -1 spoils its batch');
    return items.map((item) => item * 10);
  };
  return { batches, run, maxRunning: () => maxRunning };
}

describe('Batcher', () => {
  it('runs the items that arrive together as one statement, and answers each its own result', async () => {
    const { batches, run } = recorder();
    const batcher = new Batcher({ run, maxBatch: 64, concurrency: 1 });
    const results = await Promise.all([1, 2, 3, 4].map((item) => batcher.submit(item)));
    expect(results).toEqual([10, 20, 30, 40]);
    expect(batches).toEqual([[1, 2, 3, 4]]);
  });

  it('never runs more statements at once than its concurrency; arrivals meanwhile leave together', async () => {
    const { batches, run, maxRunning } = recorder(10);
    const batcher = new Batcher({ run, maxBatch: 3, concurrency: 2 });
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => batcher.submit(i)));
    expect(results).toEqual(Array.from({ length: 10 }, (_, i) => i * 10));
    expect(maxRunning()).toBe(2);
    expect(batches.every((batch) => batch.length <= 3)).toBe(true);
    expect(batches.flat().sort((a, b) => a - b)).toEqual(Array.from({ length: 10 }, (_, i) => i));
  });

  it('never runs two items of one key at once, in one statement or in two', async () => {
    const { batches, run } = recorder(10);
    const batcher = new Batcher({ run, maxBatch: 64, concurrency: 4, key: (item: number) => String(item % 2) });
    await Promise.all([1, 3, 5, 2, 4].map((item) => batcher.submit(item)));
    // Odd items share a key, even items another: each statement holds at most one of each, and
    // with four slots free the later ones still waited for the statement holding their key.
    expect(batches).toEqual([[1, 2], [3, 4], [5]]);
  });

  it('runs a failed batch again item by item, so only the spoiling item fails', async () => {
    const { run } = recorder();
    const batcher = new Batcher({ run, maxBatch: 64, concurrency: 1 });
    const outcomes = await Promise.allSettled([1, -1, 2].map((item) => batcher.submit(item)));
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
  });

  it('fails the whole batch at once when the error is not one an item causes (a database that is down)', async () => {
    let statements = 0;
    const batcher = new Batcher<number, number>({
      run: async () => {
        statements += 1;
        throw new Error('connection refused');
      },
      maxBatch: 64,
      concurrency: 1,
      retryAlone: () => false,
    });
    const outcomes = await Promise.allSettled([1, 2, 3].map((item) => batcher.submit(item)));
    expect(outcomes.every((o) => o.status === 'rejected')).toBe(true);
    expect(statements).toBe(1);
  });
});
