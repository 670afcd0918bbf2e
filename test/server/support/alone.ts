// The system project runs two files at once (vitest.config.mts): most of their time is waiting for
// servers, timers and sockets. A file whose assertions time the service (an answer within so many
// ms, at most so many late commits) or that loads both cores (the benchmarks) calls runsAlone(),
// and then runs with no other system file beside it. A readers-writer lock held for a whole file:
// every system file takes it shared (./alone-setup.ts), a file that runs alone takes it exclusive.
// The lock is served over TCP by vitest's main process (globalSetup below), first come first
// served, so that a file waiting to run alone is not passed by files arriving after it.
import { createServer, type Socket } from 'node:net';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    aloneLockPort: number;
  }
}

/** What a file asks for: `S` (beside others) or `X` (alone). */
export type LockMode = 'S' | 'X';

const ALONE = Symbol.for('wallet-pass-claim.runs-alone');

/** Called at the top of a test file: its tests run with no other system file at the same time. */
export function runsAlone(): void {
  (globalThis as Record<symbol, unknown>)[ALONE] = true;
}

export function wantsToRunAlone(): boolean {
  return (globalThis as Record<symbol, unknown>)[ALONE] === true;
}

/** globalSetup: serves the lock on a free port, provided to the workers as `aloneLockPort`. */
export default async function serveLock(project: TestProject): Promise<() => Promise<void>> {
  const waiting: { socket: Socket; mode: LockMode }[] = [];
  const holders = new Map<Socket, LockMode>();
  const grant = () => {
    while (waiting.length > 0) {
      const { socket, mode } = waiting[0]!;
      const held = [...holders.values()];
      if (held.includes('X') || (mode === 'X' && held.length > 0)) return;
      waiting.shift();
      holders.set(socket, mode);
      socket.write('ok\n');
    }
  };
  const server = createServer((socket) => {
    socket.setEncoding('utf8');
    socket.once('data', (mode: string) => {
      waiting.push({ socket, mode: mode.trim() === 'X' ? 'X' : 'S' });
      grant();
    });
    // A file's worker that ends or dies closes its socket: that releases what it held or waited for.
    socket.on('close', () => {
      holders.delete(socket);
      const at = waiting.findIndex((w) => w.socket === socket);
      if (at !== -1) waiting.splice(at, 1);
      grant();
    });
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  project.provide('aloneLockPort', (server.address() as { port: number }).port);
  return () =>
    new Promise<void>((resolve) => {
      for (const socket of [...holders.keys(), ...waiting.map((w) => w.socket)]) socket.destroy();
      server.close(() => resolve());
    });
}
