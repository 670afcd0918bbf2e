// Preloaded (`node --import`) into an end-to-end server whose test moves its time forward: `Date` in
// the process runs ahead of the system clock by an offset the test raises through the Unix socket
// named by E2E_CLOCK_SOCKET (it writes a number of milliseconds, the answer is the new offset). A
// message's life or a rate-limit window then passes at once, on the real server, with no waiting.
// Plain JavaScript: it is loaded before tsx. Node's own modules keep the system clock.
import { createServer } from 'node:net';

const SystemDate = Date;
const systemNow = Date.now;
let offsetMs = 0;
const now = () => systemNow() + offsetMs;

globalThis.Date = new Proxy(SystemDate, {
  // `new Date()` is now; `new Date(x)` is x, as ever.
  construct: (target, args, newTarget) => Reflect.construct(target, args.length > 0 ? args : [now()], newTarget),
  // `Date()` without `new` is the current time as a string.
  apply: () => new SystemDate(now()).toString(),
  get: (target, key, receiver) => (key === 'now' ? now : Reflect.get(target, key, receiver)),
});

const socketPath = process.env.E2E_CLOCK_SOCKET;
if (!socketPath) throw new Error('movable-clock.mjs needs E2E_CLOCK_SOCKET');
const control = createServer((connection) => {
  connection.once('data', (data) => {
    const step = Number(String(data));
    if (Number.isFinite(step) && step >= 0) offsetMs += step;
    connection.end(String(offsetMs));
  });
});
control.listen(socketPath);
control.unref(); // the server's own lifetime decides when the process ends
