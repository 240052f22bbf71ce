import { ChildProcess, execFileSync, spawn, SpawnOptions } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as http from 'node:http';
import * as https from 'node:https';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client } from 'pg';
import * as YAML from 'yaml';
import { findProgram, PgBouncer, postgresBinDir, postgresInstancesUnavailable, postmasterPid, serviceDir, serviceUser, startPgBouncer } from './postgres-instances';
import { freePort, sleep } from './probed-process';

/**
 * `npm run bench -- failover`: the server on highly available PostgreSQL, killed under load.
 *
 * Two PostgreSQL 15 nodes under Patroni (etcd v3 as its store, synchronous_mode: a commit is
 * acknowledged once the synchronous standby has it, and only that standby may be promoted),
 * HAProxy routing to the primary by Patroni's `/primary` check, and two replicas of our server
 * (separate processes) with writers, a watch and a SubjectAccessReview checker on each. The
 * primary is killed three times: twice its postmaster, once the whole node (Patroni too, so its
 * leader key must expire). Each kill prints its timeline (Patroni's REST API polled every
 * 100 ms, a write straight to the nodes, the replicas' first writes). Runs, each on a
 * database of its own: through HAProxy; with both nodes in DATABASE_URL
 * (target_session_attrs=read-write) and nothing in front; through PgBouncer in session
 * pooling and in transaction pooling (PgBouncer in front of HAProxy, as managed services
 * put it). Each run prints its figures against the goals: no acknowledged write lost, no 500,
 * writes back within 15 s of a kill, reviews uninterrupted and right, watches exact, one
 * leader at a time, `/readyz` never 200 while writes fail.
 *
 * Needs Debian's patroni, etcd-server, haproxy, pgbouncer and python3-etcd (named when
 * missing, and the harness stops there) and PostgreSQL's server programs. BENCH_FAILOVER_RUNS
 * picks runs (haproxy,multi-host,pgbouncer-session,pgbouncer-transaction), BENCH_FAILOVER_CYCLES
 * the kills per run (3), BENCH_FAILOVER_NODES the PostgreSQL nodes (2), BENCH_FAILOVER_STRICT=1
 * synchronous_mode_strict (with two nodes every write then waits for a lost node to rejoin);
 * BENCH_FAILOVER_KEEP=1 keeps the work directory (every process's log) and names it.
 */

const NAMESPACE = 'failover';
const CM = `/api/v1/namespaces/${NAMESPACE}/configmaps`;
const SAR = '/apis/authorization.platform.io/v1/subjectaccessreviews';
const RB = `/apis/rbac.authorization.platform.io/v1/namespaces/${NAMESPACE}/rolebindings`;
const WRITERS_PER_REPLICA = 2;
/** How long a writer waits after a refused write (a client honouring Retry-After would wait longer). */
const RETRY_PAUSE_MS = 100;
const READYZ_EVERY_MS = 100;
/** Patroni's leader key lives this long without renewal: a lost node is replaced after it. */
const PATRONI_TTL_S = 10;
/**
 * synchronous_mode_strict (BENCH_FAILOVER_STRICT=1): no commit without a synchronous standby. With
 * two nodes a lost node then stops every write until it is back and streaming; without it the
 * survivor takes writes once promoted, and Patroni still promotes only the synchronous standby.
 */
const STRICT = process.env.BENCH_FAILOVER_STRICT === '1';
const GOAL_WRITES_BACK_MS = 15_000;
/** After the cluster is whole again, load runs this long before the next kill. */
const SETTLE_MS = 5_000;

type RunName = 'haproxy' | 'multi-host' | 'pgbouncer-session' | 'pgbouncer-transaction';
const ALL_RUNS: RunName[] = ['haproxy', 'multi-host', 'pgbouncer-session', 'pgbouncer-transaction'];

/** Debian packages the harness needs, with what tells each is there. */
const PACKAGES: Array<{ name: string; present: () => boolean }> = [
  { name: 'patroni', present: () => !!findProgram('patroni') },
  { name: 'etcd-server', present: () => !!findProgram('etcd') },
  { name: 'haproxy', present: () => !!findProgram('haproxy') },
  { name: 'pgbouncer', present: () => !!findProgram('pgbouncer') },
  { name: 'python3-etcd', present: () => debianPackageInstalled('python3-etcd') },
];

function debianPackageInstalled(name: string): boolean {
  try {
    return execFileSync('dpkg-query', ['-W', '-f=${Status}', name], { stdio: 'pipe' }).toString().includes('install ok installed');
  } catch {
    return false;
  }
}

/** A process of the setup: its output in a log file; stopped at the end. */
interface Service {
  name: string;
  child: ChildProcess;
  exited: Promise<void>;
  stop(): Promise<void>;
}

const services = new Set<Service>();

function startService(name: string, program: string, args: string[], logFile: string, options: SpawnOptions & { asServiceUser?: boolean } = {}): Service {
  const user = options.asServiceUser ? serviceUser() : undefined;
  const log = createWriteStream(logFile, { flags: 'a' });
  const child = spawn(program, args, { ...options, ...(user ?? {}), stdio: ['ignore', 'pipe', 'pipe'] });
  // Two streams into one file: neither may end it (the other's last output would be a write
  // after end, which throws); it is closed once both are done.
  child.stdout!.pipe(log, { end: false });
  child.stderr!.pipe(log, { end: false });
  child.once('close', () => log.end());
  log.on('error', () => undefined);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const service: Service = {
    name,
    child,
    exited,
    async stop() {
      services.delete(service);
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(killer);
    },
  };
  services.add(service);
  return service;
}

/** GET over plain HTTP (Patroni's REST API): status and body, or 0 when nothing answers. */
function httpGet(url: string, timeoutMs = 1000): Promise<{ status: number; body: string }> {
  return new Promise((resolve) => {
    const req = http.get(url, { timeout: timeoutMs, agent: false }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      res.on('error', () => resolve({ status: 0, body: '' }));
    });
    req.on('error', () => resolve({ status: 0, body: '' }));
    req.on('timeout', () => req.destroy());
  });
}

async function waitFor(what: string, condition: () => Promise<boolean>, timeoutMs: number, everyMs = 200): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(everyMs);
  }
}

interface Node {
  name: string;
  pgPort: number;
  restPort: number;
  dir: string;
  dataDir: string;
  configFile: string;
  patroni: Service | null;
}

/** etcd, two Patroni nodes and HAProxy in `work`. */
class Cluster {
  readonly nodes: Node[] = [];
  etcd!: Service;
  haproxy!: Service;
  haproxyPort = 0;

  constructor(
    private readonly work: string,
    private readonly nodeCount: number,
  ) {}

  async start(): Promise<void> {
    const [clientPort, peerPort] = [await freePort(), await freePort()];
    this.etcd = startService(
      'etcd',
      findProgram('etcd')!,
      [
        '--name=e1',
        `--data-dir=${join(this.work, 'etcd')}`,
        `--listen-client-urls=http://127.0.0.1:${clientPort}`,
        `--advertise-client-urls=http://127.0.0.1:${clientPort}`,
        `--listen-peer-urls=http://127.0.0.1:${peerPort}`,
        `--initial-advertise-peer-urls=http://127.0.0.1:${peerPort}`,
        `--initial-cluster=e1=http://127.0.0.1:${peerPort}`,
      ],
      join(this.work, 'etcd.log'),
      { env: { ...process.env, ETCD_UNSUPPORTED_ARCH: process.arch === 'x64' ? '' : process.arch } },
    );
    await waitFor('etcd', async () => (await httpGet(`http://127.0.0.1:${clientPort}/health`)).status === 200, 30_000);

    for (const name of Array.from({ length: this.nodeCount }, (_, i) => `n${i + 1}`)) {
      const dir = serviceDir(`platform-failover-${name}-`);
      const node: Node = { name, pgPort: await freePort(), restPort: await freePort(), dir, dataDir: join(dir, 'data'), configFile: join(dir, 'patroni.yml'), patroni: null };
      writeFileSync(node.configFile, YAML.stringify(patroniConfig(node, clientPort)));
      this.nodes.push(node);
    }
    // The first node bootstraps the cluster; the others clone it.
    this.startPatroni(this.nodes[0]);
    await waitFor('the first node to lead', async () => (await this.primary()) === this.nodes[0], 120_000, 500);
    for (const node of this.nodes.slice(1)) this.startPatroni(node);
    await this.waitWhole(180_000);

    this.haproxyPort = await freePort();
    const cfg = join(this.work, 'haproxy.cfg');
    writeFileSync(cfg, haproxyConfig(this.haproxyPort, this.nodes));
    this.haproxy = startService('haproxy', findProgram('haproxy')!, ['-f', cfg, '-db'], join(this.work, 'haproxy.log'));
    // HAProxy counts servers up until their checks fail: wait until every connection reaches the primary.
    await waitFor('HAProxy to route to the primary only', async () => {
      for (let i = 0; i < 6; i++) if (!(await reachable(this.haproxyUrl('postgres')))) return false;
      return true;
    }, 30_000, 500);
  }

  /** Patroni's dynamic configuration as the cluster holds it (`GET /config`): what it runs with, not what it was asked for. */
  async dynamicConfig(): Promise<Record<string, unknown>> {
    for (const node of this.nodes) {
      const res = await httpGet(`http://127.0.0.1:${node.restPort}/config`);
      if (res.status === 200) return JSON.parse(res.body) as Record<string, unknown>;
    }
    throw new Error('no Patroni node answered GET /config');
  }

  haproxyUrl(database: string): string {
    return `postgres://postgres@127.0.0.1:${this.haproxyPort}/${database}`;
  }

  multiHostUrl(database: string): string {
    return `postgres://postgres@${this.nodes.map((n) => `127.0.0.1:${n.pgPort}`).join(',')}/${database}?target_session_attrs=read-write`;
  }

  startPatroni(node: Node): void {
    node.patroni = startService(`patroni ${node.name}`, findProgram('patroni')!, [node.configFile], join(node.dir, 'patroni.log'), {
      asServiceUser: true,
      env: { ...process.env, HOME: node.dir },
      cwd: node.dir,
    });
  }

  /** The node Patroni reports as the running primary, if any. */
  async primary(): Promise<Node | undefined> {
    for (const node of this.nodes) if ((await httpGet(`http://127.0.0.1:${node.restPort}/primary`)).status === 200) return node;
    return undefined;
  }

  /**
   * Every node running, one the primary, and a synchronous standby a failover may promote: each
   * node's own answer (`/health`, `/primary`, `/sync`; a node's `/cluster` is its cached view,
   * and a node that just crashed still reports itself leading with its standby in sync), and the
   * primary's own word that a synchronous standby streams.
   */
  async whole(): Promise<boolean> {
    const answers = await Promise.all(
      this.nodes.map(async (node) => {
        const [health, primary, sync] = await Promise.all(['health', 'primary', 'sync'].map((path) => httpGet(`http://127.0.0.1:${node.restPort}/${path}`)));
        return { node, running: health.status === 200, primary: primary.status === 200, sync: sync.status === 200 };
      }),
    );
    const primaries = answers.filter((a) => a.primary);
    if (!answers.every((a) => a.running) || primaries.length !== 1 || !answers.some((a) => a.sync && !a.primary)) return false;
    const client = new Client({ connectionString: `postgres://postgres@127.0.0.1:${primaries[0].node.pgPort}/postgres`, connectionTimeoutMillis: 1000 });
    client.on('error', () => undefined);
    try {
      await client.connect();
      const { rows } = await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_stat_replication WHERE sync_state = 'sync' AND state = 'streaming'`);
      return rows[0].n > 0;
    } catch {
      return false;
    } finally {
      await client.end().catch(() => undefined);
    }
  }

  waitWhole(timeoutMs: number): Promise<void> {
    return waitFor('every node (a leader, a synchronous standby)', () => this.whole(), timeoutMs, 500);
  }

  async stop(): Promise<void> {
    await this.haproxy?.stop();
    for (const node of this.nodes) await node.patroni?.stop();
    await this.etcd?.stop();
    for (const node of this.nodes) rmSync(node.dir, { recursive: true, force: true });
  }
}

function patroniConfig(node: Node, etcdPort: number): unknown {
  return {
    scope: 'platform-failover',
    name: node.name,
    log: { level: 'INFO' },
    restapi: { listen: `127.0.0.1:${node.restPort}`, connect_address: `127.0.0.1:${node.restPort}` },
    etcd3: { hosts: [`127.0.0.1:${etcdPort}`] },
    bootstrap: {
      dcs: {
        ttl: PATRONI_TTL_S,
        loop_wait: 1,
        retry_timeout: 4,
        maximum_lag_on_failover: 1048576,
        synchronous_mode: true,
        synchronous_mode_strict: STRICT,
        // A crashed primary hands over to its synchronous standby (which holds every acknowledged
        // commit) at once, rather than crash recovery in place, a restart as a standby and a
        // promotion (12-17 s on this loaded machine).
        primary_start_timeout: 0,
        postgresql: {
          use_pg_rewind: true,
          use_slots: true,
          parameters: {
            wal_level: 'replica',
            hot_standby: 'on',
            max_wal_senders: 10,
            max_replication_slots: 10,
            wal_log_hints: 'on',
            max_connections: 200,
            // A standby whose primary is gone retries this often (5 s by default), and a promotion
            // requested meanwhile waited for the retry: up to 5 s more per failover.
            wal_retrieve_retry_interval: '1s',
          },
        },
      },
      initdb: [{ encoding: 'UTF8' }, { locale: 'C' }],
      pg_hba: ['host replication all 127.0.0.1/32 trust', 'host all all 127.0.0.1/32 trust', 'local all all trust'],
    },
    postgresql: {
      listen: `127.0.0.1:${node.pgPort}`,
      connect_address: `127.0.0.1:${node.pgPort}`,
      data_dir: node.dataDir,
      bin_dir: postgresBinDir(),
      pgpass: join(node.dir, 'pgpass'),
      authentication: { superuser: { username: 'postgres' }, replication: { username: 'postgres' }, rewind: { username: 'postgres' } },
      parameters: { unix_socket_directories: node.dir, shared_buffers: '32MB' },
    },
    tags: { nofailover: false, noloadbalance: false, clonefrom: false, nosync: false },
  };
}

function haproxyConfig(port: number, nodes: Node[]): string {
  return [
    'global',
    '  maxconn 1000',
    'defaults',
    '  mode tcp',
    '  timeout connect 2s',
    '  timeout client 30m',
    '  timeout server 30m',
    '  timeout check 1s',
    // A connection HAProxy sends to a node that died before its check noticed is refused; by
    // default it is retried on that node 3 times, a second apart, holding the client (our pool,
    // PgBouncer) for 3 s. Refused at once, the client opens another, which the check routes.
    '  retries 0',
    'listen primary',
    `  bind 127.0.0.1:${port}`,
    '  option httpchk GET /primary',
    '  http-check expect status 200',
    // A node that stops being the primary has its sessions cut at once (Patroni's own example).
    '  default-server inter 500ms fall 2 rise 1 on-marked-down shutdown-sessions',
    ...nodes.map((n) => `  server ${n.name} 127.0.0.1:${n.pgPort} check port ${n.restPort}`),
    '',
  ].join('\n');
}

async function reachable(url: string): Promise<boolean> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 1000 });
  try {
    await client.connect();
    const { rows } = await client.query<{ standby: boolean }>('SELECT pg_is_in_recovery() AS standby');
    return rows[0].standby === false;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * Writes straight to the nodes' own ports (each tried in turn, no HAProxy), one connection per
 * attempt, every 100 ms: when the database itself takes writes again after a kill, so the
 * server's own delay can be told apart from the cluster's. A commit waiting for a synchronous
 * standby is waited for (up to 30 s), so its end is when the database accepted the write.
 */
class DatabaseWriteProbe {
  readonly successes: Array<{ started: number; ended: number }> = [];
  private running = true;
  private readonly loop: Promise<void>;

  constructor(
    private readonly nodes: Node[],
    private readonly database: string,
  ) {
    this.loop = this.run();
  }

  private async run(): Promise<void> {
    while (this.running) {
      const started = Date.now();
      for (const node of this.nodes) {
        if (await this.write(`postgres://postgres@127.0.0.1:${node.pgPort}/${this.database}`)) {
          this.successes.push({ started, ended: Date.now() });
          break;
        }
      }
      await sleep(100);
    }
  }

  private async write(url: string): Promise<boolean> {
    const client = new Client({ connectionString: url, connectionTimeoutMillis: 1000 });
    client.on('error', () => undefined);
    const attempt = (async () => {
      await client.connect();
      await client.query('INSERT INTO failover_probe (at) VALUES (now())');
    })();
    const ok = await Promise.race([attempt.then(() => true, () => false), sleep(30_000).then(() => false)]);
    void client.end().catch(() => undefined);
    return ok;
  }

  /** The end of the first write begun after `t`. */
  backAfter(t: number): number {
    return this.successes.find((s) => s.started > t)?.ended ?? NaN;
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
  }
}

/**
 * What the cluster did after a kill, as Patroni's REST API on every live node tells it, polled
 * every 100 ms: when the leader key was gone, who led, when a node answered `/primary`, when the
 * lost node streamed again and when a synchronous standby was named. With the probe's and the
 * replicas' first writes it is the timeline of a cycle, so a slow recovery says where it went.
 */
class ClusterTimeline {
  readonly events: Array<{ at: number; what: string }> = [];
  private readonly seen = new Set<string>();
  private running = true;
  private readonly loop: Promise<void>;

  constructor(
    private readonly cluster: Cluster,
    private readonly killed: Node,
    readonly killedAt: number,
  ) {
    this.loop = this.run();
  }

  mark(what: string, at = Date.now()): void {
    if (this.seen.has(what)) return;
    this.seen.add(what);
    this.events.push({ at, what });
  }

  private readonly wasFalse = new Set<string>();

  /** Marks `what` when it turns true after the kill (a state still reported from before the kill is not news). */
  private observe(what: string, value: boolean, at: number): void {
    if (!value) this.wasFalse.add(what);
    else if (this.wasFalse.has(what)) this.mark(what, at);
  }

  private async run(): Promise<void> {
    const killed = this.killed.name;
    while (this.running) {
      const polled = await Promise.all(
        this.cluster.nodes.map(async (node) => {
          const [cluster, primary] = await Promise.all([httpGet(`http://127.0.0.1:${node.restPort}/cluster`, 500), httpGet(`http://127.0.0.1:${node.restPort}/primary`, 500)]);
          return { node, cluster, primary: primary.status === 200 };
        }),
      );
      const at = Date.now();
      const views = polled.filter((p) => p.cluster.status === 200).map((p) => (JSON.parse(p.cluster.body) as { members: PatroniMember[] }).members);
      for (const { node, primary } of polled) this.observe(`${node.name} answers /primary`, primary, at);
      for (const members of views) {
        const leader = members.find((m) => m.role === 'leader');
        if (leader?.name !== killed) this.mark(`${killed}'s leader key gone`, at);
        if (leader && leader.name !== killed) this.mark(`${leader.name} leads`, at);
      }
      for (const node of this.cluster.nodes) {
        const member = (members: PatroniMember[]) => members.find((m) => m.name === node.name);
        const standby = (m: PatroniMember | undefined) => !!m && m.role !== 'leader' && ['running', 'streaming'].includes(m.state);
        this.observe(`${node.name} a running standby`, views.some((v) => standby(member(v))), at);
        this.observe(`${node.name} synchronous`, views.some((v) => member(v)?.role === 'sync_standby'), at);
      }
      await sleep(100);
    }
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
  }

  /** "leader key gone 9.8 s, n2 leads 9.9 s, ..." in the order things happened. */
  describe(): string {
    return [...this.events]
      .sort((a, b) => a.at - b.at)
      .map((e) => `${e.what} ${((e.at - this.killedAt) / 1000).toFixed(1)} s`)
      .join(', ');
  }
}

interface PatroniMember {
  name: string;
  role: string;
  state: string;
}

// ---------------------------------------------------------------------------------------------
// Server replicas and their clients

interface Replica {
  name: string;
  url: string;
  agent: https.Agent;
  anonymous: https.Agent;
  tls: { ca: string; cert: string; key: string };
  service: Service;
  /** The JSON log lines (`--logging-format=json`). */
  log: Array<{ ts: number; msg: string }>;
}

interface Answer {
  status: number;
  body: any;
  started: number;
  ended: number;
}

function request(replica: Replica, method: string, path: string, body?: unknown, agent = replica.agent, timeoutMs = 30_000): Promise<Answer> {
  const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
  const started = Date.now();
  return new Promise((resolve) => {
    const req = https.request(
      new URL(path, replica.url),
      { method, agent, timeout: timeoutMs, headers: payload ? { 'Content-Type': 'application/json', 'Content-Length': String(payload.length) } : {} },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown = text;
          try {
            parsed = text ? JSON.parse(text) : undefined;
          } catch {
            // plain text (readyz)
          }
          resolve({ status: res.statusCode ?? 0, body: parsed, started, ended: Date.now() });
        });
        res.on('error', () => resolve({ status: 0, body: undefined, started, ended: Date.now() }));
      },
    );
    req.on('error', () => resolve({ status: 0, body: undefined, started, ended: Date.now() }));
    req.on('timeout', () => req.destroy());
    if (payload) req.write(payload);
    req.end();
  });
}

async function startReplica(name: string, work: string, databaseUrl: string): Promise<Replica> {
  const port = await freePort();
  const dataDir = join(work, `${name}-data`);
  mkdirSync(dataDir, { recursive: true });
  const main = join(__dirname, '..', 'src', 'main.js');
  const env: NodeJS.ProcessEnv = { ...process.env, MALLOC_ARENA_MAX: '2' };
  delete env.DATABASE_URL;
  const service = startService(name, process.execPath, [main, `--secure-port=${port}`, '--bind-address=127.0.0.1', `--data-dir=${dataDir}`, `--database-url=${databaseUrl}`, '--logging-format=json'], join(work, `${name}.log`), { env });
  const log: Replica['log'] = [];
  let partial = '';
  service.child.stderr!.on('data', (chunk: Buffer) => {
    partial += chunk.toString();
    const lines = partial.split('\n');
    partial = lines.pop()!;
    for (const line of lines) {
      try {
        const entry = JSON.parse(line) as { ts: number; msg: string };
        if (/leader/.test(entry.msg)) log.push(entry);
      } catch {
        // not a log line
      }
    }
  });
  const readyz = () =>
    new Promise<number>((resolve) => {
      const req = https.get({ host: '127.0.0.1', port, path: '/readyz', rejectUnauthorized: false, agent: false, timeout: 2000 }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', () => resolve(0));
      req.on('timeout', () => req.destroy());
    });
  await waitFor(`${name} to be ready`, async () => {
    if (service.child.exitCode !== null) throw new Error(`${name} exited ${service.child.exitCode}; see ${join(work, `${name}.log`)}`);
    return (await readyz()) === 200;
  }, 120_000);
  const kubeconfig = YAML.parse(readFileSync(join(dataDir, 'admin.kubeconfig'), 'utf8'));
  const pem = (b64: string) => Buffer.from(b64, 'base64').toString('utf8');
  const ca = pem(kubeconfig.clusters[0].cluster['certificate-authority-data']);
  const tls = { ca, cert: pem(kubeconfig.users[0].user['client-certificate-data']), key: pem(kubeconfig.users[0].user['client-key-data']) };
  return {
    name,
    url: `https://127.0.0.1:${port}`,
    agent: new https.Agent({ keepAlive: true, maxSockets: 16, ...tls }),
    anonymous: new https.Agent({ keepAlive: true, maxSockets: 2, ca }),
    tls,
    service,
    log,
  };
}

// ---------------------------------------------------------------------------------------------
// The load and what it saw

interface Outcome {
  started: number;
  ended: number;
  ok: boolean;
  status: number;
  /** A refused write's Status message: what the harness prints when a replica never writes again. */
  message?: string;
}

interface ReplicaFigures {
  writes: Outcome[];
  acknowledged: Array<{ name: string; revision: number; at: number }>;
  reviews: { count: number; errors: number; wrong: number; slowestMs: number; statuses: Map<number, number>; failedAt: number[] };
  readyz: Outcome[];
  /** `expired`: when the watch got 410 Expired (its history was rewritten) and the client listed again; `listed`: what those lists held. */
  watch: { connections: number; events: Array<{ name: string; revision: number; at: number }>; expired: number[]; listed: Set<string> };
  /** Statuses of every answer but /readyz's. */
  statuses: Map<number, number>;
}

function count(map: Map<number, number>, status: number): void {
  map.set(status, (map.get(status) ?? 0) + 1);
}

class Load {
  private running = true;
  private readonly loops: Promise<void>[] = [];
  private stopWatch: (() => void) | null = null;
  readonly figures: ReplicaFigures = {
    writes: [],
    acknowledged: [],
    reviews: { count: 0, errors: 0, wrong: 0, slowestMs: 0, statuses: new Map(), failedAt: [] },
    readyz: [],
    watch: { connections: 0, events: [], expired: [], listed: new Set() },
    statuses: new Map(),
  };

  constructor(private readonly replica: Replica) {}

  get name(): string {
    return this.replica.name;
  }

  async start(fromRevision: string): Promise<void> {
    this.loops.push(this.watch(fromRevision));
    for (let w = 0; w < WRITERS_PER_REPLICA; w++) this.loops.push(this.writer(w));
    this.loops.push(this.reviewer(), this.readiness());
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops.slice(1));
  }

  closeWatch(): void {
    this.stopWatch?.();
    this.running = false;
  }

  private async writer(w: number): Promise<void> {
    for (let i = 0; this.running; i++) {
      const name = `${this.replica.name}-w${w}-${i}`;
      const res = await request(this.replica, 'POST', CM, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { i: String(i) } });
      count(this.figures.statuses, res.status);
      this.figures.writes.push({ started: res.started, ended: res.ended, ok: res.status === 201, status: res.status, message: res.status === 201 ? undefined : String(res.body?.message ?? '') });
      if (res.status === 201) this.figures.acknowledged.push({ name, revision: Number(res.body.metadata.resourceVersion), at: res.ended });
      else await sleep(RETRY_PAUSE_MS);
    }
  }

  private async reviewer(): Promise<void> {
    const r = this.figures.reviews;
    for (let i = 0; this.running; i++) {
      const user = i % 2 ? 'failover-reader' : 'failover-stranger';
      const started = performance.now();
      const res = await request(this.replica, 'POST', SAR, {
        apiVersion: 'authorization.platform.io/v1',
        kind: 'SubjectAccessReview',
        spec: { user, resourceAttributes: { namespace: NAMESPACE, verb: 'get', resource: 'configmaps' } },
      });
      const ms = performance.now() - started;
      count(this.figures.statuses, res.status);
      count(r.statuses, res.status);
      r.count++;
      r.slowestMs = Math.max(r.slowestMs, ms);
      if (res.status !== 201) {
        r.errors++;
        r.failedAt.push(res.started);
      }
      else if (res.body.status.allowed !== (user === 'failover-reader')) r.wrong++;
      await sleep(20);
    }
  }

  private async readiness(): Promise<void> {
    while (this.running) {
      const res = await request(this.replica, 'GET', '/readyz', undefined, this.replica.anonymous, 5000);
      this.figures.readyz.push({ started: res.started, ended: res.ended, ok: res.status === 200, status: res.status });
      await sleep(READYZ_EVERY_MS);
    }
  }

  /**
   * One watch for the whole run; should it end, it is opened again from the last revision seen
   * (counted). After 410 Expired the client does what informers do: lists again and watches
   * from the list's revision (what the list held counts as seen).
   */
  private async watch(fromRevision: string): Promise<void> {
    let revision = fromRevision;
    while (this.running) {
      this.figures.watch.connections++;
      let expired = false;
      await new Promise<void>((resolve) => {
        const req = https.request(new URL(`${CM}?watch=1&resourceVersion=${revision}&allowWatchBookmarks=false`, this.replica.url), { agent: false, ...this.replica.tls }, (res) => {
          let buffer = '';
          res.on('data', (c: Buffer) => {
            buffer += c.toString();
            let nl: number;
            while ((nl = buffer.indexOf('\n')) >= 0) {
              const line = buffer.slice(0, nl);
              buffer = buffer.slice(nl + 1);
              if (!line.trim()) continue;
              const event = JSON.parse(line) as { type: string; object: { code?: number; metadata: { name: string; resourceVersion: string } } };
              if (event.type === 'ERROR') {
                if (event.object.code === 410) expired = true;
                continue;
              }
              revision = event.object.metadata.resourceVersion;
              if (event.type === 'ADDED') this.figures.watch.events.push({ name: event.object.metadata.name, revision: Number(revision), at: Date.now() });
            }
          });
          res.on('end', () => resolve());
          res.on('error', () => resolve());
        });
        req.on('error', () => resolve());
        this.stopWatch = () => req.destroy();
        req.end();
      });
      if (expired && this.running) {
        const list = await request(this.replica, 'GET', CM);
        if (list.status === 200) {
          this.figures.watch.expired.push(Date.now());
          for (const item of list.body.items as Array<{ metadata: { name: string } }>) this.figures.watch.listed.add(item.metadata.name);
          revision = list.body.metadata.resourceVersion;
        }
      }
      if (this.running) await sleep(500);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// One run

interface Cycle {
  kind: 'postmaster' | 'node';
  killedAt: number;
  /** Per replica: the end of the first successful write started after the kill. */
  backAt: number[];
}

async function killPrimary(cluster: Cluster, kind: Cycle['kind']): Promise<{ killedAt: number; node: Node }> {
  const node = await cluster.primary();
  if (!node) throw new Error('no primary to kill');
  const pid = postmasterPid(node.dataDir);
  if (!pid) throw new Error(`no postmaster.pid in ${node.dataDir}`);
  if (kind === 'node') node.patroni!.child.kill('SIGKILL');
  process.kill(pid, 'SIGKILL');
  return { killedAt: Date.now(), node };
}

/** The database `name` on the current primary, made anew. */
async function createDatabase(cluster: Cluster, name: string): Promise<void> {
  const admin = new Client({ connectionString: cluster.haproxyUrl('postgres') });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const db = new Client({ connectionString: cluster.haproxyUrl(name) });
  await db.connect();
  try {
    await db.query('CREATE TABLE failover_probe (id bigserial PRIMARY KEY, at timestamptz NOT NULL)');
  } finally {
    await db.end();
  }
}

async function setUpPolicy(replica: Replica): Promise<string> {
  await request(replica, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } });
  const rb = await request(replica, 'POST', RB, {
    apiVersion: 'rbac.authorization.platform.io/v1',
    kind: 'RoleBinding',
    metadata: { name: 'failover-reader' },
    roleRef: { apiGroup: 'rbac.authorization.platform.io', kind: 'ClusterRole', name: 'view' },
    subjects: [{ apiGroup: 'rbac.authorization.platform.io', kind: 'User', name: 'failover-reader' }],
  });
  if (rb.status !== 201) throw new Error(`role binding: ${rb.status} ${JSON.stringify(rb.body)}`);
  const list = await request(replica, 'GET', CM);
  return list.body.metadata.resourceVersion;
}

/** Intervals in which each replica led each election, from its log. */
function leaderships(replicas: Replica[], until: number): Array<{ replica: string; lease: string; from: number; to: number }> {
  const intervals: Array<{ replica: string; lease: string; from: number; to: number }> = [];
  for (const replica of replicas) {
    const open = new Map<string, number>();
    for (const { ts, msg } of replica.log) {
      const became = /^became leader for (.*)$/.exec(msg);
      const lost = /^lost leadership for (.*)$/.exec(msg);
      if (became) open.set(became[1], ts * 1000);
      else if (lost && open.has(lost[1])) {
        intervals.push({ replica: replica.name, lease: lost[1], from: open.get(lost[1])!, to: ts * 1000 });
        open.delete(lost[1]);
      }
    }
    for (const [lease, from] of open) intervals.push({ replica: replica.name, lease, from, to: until });
  }
  return intervals;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor((s.length - 1) / 2)] : NaN;
}

async function runOnce(run: RunName, cluster: Cluster, work: string, cycles: number, bouncers: Map<string, PgBouncer>): Promise<boolean> {
  const database = `authz_${run.replace(/-/g, '_')}`;
  await createDatabase(cluster, database);
  const url =
    run === 'haproxy' ? cluster.haproxyUrl(database) : run === 'multi-host' ? cluster.multiHostUrl(database) : bouncers.get(run === 'pgbouncer-session' ? 'session' : 'transaction')!.url(database);
  const runDir = join(work, run);
  mkdirSync(runDir, { recursive: true });
  console.log(`\nfailover run "${run}": DATABASE_URL=${url}`);

  // One after the other: the first migrates the new database.
  const replicas = [await startReplica(`${run}-a`, runDir, url), await startReplica(`${run}-b`, runDir, url)];
  const fromRevision = await setUpPolicy(replicas[0]);
  const loads = replicas.map((r) => new Load(r));
  const direct = new DatabaseWriteProbe(cluster.nodes, database);
  for (const load of loads) await load.start(fromRevision);
  await sleep(SETTLE_MS);

  const cycleResults: Cycle[] = [];
  for (let c = 0; c < cycles; c++) {
    const kind: Cycle['kind'] = c === cycles - 1 && cycles > 1 ? 'node' : 'postmaster';
    const { killedAt, node } = await killPrimary(cluster, kind);
    const timeline = new ClusterTimeline(cluster, node, killedAt);
    console.log(`  cycle ${c + 1}: killed the ${kind === 'node' ? 'whole node' : 'postmaster'} of ${node.name}`);
    if (kind === 'node') {
      // The node comes back once the other was promoted (as a node that reboots), and rejoins as a standby.
      await waitFor('a new primary', async () => (await cluster.primary()) !== undefined && (await cluster.primary()) !== node, 60_000, 200);
      cluster.startPatroni(node);
      timeline.mark(`${node.name}'s Patroni started again`);
    }
    await cluster.waitWhole(180_000);
    await waitFor('writes on every replica', async () => loads.every((load) => load.figures.writes.some((w) => w.started > killedAt && w.ok)), 120_000).catch((err: Error) => {
      for (const load of loads) {
        const last = load.figures.writes.slice(-3).map((w) => `${w.status} ${w.message ?? ''}`.trim());
        console.log(`    ${load.name}: last writes ${last.join(' | ') || 'none'}`);
      }
      throw err;
    });
    await timeline.stop();
    const backAt = loads.map((load) => load.figures.writes.find((w) => w.started > killedAt && w.ok)!.ended);
    cycleResults.push({ kind, killedAt, backAt });
    const databaseBack = direct.backAfter(killedAt);
    if (!Number.isNaN(databaseBack)) timeline.mark('the database took a write', databaseBack);
    replicas.forEach((replica, i) => timeline.mark(`${replica.name} took a write`, backAt[i]));
    console.log(`    ${timeline.describe()}`);
    await sleep(SETTLE_MS);
  }

  // A last write through each replica, seen by both watches, marks the end.
  const stopAt = Date.now();
  for (const load of loads) await load.stop();
  await direct.stop();
  const barrier = await request(replicas[0], 'POST', CM, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${run}-barrier` } });
  if (barrier.status !== 201) throw new Error(`the closing write: ${barrier.status} ${JSON.stringify(barrier.body)}`);
  await waitFor('the barrier on both watches', async () => loads.every((l) => l.figures.watch.events.some((e) => e.name === `${run}-barrier`)), 60_000);
  for (const load of loads) load.closeWatch();

  // What is stored, read straight from the primary.
  const check = new Client({ connectionString: cluster.haproxyUrl(database) });
  await check.connect();
  const stored = new Set((await check.query<{ name: string }>(`SELECT name FROM kv_current WHERE resource = '/configmaps' AND namespace = $1`, [NAMESPACE])).rows.map((r) => r.name));
  await check.end();

  const acknowledged = loads.flatMap((l) => l.figures.acknowledged);
  const lost = acknowledged.filter((a) => !stored.has(a.name));
  const statuses = new Map<number, number>();
  for (const load of loads) for (const [s, n] of load.figures.statuses) statuses.set(s, (statuses.get(s) ?? 0) + n);
  const backMs = cycleResults.flatMap((c) => c.backAt.map((at) => at - c.killedAt));
  const databaseBackMs = cycleResults.map((c) => direct.backAfter(c.killedAt) - c.killedAt);
  // What the server adds: its first write back after the database took one.
  const serverDelayMs = cycleResults.flatMap((c, i) => c.backAt.map((at) => at - c.killedAt - databaseBackMs[i]));

  // Answers while there was no primary: from each kill to each replica's first write back.
  const outage = new Map<number, number>();
  for (const c of cycleResults) {
    loads.forEach((load, i) => {
      for (const w of load.figures.writes) if (w.started >= c.killedAt && w.ended < c.backAt[i]) count(outage, w.status);
    });
  }

  // /readyz 200 while writes fail: the last write that ended before the probe began failed, and so did the first one begun after it answered.
  let readyWhileFailing = 0;
  let firstReadyAfterKill: number[] = [];
  for (const load of loads) {
    const writes = load.figures.writes;
    for (const probe of load.figures.readyz.filter((p) => p.ok)) {
      const before = [...writes].reverse().find((w) => w.ended <= probe.started);
      const after = writes.find((w) => w.started >= probe.ended);
      if (before && after && !before.ok && !after.ok) readyWhileFailing++;
    }
    firstReadyAfterKill = firstReadyAfterKill.concat(cycleResults.map((c) => (load.figures.readyz.find((p) => p.ok && p.started > c.killedAt + 1000)?.ended ?? NaN) - c.killedAt));
  }

  // Watches: every acknowledged write once, in order.
  const watchFigures = loads.map((load) => {
    const seen = new Map<string, number>();
    let outOfOrder = 0;
    let last = 0;
    for (const e of load.figures.watch.events) {
      seen.set(e.name, (seen.get(e.name) ?? 0) + 1);
      if (e.revision <= last) outOfOrder++;
      last = e.revision;
    }
    const missed = acknowledged.filter((a) => !seen.has(a.name) && !load.figures.watch.listed.has(a.name));
    const duplicated = [...seen.values()].filter((n) => n > 1).length;
    // Delivered, yet not in the database: a write the watch saw that a failover then discarded.
    // One the server took back with 410 Expired (the client listed again after it) is retracted, not wrong.
    const lastExpired = Math.max(0, ...load.figures.watch.expired);
    const phantoms = load.figures.watch.events.filter((e) => !stored.has(e.name) && !e.name.endsWith('-barrier'));
    const discarded = phantoms.filter((e) => e.at > lastExpired);
    const retracted = phantoms.length - discarded.length;
    return { connections: load.figures.watch.connections, events: load.figures.watch.events.length, missed, duplicated, outOfOrder, discarded, retracted, expired: load.figures.watch.expired.length };
  });
  /** "name (revision r, 1.2 s after kill 2)": where in the run a watch's miss or extra event fell. */
  const placed = (e: { name: string; revision: number; at: number }) => {
    const i = cycleResults.map((c) => c.killedAt).filter((k) => k <= e.at).length - 1;
    return `${e.name} (revision ${e.revision}, ${i < 0 ? 'before the first kill' : `${((e.at - cycleResults[i].killedAt) / 1000).toFixed(1)} s after kill ${i + 1}`})`;
  };

  // Leaders: per election, no two intervals of different replicas overlap.
  const intervals = leaderships(replicas, stopAt);
  let overlaps = 0;
  for (const a of intervals) for (const b of intervals) if (a !== b && a.lease === b.lease && a.replica < b.replica && a.from < b.to && b.from < a.to) overlaps++;
  const moves = new Set(intervals.map((i) => `${i.lease}`)).size ? intervals.length - new Set(intervals.map((i) => i.lease)).size : 0;

  const reviews = loads.map((l) => l.figures.reviews);
  const reviewCount = reviews.reduce((n, r) => n + r.count, 0);
  const reviewErrors = reviews.reduce((n, r) => n + r.errors, 0);
  const reviewWrong = reviews.reduce((n, r) => n + r.wrong, 0);
  const slowest = Math.max(...reviews.map((r) => r.slowestMs));
  const fiveHundreds = statuses.get(500) ?? 0;
  const format = (m: Map<number, number>) => [...m.entries()].sort((a, b) => a[0] - b[0]).map(([s, n]) => `${s}x${n}`).join(' ') || 'none';

  const goals = {
    'acknowledged writes lost': lost.length === 0,
    '500s': fiveHundreds === 0,
    'writes back within 15 s': backMs.every((ms) => ms <= GOAL_WRITES_BACK_MS),
    'reviews uninterrupted and right': reviewErrors === 0 && reviewWrong === 0,
    'watches exact': watchFigures.every((w) => w.missed.length === 0 && w.duplicated === 0 && w.outOfOrder === 0 && w.discarded.length === 0),
    'one leader at a time': overlaps === 0,
    '/readyz never 200 while writes fail': readyWhileFailing === 0,
  };
  console.log(`  acknowledged writes lost: ${lost.length} of ${acknowledged.length}${lost.length ? ` (${lost.slice(0, 5).map((l) => l.name).join(', ')})` : ''}`);
  console.log(`  writes back after the kill: p50 ${(median(backMs) / 1000).toFixed(1)} s, max ${(Math.max(...backMs) / 1000).toFixed(1)} s (${cycleResults.map((c, i) => `cycle ${i + 1} ${c.kind}: ${c.backAt.map((at) => ((at - c.killedAt) / 1000).toFixed(1)).join('/')} s`).join('; ')})`);
  console.log(
    `  the database itself took writes again after ${databaseBackMs.map((ms) => (ms / 1000).toFixed(1)).join('/')} s (a write straight to the nodes' ports); ` +
      `the server's first write came ${(median(serverDelayMs) / 1000).toFixed(2)} s later (median; max ${(Math.max(...serverDelayMs) / 1000).toFixed(2)} s)`,
  );
  console.log(`  answers to writes while there was no primary: ${format(outage)}; all answers but readyz: ${format(statuses)}`);
  console.log(`  /readyz: 200 while writes failed x${readyWhileFailing}; first 200 after each kill at ${firstReadyAfterKill.map((ms) => (ms / 1000).toFixed(1)).join('/')} s`);
  const reviewStatuses = new Map<number, number>();
  for (const r of reviews) for (const [status, n] of r.statuses) reviewStatuses.set(status, (reviewStatuses.get(status) ?? 0) + n);
  // Each refused review as the time since the kill before it: where in a failover reviews stopped.
  const refusedAfter = reviews
    .flatMap((r) => r.failedAt)
    .sort((a, b) => a - b)
    .map((at) => {
      const i = cycleResults.map((c) => c.killedAt).filter((k) => k <= at).length - 1;
      return i < 0 ? 'before the first kill' : `${((at - cycleResults[i].killedAt) / 1000).toFixed(1)} s after kill ${i + 1}`;
    });
  console.log(
    `  SubjectAccessReviews: ${reviewCount}, errors ${reviewErrors}, wrong ${reviewWrong}, slowest ${slowest.toFixed(0)} ms (${format(reviewStatuses)})` +
      (refusedAfter.length ? `; refused ${refusedAfter.slice(0, 10).join(', ')}` : ''),
  );
  for (const [i, w] of watchFigures.entries()) {
    console.log(
      `  watch on ${replicas[i].name}: ${w.connections} connection(s), ${w.events} events, missed ${w.missed.length}, duplicated ${w.duplicated}, out of order ${w.outOfOrder}, ` +
        `delivered but not stored ${w.discarded.length}, taken back by 410 Expired ${w.retracted} (${w.expired} relist(s))` +
        (w.missed.length ? `; missed ${w.missed.slice(0, 5).map(placed).join(', ')}` : '') +
        (w.discarded.length ? `; not stored ${w.discarded.slice(0, 5).map(placed).join(', ')}` : ''),
    );
  }
  console.log(`  leaders: ${intervals.length} leaderships over ${new Set(intervals.map((i) => i.lease)).size} elections (${moves} changes), overlapping x${overlaps}`);
  const failed = Object.entries(goals).filter(([, ok]) => !ok).map(([goal]) => goal);
  console.log(`  goals: ${failed.length ? `MISSED: ${failed.join(', ')}` : 'all met'}`);

  for (const replica of replicas) {
    replica.agent.destroy();
    replica.anonymous.destroy();
    await replica.service.stop();
  }
  return failed.length === 0;
}

export async function runFailoverBench(): Promise<void> {
  const missing = PACKAGES.filter((p) => !p.present()).map((p) => p.name);
  if (missing.length) {
    console.log(`failover harness skipped: missing Debian packages: ${missing.join(' ')} (apt-get install ${missing.join(' ')})`);
    return;
  }
  const other = postgresInstancesUnavailable();
  if (other) {
    console.log(`failover harness skipped: ${other}`);
    return;
  }
  const runs = (process.env.BENCH_FAILOVER_RUNS?.split(',') ?? ALL_RUNS).filter((r): r is RunName => (ALL_RUNS as string[]).includes(r));
  const cycles = Number(process.env.BENCH_FAILOVER_CYCLES ?? 3);
  const nodes = Number(process.env.BENCH_FAILOVER_NODES ?? 2);
  const work = serviceDir('platform-failover-');
  const cluster = new Cluster(work, nodes);
  const bouncers = new Map<string, PgBouncer>();
  const results: Array<[string, boolean]> = [];
  try {
    const started = Date.now();
    await cluster.start();
    const dcs = await cluster.dynamicConfig();
    console.log(
      `Patroni cluster of ${nodes} nodes up in ${((Date.now() - started) / 1000).toFixed(0)} s: ${cluster.nodes.map((n) => `${n.name} 127.0.0.1:${n.pgPort}`).join(', ')}; ` +
        `HAProxy 127.0.0.1:${cluster.haproxyPort}; as Patroni holds it: ` +
        `ttl ${dcs.ttl} s, loop_wait ${dcs.loop_wait} s, retry_timeout ${dcs.retry_timeout} s, synchronous_mode ${dcs.synchronous_mode}, synchronous_mode_strict ${dcs.synchronous_mode_strict}`,
    );
    for (const mode of ['session', 'transaction'] as const) {
      if (runs.includes(`pgbouncer-${mode}`)) bouncers.set(mode, await startPgBouncer({ host: '127.0.0.1', port: cluster.haproxyPort }, mode, await freePort()));
    }
    for (const run of runs) results.push([run, await runOnce(run, cluster, work, cycles, bouncers)]);
  } finally {
    for (const bouncer of bouncers.values()) await bouncer.stop();
    await cluster.stop();
    for (const service of [...services]) await service.stop();
    if (process.env.BENCH_FAILOVER_KEEP === '1') console.log(`failover: logs kept in ${work}`);
    else if (existsSync(work)) rmSync(work, { recursive: true, force: true });
  }
  console.log(`\nfailover: ${results.map(([run, ok]) => `${run} ${ok ? 'met every goal' : 'missed goals'}`).join('; ')}`);
}
