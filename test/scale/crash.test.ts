// SIGKILL in the middle of a burst of claims on the embedded default (PGlite in DATA_DIR): after a
// restart every pass a client was promised (201) is downloadable, and no message is marked used
// without its pass.

import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, ServerProcess } from '../../scripts/support/server-process';
import { claimBurst, postClaim, signedClaim, signedClaims, tally, walletsByPublicKey } from './support/claims';

const PORT = 3650;

describe('SIGKILL during a burst of claims on the embedded database', () => {
  let server: ServerProcess;
  let dataDir: string;

  beforeAll(async () => {
    server = await ServerProcess.start(PORT, { RATE_LIMIT_PER_MINUTE: '0' });
    dataDir = server.env.DATA_DIR!;
  });

  afterAll(async () => {
    await server?.stop();
    server?.removeDataDir();
  });

  it('keeps every acknowledged claim, and no claim half-written', async () => {
    const bodies = await signedClaims(server, 300);
    const claimed = () => server.logs.filter((line) => line.event === 'pass_claimed').length;
    const burst = claimBurst([server], bodies, 16);
    await eventually(async () => (claimed() >= 60 ? true : undefined), 20_000, 'claims under way');
    server.signal('SIGKILL');
    const outcomes = await burst;
    expect((await server.exited).signal).toBe('SIGKILL');

    const acknowledged = outcomes.filter((o) => o.status === 201);
    const cut = outcomes.filter((o) => o.status !== 201);
    expect(acknowledged.length).toBeGreaterThan(0);
    expect(cut.length).toBeGreaterThan(0); // the kill did land mid-burst
    expect(cut.every((o) => o.status === 'network-error')).toBe(true);

    // Restart on the same DATA_DIR: the dead process's lock is taken over.
    server = await ServerProcess.start(PORT, { RATE_LIMIT_PER_MINUTE: '0', DATA_DIR: dataDir });
    for (const outcome of acknowledged) {
      const url = new URL(outcome.downloadUrl!);
      const download = await server.fetch(url.pathname + url.search);
      expect(download.status, `pass of ${outcome.publicKey}`).toBe(200);
    }
    // A claim cut off is either not done (the same message gives the pass now) or fully done
    // (the message is used, and the wallet already has its pass: a new message gives 200).
    const retried = tally(
      await Promise.all(
        cut.map(async (outcome) => {
          const body = bodies.find((b) => b.publicKey === outcome.publicKey)!;
          const again = await postClaim(server, body);
          if (again.status !== 409) return again.status;
          const fresh = await postClaim(server, await signedClaim(server, walletsByPublicKey.get(body.publicKey)));
          return fresh.status === 200 ? 'used, with its pass' : `used, then ${fresh.status}`;
        }),
      ),
    );
    expect(
      [...retried.keys()].every((status) => status === 201 || status === 'used, with its pass'),
      JSON.stringify([...retried]),
    ).toBe(true);

    // And the database itself agrees.
    await server.stop();
    expect(server.exitCode).toBe(0);
    const db = await PGlite.create(path.join(dataDir, 'pglite'));
    try {
      const { rows } = await db.query<{ n: number }>(
        `select count(*)::int as n from sign_in_messages m
         where m.used_at is not null and not exists (select 1 from passes p where p.public_key = m.public_key)`,
      );
      expect(rows[0]!.n).toBe(0);
      const passes = await db.query<{ n: number }>('select count(*)::int as n from passes');
      expect(passes.rows[0]!.n).toBeGreaterThanOrEqual(acknowledged.length);
    } finally {
      await db.close();
    }
  });
});
