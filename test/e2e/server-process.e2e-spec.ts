import { ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const MAIN = join(__dirname, '..', '..', 'dist', 'src', 'main.js');

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
}

function startProcess(args: string[]): Promise<Started> {
  const child = spawn(process.execPath, [MAIN, ...args], { env: childEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`server did not start: ${out}`)), 30000);
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const m = /serving on (https:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ child, url: m[1], exited });
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

  it('prints its flags with --help and exits 0', async () => {
    const { stdout } = await run(process.execPath, [MAIN, '--help'], { env: childEnv() });
    for (const flag of ['--secure-port', '--bind-address', '--tls-cert-file', '--data-dir', '--database-url', '--token-auth-file', '--authorization-mode']) {
      expect(stdout).toContain(flag);
    }
  });

  it('exits non-zero with a clear message on an unknown flag or a bad value', async () => {
    await expect(run(process.execPath, [MAIN, '--no-such-flag'], { env: childEnv() })).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining("error: unknown option '--no-such-flag'"),
    });
    await expect(run(process.execPath, [MAIN, '--authorization-mode=Sometimes'], { env: childEnv() })).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining('unknown authorization mode "Sometimes"'),
    });
  });

  it('starts on the embedded store, writes a working admin kubeconfig, refuses a second server, keeps data across restarts', async () => {
    const first = await startProcess(['--data-dir', dataDir, '--secure-port', '0']);
    const kubeconfig = join(dataDir, 'admin.kubeconfig');
    const kubectl = (...args: string[]) =>
      run('kubectl', ['--kubeconfig', kubeconfig, ...args], { env: { ...childEnv(), HOME: dataDir }, timeout: 30000 });
    try {
      expect(existsSync(join(dataDir, 'pki', 'ca.crt'))).toBe(true);
      const ns = await kubectl('get', 'namespaces', '-o', 'name');
      expect(ns.stdout.split('\n')).toEqual(expect.arrayContaining(['namespace/default', 'namespace/kube-system', 'namespace/kube-public']));
      const manifest = join(dataDir, 'cr.yaml');
      writeFileSync(manifest, 'apiVersion: rbac.authorization.platform.io/v1\nkind: ClusterRole\nmetadata:\n  name: survives-restart\nrules: []\n');
      await kubectl('create', '-f', manifest);

      const second = spawn(process.execPath, [MAIN, '--data-dir', dataDir, '--secure-port', '0'], { env: childEnv() });
      let stderr = '';
      second.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
      const code = await new Promise<number | null>((resolve) => second.on('exit', resolve));
      expect(code).not.toBe(0);
      expect(stderr).toContain(`data directory ${dataDir} is in use by another server (pid ${first.child.pid})`);
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
  });

  it('applies migrations and exits with --migrate-only', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'platform-migrate-'));
    try {
      const { stdout } = await run(process.execPath, [MAIN, '--migrate-only', '--data-dir', dir], { env: childEnv() });
      expect(stdout).toContain('migrations applied');
      expect(existsSync(join(dir, 'db'))).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
