import { ChildProcess, execFile, spawn } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createCertificateAuthority, issueServingCertificate } from '../../src/server/certificates';
import { eventually } from '../support/eventually';

const run = promisify(execFile);
const MAIN = join(__dirname, '..', '..', 'dist', 'src', 'main.js');
/** The embedded store's data-directory template that `npm run build` makes next to MAIN. */
const TEMPLATE = join(__dirname, '..', '..', 'dist', 'db-template');

/** The built server as `npm start` runs it: its own process, the embedded store, real flags. */
const childEnv = () => {
  const env = { ...process.env };
  delete env.DATABASE_URL; // these tests are about the embedded default
  delete env.NODE_OPTIONS;
  return env;
};

interface Started {
  child: ChildProcess;
  url: string;
  exited: Promise<number | null>;
  /** What it printed so far (stdout and stderr). */
  output(): string;
}

function startProcess(args: string[]): Promise<Started> {
  const child = spawn(process.execPath, [MAIN, ...args], { env: childEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    let out = '';
    // A fresh embedded store runs initdb, which takes long on a busy machine.
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server did not start: ${out}`));
    }, 120_000);
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const m = /serving on (https:\/\/\S+)\n/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ child, url: m[1], exited, output: () => out });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}: ${out}`));
    });
  });
}

/** kubectl with the admin kubeconfig a server wrote into `dataDir`. */
function adminKubectl(dataDir: string) {
  const kubeconfig = join(dataDir, 'admin.kubeconfig');
  return (...args: string[]) => run('kubectl', ['--kubeconfig', kubeconfig, ...args], { env: { ...childEnv(), HOME: dataDir }, timeout: 30000 });
}

/** Creates a ClusterRole through kubectl from a manifest written into `dataDir`. */
async function createClusterRole(dataDir: string, name: string): Promise<void> {
  const manifest = join(dataDir, `${name}.yaml`);
  writeFileSync(manifest, `apiVersion: rbac.authorization.platform.io/v1\nkind: ClusterRole\nmetadata:\n  name: ${name}\nrules: []\n`);
  await adminKubectl(dataDir)('create', '-f', manifest);
}

async function stop(s: Started): Promise<number | null> {
  s.child.kill('SIGTERM');
  return s.exited;
}

describe('the server process', () => {
  let dataDir: string;

  beforeAll(() => {
    if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: npm test builds it first (npm run build)`);
    dataDir = mkdtempSync(join(tmpdir(), 'platform-proc-'));
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('prints its flags with --help as kube does, with their defaults, and exits 0', async () => {
    const { stdout } = await run(process.execPath, [MAIN, '--help'], { env: childEnv() });
    for (const flag of ['--secure-port', '--bind-address', '--tls-cert-file', '--data-dir', '--database-url', '--token-auth-file', '--authorization-mode', '--embedded-fsync']) {
      expect(stdout).toContain(flag);
    }
    expect(stdout).toMatch(/^ {6}--secure-port int +.*\(default 6443\)$/m);
    expect(stdout).toMatch(/^ {6}--history-window duration +.*\(default 5m0s\)$/m);
    expect(stdout).not.toContain('{"');
  });

  it('starts on the embedded store, writes a working admin kubeconfig, refuses a second server, keeps data across restarts', async () => {
    const first = await startProcess(['--data-dir', dataDir, '--secure-port', '0']);
    const kubectl = adminKubectl(dataDir);
    try {
      expect(existsSync(join(dataDir, 'pki', 'ca.crt'))).toBe(true);
      const ns = await kubectl('get', 'namespaces', '-o', 'name');
      expect(ns.stdout.split('\n')).toEqual(expect.arrayContaining(['namespace/default', 'namespace/kube-system', 'namespace/kube-public']));
      await createClusterRole(dataDir, 'survives-restart');

      const second = spawn(process.execPath, [MAIN, '--data-dir', dataDir, '--secure-port', '0'], { env: childEnv() });
      let stderr = '';
      second.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
      const code = await new Promise<number | null>((resolve) => second.on('exit', resolve));
      expect(code).toBe(1);
      expect(stderr).toBe(`error: data directory ${dataDir} is in use by another server (pid ${first.child.pid})\n`);
    } finally {
      expect(await stop(first)).toBe(0);
    }

    const again = await startProcess(['--data-dir', dataDir, '--secure-port', '0']);
    try {
      // Same CA and credential, new port: the kubeconfig follows the server.
      const cr = await kubectl('get', 'clusterroles.rbac.authorization.platform.io', 'survives-restart', '-o', 'jsonpath={.metadata.name}');
      expect(cr.stdout).toBe('survives-restart');
    } finally {
      expect(await stop(again)).toBe(0);
    }
  }, 300_000);

  it('starts on a new data directory from the build\'s template: ready, serving the default policy', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'platform-new-'));
    try {
      const started = await startProcess(['--data-dir', dir, '--secure-port', '0']);
      try {
        expect(started.output()).toContain(`new data directory copied from the template in ${TEMPLATE} (PGlite `);
        expect(started.output()).not.toContain('made by initdb');
        const kubectl = adminKubectl(dir);
        await eventually(async () => expect((await kubectl('get', '--raw', '/readyz')).stdout).toBe('ok'));
        const admin = await kubectl('get', 'clusterroles.rbac.authorization.platform.io', 'cluster-admin', '-o', 'jsonpath={.rules[*].verbs}');
        expect(admin.stdout).toBe('["*"] ["*"]');
        const binding = await kubectl('get', 'clusterrolebindings.rbac.authorization.platform.io', 'cluster-admin', '-o', 'jsonpath={.roleRef.name} {.subjects[0].name}');
        expect(binding.stdout).toBe('cluster-admin system:masters');
      } finally {
        expect(await stop(started)).toBe(0);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 300_000);

  it('keeps an acknowledged write through kill -9 and recovers the store on restart (durable by default)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'platform-kill-'));
    const kubectl = adminKubectl(dir);
    try {
      const killed = await startProcess(['--data-dir', dir, '--secure-port', '0']);
      try {
        await createClusterRole(dir, 'survives-kill');
      } finally {
        killed.child.kill('SIGKILL');
        await killed.exited;
      }
      const again = await startProcess(['--data-dir', dir, '--secure-port', '0']);
      try {
        const cr = await kubectl('get', 'clusterroles.rbac.authorization.platform.io', 'survives-kill', '-o', 'jsonpath={.metadata.name}');
        expect(cr.stdout).toBe('survives-kill');
      } finally {
        expect(await stop(again)).toBe(0);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 300_000);

  it('applies migrations and exits with --migrate-only', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'platform-migrate-'));
    try {
      const { stdout } = await run(process.execPath, [MAIN, '--migrate-only', '--data-dir', dir], { env: childEnv() });
      expect(stdout).toContain('migrations applied');
      expect(existsSync(join(dir, 'db'))).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});

/** A port nothing listens on: taken from the system, then given back. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('the server process with a bad flag or configuration file', () => {
  let dir: string;
  let occupied: Server;
  let occupiedPort: number;
  const file = (name: string, content: string) => {
    const path = join(dir, name);
    writeFileSync(path, content);
    return path;
  };

  beforeAll(async () => {
    if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: npm test builds it first (npm run build)`);
    dir = mkdtempSync(join(tmpdir(), 'platform-badflag-'));
    occupied = createServer();
    await new Promise<void>((resolve) => occupied.listen(0, '127.0.0.1', resolve));
    occupiedPort = (occupied.address() as { port: number }).port;
  });
  afterAll(async () => {
    await new Promise((resolve) => occupied.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  /** Runs the server on a data directory that does not exist yet; what it printed and how it ended. */
  async function start(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string; dataDirLeft: boolean }> {
    const dataDir = join(dir, `data-${Math.random().toString(36).slice(2)}`);
    const child = spawn(process.execPath, [MAIN, '--data-dir', dataDir, '--secure-port', '0', ...args], { env: childEnv() });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    return { code, stdout, stderr, dataDirLeft: existsSync(dataDir) };
  }

  /** Exit 1, nothing on stdout, and exactly one line on stderr: no stack trace, no Nest log. */
  async function refused(args: string[], line: string): Promise<string> {
    const result = await start(args);
    expect({ ...result, stderr: undefined }).toEqual({ code: 1, stdout: '', stderr: undefined, dataDirLeft: false });
    expect(result.stderr).toBe(`error: ${line}\n`);
    return result.stderr;
  }

  it('names an unknown flag and a bad value in kube\'s words', async () => {
    // Each refusal is its own process: started together, they take the time of the slowest.
    await Promise.all([
      refused(['--no-such-flag'], 'unknown flag: --no-such-flag'),
      refused(['--authorization-mode=Sometimes'], 'invalid argument "Sometimes" for "--authorization-mode" flag: unknown authorization mode "Sometimes"; supported modes: AlwaysAllow, AlwaysDeny, ABAC, RBAC, Node, Webhook, Guardrail'),
      refused(['--feature-gates=NoSuchGate=true'], 'invalid argument "NoSuchGate=true" for "--feature-gates" flag: unrecognized feature gate: NoSuchGate'),
      refused(['--history-window=soon'], 'invalid argument "soon" for "--history-window" flag: time: invalid duration "soon"'),
      refused(['--embedded-fsync=maybe'], 'invalid argument "maybe" for "--embedded-fsync" flag: strconv.ParseBool: parsing "maybe": invalid syntax'),
    ]);
  });

  it('refuses a port in use before setting up the store', async () => {
    await refused(['--secure-port', String(occupiedPort)], `--secure-port: failed to listen on 127.0.0.1:${occupiedPort}: address already in use`);
  });

  it('refuses a bind address that does not resolve or is not this host\'s', async () => {
    await Promise.all([
      refused(['--bind-address=no-such-host.invalid'], '--bind-address: cannot resolve "no-such-host.invalid": ENOTFOUND'),
      refused(['--bind-address=192.0.2.1'], "--bind-address: failed to listen on 192.0.2.1:0: the address is not one of this host's"),
    ]);
  });

  it('refuses a garbage --client-ca-file and bad TLS files', async () => {
    const garbage = file('garbage.pem', 'not a certificate\n');
    const missing = join(dir, 'missing.pem');
    const ca = createCertificateAuthority();
    const serving = issueServingCertificate(ca.certPem, ca.keyPem, '127.0.0.1');
    const cert = file('serving.crt', serving.certPem);
    const key = file('serving.key', serving.keyPem);
    const otherKey = file('other.key', generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString());
    await Promise.all([
      refused([`--client-ca-file=${garbage}`], `--client-ca-file: unable to load client CA file "${garbage}": data does not contain any valid RSA or ECDSA certificates`),
      refused([`--client-ca-file=${missing}`], `--client-ca-file: unable to load client CA file "${missing}": open ${missing}: no such file or directory`),
      refused([`--tls-cert-file=${garbage}`, `--tls-private-key-file=${key}`], `--tls-cert-file: unable to load server certificate from "${garbage}": tls: failed to find any PEM data in certificate input`),
      refused([`--tls-cert-file=${cert}`, `--tls-private-key-file=${garbage}`], `--tls-private-key-file: unable to load server private key from "${garbage}": tls: failed to find any PEM data in key input`),
      refused([`--tls-cert-file=${cert}`, `--tls-private-key-file=${otherKey}`], `--tls-private-key-file: unable to load server private key from "${otherKey}": tls: private key does not match public key`),
    ]);
  });

  it('refuses an unreadable or malformed token file', async () => {
    const missing = join(dir, 'no-tokens.csv');
    const short = file('short.csv', 'token-only,alice\n');
    await Promise.all([
      refused([`--token-auth-file=${missing}`], `--token-auth-file: open ${missing}: no such file or directory`),
      refused([`--token-auth-file=${short}`], `--token-auth-file: token file '${short}' must have at least 3 columns (token, user name, user uid), found 2`),
    ]);
  });

  it('refuses an unreachable --database-url, naming the host and never the password', async () => {
    const port = await closedPort();
    const [stderr] = await Promise.all([
      refused(
        [`--database-url=postgres://platform:s3cret-Passw0rd@127.0.0.1:${port}/authz`],
        `--database-url: cannot connect to PostgreSQL at 127.0.0.1:${port}/authz: connect ECONNREFUSED 127.0.0.1:${port}`,
      ),
      refused(['--database-url=mysql://platform:s3cret-Passw0rd@db/authz'], '--database-url: unsupported scheme "mysql"; expected postgres://user:password@host:port/database'),
    ]);
    expect(stderr).not.toContain('s3cret-Passw0rd');
  });

  it('refuses a bad authentication configuration, and the OIDC flags next to one', async () => {
    const authn = file(
      'authn.yaml',
      ['apiVersion: apiserver.config.platform.io/v1', 'kind: AuthenticationConfiguration', 'jwt:', '- issuer: {url: "http://idp.example", audiences: [a]}', '  claimMappings: {username: {claim: sub}}', ''].join('\n'),
    );
    await Promise.all([
      refused(
        [`--authentication-config=${authn}`],
        '--authentication-config: [jwt[0].issuer.url: Invalid value: "http://idp.example": URL scheme must be https, jwt[0].claimMappings.username.prefix: Required value: prefix is required when claim is set. It can be set to an empty string to disable prefixing]',
      ),
      refused([`--authentication-config=${authn}`, '--oidc-issuer-url=https://idp.example'], 'authentication-config file and oidc-* flags are mutually exclusive'),
      refused(['--oidc-issuer-url=https://idp.example', '--oidc-client-id=platform', '--oidc-signing-algs=HS256'], 'invalid argument "HS256" for "--oidc-signing-algs" flag: oidc: unsupported signing alg: HS256'),
    ]);
  });

  it('refuses bad authorization files: configuration, webhook kubeconfig, ABAC policy', async () => {
    const notYaml = file('authz.yaml', '{ not: [valid');
    const noServer = file('no-server.kubeconfig', 'apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {}}]\n');
    const webhookConfig = file(
      'webhook-authz.yaml',
      [
        'apiVersion: apiserver.config.platform.io/v1',
        'kind: AuthorizationConfiguration',
        'authorizers:',
        '- type: Webhook',
        '  name: guard',
        '  webhook:',
        '    timeout: 3s',
        '    subjectAccessReviewVersion: v1',
        '    matchConditionSubjectAccessReviewVersion: v1',
        '    failurePolicy: Deny',
        `    connectionInfo: {type: KubeConfigFile, kubeConfigFile: ${noServer}}`,
        '',
      ].join('\n'),
    );
    const missing = join(dir, 'missing.kubeconfig');
    const policy = file('policy.jsonl', '{"user": "alice", "readonly": "yes"}\n');
    const [config] = await Promise.all([
      start([`--authorization-config=${notYaml}`]),
      refused([`--authorization-config=${webhookConfig}`], '--authorization-config: invalid configuration: no server found for cluster "c"'),
      refused(
        ['--authorization-mode=Webhook', `--authorization-webhook-config-file=${missing}`],
        `--authorization-webhook-config-file: invalid configuration: cannot load kubeconfig ${missing}: open ${missing}: no such file or directory`,
      ),
      refused(['--authorization-mode=Webhook', `--authorization-webhook-config-file=${noServer}`], '--authorization-webhook-config-file: invalid configuration: no server found for cluster "c"'),
      refused(
        ['--authorization-mode=ABAC', `--authorization-policy-file=${policy}`],
        `--authorization-policy-file: error reading policy file ${policy}, line 1: {"user": "alice", "readonly": "yes"}: readonly: expected a boolean, got string`,
      ),
    ]);
    expect({ code: config.code, stdout: config.stdout, dataDirLeft: config.dataDirLeft }).toEqual({ code: 1, stdout: '', dataDirLeft: false });
    expect(config.stderr).toMatch(/^error: --authorization-config: failed to load AuthorizationConfiguration from file: [^\n]+\n$/);
  });

  it('refuses a --data-dir that is a file', async () => {
    const notDir = file('not-a-dir', '');
    const result = await start(['--data-dir', notDir]);
    expect({ code: result.code, stdout: result.stdout, stderr: result.stderr }).toEqual({ code: 1, stdout: '', stderr: `error: --data-dir: ${notDir} is not a directory\n` });
  });
});
