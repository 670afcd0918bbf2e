// IPv6 clients are counted by their /64, for the rate limit and the per-IP connection cap. Real
// sockets from real IPv6 source addresses need addresses of our own: the probe runs in a network
// namespace of its own (`unshare -n`, or a user namespace where root is not available), where it
// can add them to the loopback interface without touching the machine's network.
import { execFileSync, spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

/** The unshare arguments this machine allows, or undefined (the test then fails, saying why). */
function namespaceCommand(): string[] | undefined {
  for (const args of [['-n'], ['--user', '--map-root-user', '--net']]) {
    if (spawnSync('unshare', [...args, 'true']).status === 0) return args;
  }
  return undefined;
}

describe('IPv6 clients, from addresses in a network namespace', () => {
  it('share one rate-limit budget and one connection cap per /64', () => {
    const unshare = namespaceCommand();
    if (!unshare) {
      throw new Error(
        '*** This machine allows no network namespace (unshare -n, or unshare --user --map-root-user --net): ' +
          'the IPv6 /64 keying cannot be tested over sockets here. lib/api/client-ip.test.ts still checks the keying itself. ***',
      );
    }
    const output = execFileSync('unshare', [...unshare, process.execPath, '--import', 'tsx', 'test/server/support/ipv6-probe.ts'], {
      encoding: 'utf8',
      timeout: 240_000,
    });
    const result = JSON.parse(output.trim().split('\n').pop()!);
    expect(result.inits).toEqual({ sameFirst: 200, sameSecond: 200, sameThird: 429, otherFirst: 200 });
    expect(result.connections).toEqual({ held: [true, true], sameThird: false, other: true });
  }, 270_000);
});
