// Every system file holds the lock of ./alone.ts while its tests run: shared, or exclusive when the
// file called runsAlone() (at import, which comes before these hooks run).
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, inject } from 'vitest';
import { type LockMode, wantsToRunAlone } from './alone';

let held: Socket | undefined;

beforeAll(async () => {
  const mode: LockMode = wantsToRunAlone() ? 'X' : 'S';
  held = await new Promise<Socket>((resolve, reject) => {
    const socket = connect(inject('aloneLockPort'), '127.0.0.1');
    socket.once('error', reject);
    socket.once('connect', () => socket.write(`${mode}\n`));
    socket.once('data', () => resolve(socket));
  });
}, 600_000);

afterAll(() => {
  held?.destroy();
});
