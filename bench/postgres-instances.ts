import { execFile, execFileSync, spawn } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';

/**
 * PostgreSQL servers of our own, in temporary directories on ports of their own (never the
 * machine's server): a primary, a streaming standby of it, promoted or stopped at will; and the
 * programs of a high-availability setup (PgBouncer, Patroni, etcd, HAProxy) run the same way.
 * PostgreSQL and PgBouncer refuse to run as root: as root they run as the `postgres` user.
 * Used by the tests of multi-host URLs and poolers and by the failover harness (bench/failover.ts).
 */
const run = promisify(execFile);

/** The system user servers run as when this process is root. */
const SERVICE_USER = 'postgres';

function isRoot(): boolean {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

/** The directory of PostgreSQL's server programs (initdb, pg_ctl, pg_basebackup), if any. */
export function postgresBinDir(): string | undefined {
  const candidates: string[] = [];
  if (process.env.PG_BIN_DIR) candidates.push(process.env.PG_BIN_DIR);
  const versions = existsSync('/usr/lib/postgresql') ? readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a)) : [];
  candidates.push(...versions.map((v) => `/usr/lib/postgresql/${v}/bin`));
  for (const dir of (process.env.PATH ?? '').split(':')) candidates.push(dir);
  return candidates.find((dir) => existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'pg_ctl')) && existsSync(join(dir, 'pg_basebackup')));
}

/** Where `name` is on the PATH (or in the sbin directories Debian puts daemons in). */
export function findProgram(name: string): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(':'), '/usr/sbin', '/usr/bin', '/sbin'];
  return dirs.map((dir) => join(dir, name)).find((path) => existsSync(path));
}

let unavailable: string | null | undefined;

/** Why servers of our own cannot be started here, or undefined when they can (checked once). */
export function postgresInstancesUnavailable(): string | undefined {
  if (unavailable !== undefined) return unavailable ?? undefined;
  unavailable = null;
  if (!postgresBinDir()) unavailable = 'PostgreSQL server programs (initdb, pg_ctl, pg_basebackup) are not installed';
  else if (isRoot()) {
    try {
      execFileSync('runuser', ['-u', SERVICE_USER, '--', 'true'], { stdio: 'pipe' });
    } catch {
      unavailable = `running as root and cannot run programs as the ${SERVICE_USER} user (runuser)`;
    }
  }
  return unavailable ?? undefined;
}

/** The service user's ids, for spawning servers as it when this process is root. */
export function serviceUser(): { uid: number; gid: number } | undefined {
  if (!isRoot()) return undefined;
  const uid = Number(execFileSync('id', ['-u', SERVICE_USER]).toString().trim());
  const gid = Number(execFileSync('id', ['-g', SERVICE_USER]).toString().trim());
  return { uid, gid };
}

/** A command line run as the service user when this process is root. */
export function asServiceUser(program: string, args: string[]): [string, string[]] {
  return isRoot() ? ['runuser', ['-u', SERVICE_USER, '--', program, ...args]] : [program, args];
}

/** A new temporary directory the service user owns. */
export function serviceDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  chownToService(dir);
  return dir;
}

async function runAsService(program: string, args: string[]): Promise<string> {
  const [cmd, argv] = asServiceUser(program, args);
  const { stdout } = await run(cmd, argv, { maxBuffer: 16 * 1024 * 1024 });
  return stdout;
}

export interface PostgresInstance {
  port: number;
  dir: string;
  /** postgres://postgres@127.0.0.1:<port>/<database> */
  url(database?: string): string;
  /** Promotes a standby to primary and waits until it takes writes. */
  promote(): Promise<void>;
  /** pg_ctl stop (fast: sessions are terminated, as a demotion or a planned switchover does). */
  stop(): Promise<void>;
  /** Starts it again after stop(). */
  start(): Promise<void>;
  /** Stops it if running and removes its directory. */
  destroy(): Promise<void>;
}

const SETTINGS = [
  "listen_addresses = '127.0.0.1'",
  "unix_socket_directories = ''",
  'fsync = off',
  'synchronous_commit = off',
  'full_page_writes = off',
  'wal_level = replica',
  'max_wal_senders = 4',
  'hot_standby = on',
  'shared_buffers = 16MB',
  'max_connections = 60',
];

function instance(dir: string, port: number): PostgresInstance {
  const bin = postgresBinDir()!;
  const data = join(dir, 'data');
  const ctl = (args: string[]) => runAsService(join(bin, 'pg_ctl'), ['-D', data, '-w', '-t', '60', ...args]);
  let running = true;
  return {
    port,
    dir,
    url: (database = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${database}`,
    async promote() {
      await ctl(['promote']);
      const client = new Client({ connectionString: `postgres://postgres@127.0.0.1:${port}/postgres` });
      await client.connect();
      try {
        for (let i = 0; i < 600; i++) {
          const { rows } = await client.query<{ standby: boolean }>('SELECT pg_is_in_recovery() AS standby');
          if (!rows[0].standby) return;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        throw new Error(`the standby on port ${port} did not leave recovery`);
      } finally {
        await client.end();
      }
    },
    async stop() {
      if (!running) return;
      running = false;
      await ctl(['stop', '-m', 'fast']);
    },
    async start() {
      await ctl(['start', '-l', join(dir, 'log')]);
      running = true;
    },
    async destroy() {
      if (running) await ctl(['stop', '-m', 'immediate']).catch(() => undefined);
      running = false;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A new primary on `port` (initdb, trust authentication on 127.0.0.1, replication allowed). */
export async function startPrimary(port: number): Promise<PostgresInstance> {
  const bin = postgresBinDir()!;
  const dir = serviceDir('platform-pg-');
  const data = join(dir, 'data');
  await runAsService(join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C']);
  const conf = join(data, 'postgresql.conf');
  writeFileSync(conf, `${readFileSync(conf, 'utf8')}\n${[`port = ${port}`, ...SETTINGS].join('\n')}\n`);
  writeFileSync(join(data, 'pg_hba.conf'), 'host all all 127.0.0.1/32 trust\nhost replication all 127.0.0.1/32 trust\n');
  const pg = instance(dir, port);
  await pg.start();
  return pg;
}

/** A streaming standby of `primary` on `port` (pg_basebackup -R). */
export async function startStandby(primary: PostgresInstance, port: number): Promise<PostgresInstance> {
  const bin = postgresBinDir()!;
  const dir = serviceDir('platform-pg-standby-');
  const data = join(dir, 'data');
  await runAsService(join(bin, 'pg_basebackup'), ['-h', '127.0.0.1', '-p', String(primary.port), '-U', 'postgres', '-D', data, '-R', '-X', 'stream']);
  const conf = join(data, 'postgresql.conf');
  writeFileSync(conf, `${readFileSync(conf, 'utf8')}\nport = ${port}\n`);
  const pg = instance(dir, port);
  await pg.start();
  return pg;
}

/** Kills a process tree's root with SIGKILL (a crash: no shutdown, sockets closed by the kernel). */
export function killHard(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/** The postmaster's pid of a data directory (its first line of postmaster.pid). */
export function postmasterPid(dataDir: string): number | undefined {
  const file = join(dataDir, 'postmaster.pid');
  if (!existsSync(file)) return undefined;
  const pid = Number(readFileSync(file, 'utf8').split('\n')[0]);
  return Number.isFinite(pid) && pid > 0 ? pid : undefined;
}

export type PoolMode = 'session' | 'transaction';

export interface PgBouncer {
  port: number;
  mode: PoolMode;
  /** The URL of `database` through the pooler. */
  url(database: string): string;
  stop(): Promise<void>;
}

/**
 * Debian's PgBouncer in front of the PostgreSQL at `target`, in `mode`: every database of the
 * server under its own name, trust authentication for the postgres user (as the server it
 * fronts here), and a pool large enough for a few servers. It runs in the foreground, as a
 * child of this process.
 */
export async function startPgBouncer(target: { host: string; port: number }, mode: PoolMode, port: number): Promise<PgBouncer> {
  const program = findProgram('pgbouncer');
  if (!program) throw new Error('pgbouncer is not installed (Debian package pgbouncer)');
  const dir = serviceDir(`platform-pgbouncer-${mode}-`);
  writeFileSync(join(dir, 'userlist.txt'), '"postgres" ""\n');
  writeFileSync(
    join(dir, 'pgbouncer.ini'),
    [
      '[databases]',
      `* = host=${target.host} port=${target.port}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${join(dir, 'userlist.txt')}`,
      `pool_mode = ${mode}`,
      'max_client_conn = 500',
      'default_pool_size = 40',
      'ignore_startup_parameters = extra_float_digits',
      // After a failed server connection PgBouncer waits this long before the next (15 s by
      // default): with a failover behind it, that is how long writes would wait.
      'server_login_retry = 1',
      'server_connect_timeout = 2',
      `logfile = ${join(dir, 'pgbouncer.log')}`,
      '',
    ].join('\n'),
  );
  for (const file of ['userlist.txt', 'pgbouncer.ini']) chownToService(join(dir, file));
  // As the service user itself (not through runuser), so signals reach it.
  const child = spawn(program, [join(dir, 'pgbouncer.ini')], { stdio: ['ignore', 'ignore', 'pipe'], ...(serviceUser() ?? {}) });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = (database: string) => `postgres://postgres@127.0.0.1:${port}/${database}`;
  for (let i = 0; ; i++) {
    const probe = new Client({ connectionString: url('postgres'), connectionTimeoutMillis: 1000 });
    try {
      await probe.connect();
      await probe.query('SELECT 1');
      await probe.end();
      break;
    } catch (err) {
      await probe.end().catch(() => undefined);
      if (child.exitCode !== null || i > 100) {
        child.kill('SIGKILL');
        throw new Error(`pgbouncer did not start: ${(err as Error).message} ${stderr}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  return {
    port,
    mode,
    url,
    async stop() {
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(killer);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function chownToService(path: string): void {
  const user = serviceUser();
  if (user) chownSync(path, user.uid, user.gid);
}
