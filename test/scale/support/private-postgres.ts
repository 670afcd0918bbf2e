// A PostgreSQL server of the test's own (initdb + pg_ctl on a spare port), so a test can stop,
// freeze and restart it without touching the machine's shared server. initdb refuses to run as
// root, so as root the cluster is made and run by the `postgres` system user.
import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** The directory holding initdb and pg_ctl, or why there is none. */
export function findPostgresBinaries(): { binDir?: string; problem?: string } {
  const candidates: string[] = [];
  const base = '/usr/lib/postgresql';
  if (existsSync(base)) {
    const versions = readdirSync(base)
      .filter((v) => /^\d+$/.test(v))
      .sort((a, b) => Number(b) - Number(a));
    candidates.push(...versions.map((v) => path.join(base, v, 'bin')));
  }
  const fromPgConfig = spawnSync('pg_config', ['--bindir'], { encoding: 'utf8' });
  if (fromPgConfig.status === 0) candidates.push(fromPgConfig.stdout.trim());
  const binDir = candidates.find((dir) => existsSync(path.join(dir, 'initdb')) && existsSync(path.join(dir, 'pg_ctl')));
  if (!binDir) return { problem: 'initdb and pg_ctl not found under /usr/lib/postgresql/*/bin or pg_config --bindir' };
  if (process.getuid?.() === 0 && spawnSync('id', ['-u', 'postgres']).status !== 0) {
    return { problem: 'running as root, and there is no `postgres` user to run initdb as' };
  }
  return { binDir };
}

export class PrivatePostgres {
  private constructor(
    readonly binDir: string,
    readonly dataDir: string,
    readonly port: number,
  ) {}

  /** postgres://…/postgres on this server: the superuser, trust authentication, TCP on 127.0.0.1. */
  get adminUrl(): string {
    return `postgres://postgres@127.0.0.1:${this.port}/postgres`;
  }

  static async create(port: number): Promise<PrivatePostgres> {
    const { binDir, problem } = findPostgresBinaries();
    if (!binDir) throw new Error(`cannot start a private PostgreSQL: ${problem}`);
    const dataDir = mkdtempSync(path.join(tmpdir(), 'wpc-pg-'));
    const server = new PrivatePostgres(binDir, dataDir, port);
    if (process.getuid?.() === 0) {
      const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
      const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
      chownSync(dataDir, uid, gid);
    }
    server.run('initdb', ['-D', server.pgData, '-U', 'postgres', '-A', 'trust', '--no-sync', '-E', 'UTF8', '--locale=C']);
    server.start();
    return server;
  }

  private get pgData(): string {
    return path.join(this.dataDir, 'data');
  }

  /** Runs a PostgreSQL binary, as the postgres user when we are root. */
  private run(binary: string, args: string[]): string {
    const command = path.join(this.binDir, binary);
    const [file, argv] = process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];
    const result = spawnSync(file, argv, { encoding: 'utf8', cwd: this.dataDir, timeout: 60_000 });
    if (result.status !== 0) {
      throw new Error(`${binary} ${args.join(' ')} failed (${result.status ?? result.signal}):\n${result.stdout}\n${result.stderr}`);
    }
    return result.stdout;
  }

  /**
   * Starts the server. The port is in the ephemeral range, so an outgoing connection of some
   * other process may hold it for a moment: then PostgreSQL cannot bind, and we try again.
   */
  start(): void {
    const options = [
      `-p ${this.port}`,
      '-c listen_addresses=127.0.0.1',
      `-c unix_socket_directories=${this.dataDir}`,
      '-c fsync=off',
      '-c max_connections=100',
      '-c shared_buffers=16MB',
    ].join(' ');
    const log = path.join(this.dataDir, 'server.log');
    for (let attempt = 1; ; attempt++) {
      try {
        this.run('pg_ctl', ['start', '-D', this.pgData, '-w', '-t', '30', '-l', log, '-o', options]);
        return;
      } catch (error) {
        const serverLog = existsSync(log) ? readFileSync(log, 'utf8') : '';
        if (attempt < 5 && serverLog.includes('Address already in use')) {
          writeFileSync(log, ''); // so the next attempt is judged by its own lines
          Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1000); // a synchronous 1 s pause
          continue;
        }
        throw new Error(`${(error as Error).message}\nserver.log:\n${serverLog.slice(-2000)}`);
      }
    }
  }

  /** `immediate` is a crash (no checkpoint, connections cut at once); `fast` a clean shutdown. */
  stop(mode: 'immediate' | 'fast' = 'immediate'): void {
    this.run('pg_ctl', ['stop', '-D', this.pgData, '-m', mode, '-w', '-t', '30']);
  }

  /** The postmaster and every backend: SIGSTOP them to make a server that accepts TCP but never answers. */
  processIds(): number[] {
    const postmaster = Number(readFileSync(path.join(this.pgData, 'postmaster.pid'), 'utf8').split('\n')[0]);
    const children = readdirSync('/proc')
      .filter((entry) => /^\d+$/.test(entry))
      .filter((pid) => {
        try {
          const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
          // Field 4 (after "pid (comm) state") is the parent pid; comm may contain spaces.
          const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
          return ppid === postmaster;
        } catch {
          return false; // exited while we looked
        }
      })
      .map(Number);
    return [postmaster, ...children];
  }

  freeze(): void {
    for (const pid of this.processIds()) process.kill(pid, 'SIGSTOP');
  }

  thaw(): void {
    for (const pid of this.processIds()) process.kill(pid, 'SIGCONT');
  }

  /** Stops the server if it runs and removes its files. */
  destroy(): void {
    try {
      this.thaw();
    } catch {
      // not running
    }
    try {
      this.stop('immediate');
    } catch {
      // already stopped
    }
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}
