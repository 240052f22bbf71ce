import { execFile, spawn } from 'node:child_process';
import { accessSync, constants, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { promisify } from 'node:util';
import * as YAML from 'yaml';
import type { ClientIdentity } from './https-client';

const run = promisify(execFile);

export type Kubectl = (...args: string[]) => Promise<{ stdout: string; stderr: string }>;

/** Where kubectl keeps its home and discovery cache, so runs never share state. */
function kubectlEnv(dir: string): NodeJS.ProcessEnv {
  return { ...process.env, HOME: dir, KUBECACHEDIR: join(dir, 'kube-cache') };
}

/**
 * kubectl with a kubeconfig, as a user runs it: its home and discovery cache inside `dir`
 * so runs never share state. A non-zero exit rejects with `code`, `stdout` and `stderr`.
 */
export function kubectlWith(kubeconfig: string, dir: string, binary = 'kubectl'): Kubectl {
  return (...args: string[]) => run(binary, ['--kubeconfig', kubeconfig, ...args], { env: kubectlEnv(dir), timeout: 30000 });
}

interface KubectlTarget {
  kubeconfigPath: string;
  dataDir: string;
}

/** kubectl against a test server with the admin kubeconfig the server wrote. */
export function kubectlFor(server: KubectlTarget, binary = 'kubectl'): Kubectl {
  return kubectlWith(server.kubeconfigPath, server.dataDir, binary);
}

/**
 * kubectl as another user: a kubeconfig with the admin one's cluster and the identity's
 * client certificate, written next to it.
 */
export function kubectlAs(server: KubectlTarget, name: string, identity: ClientIdentity, binary = 'kubectl'): Kubectl {
  const config = YAML.parse(readFileSync(server.kubeconfigPath, 'utf8'));
  const b64 = (pem = '') => Buffer.from(pem).toString('base64');
  config.users = [{ name, user: { 'client-certificate-data': b64(identity.cert), 'client-key-data': b64(identity.key) } }];
  config.contexts = [{ name, context: { cluster: config.clusters[0].name, user: name } }];
  config['current-context'] = name;
  const path = join(server.dataDir, `${name}.kubeconfig`);
  writeFileSync(path, YAML.stringify(config), { mode: 0o600 });
  return kubectlWith(path, server.dataDir, binary);
}

/** A long-running kubectl (`get -w`): its output so far, and a way to stop it. */
export interface KubectlProcess {
  output(): string;
  stop(): void;
}

export function spawnKubectl(server: KubectlTarget, ...args: string[]): KubectlProcess {
  const child = spawn('kubectl', ['--kubeconfig', server.kubeconfigPath, ...args], { env: kubectlEnv(server.dataDir) });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  return { output: () => out, stop: () => child.kill() };
}

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * A kubectl of one minor version (`kubectl.1.27`): on PATH, or installed next to the
 * `kubectl` on PATH (as kubectl's version dispatcher installs them). Missing is an error,
 * not a skipped test.
 */
export function kubectlBinary(version: string): string {
  const name = `kubectl.${version}`;
  const dirs = (process.env.PATH ?? '').split(delimiter).filter(Boolean);
  for (const dir of dirs) if (executable(join(dir, name))) return join(dir, name);
  for (const dir of dirs) {
    if (!executable(join(dir, 'kubectl'))) continue;
    const beside = join(dirname(realpathSync(join(dir, 'kubectl'))), name);
    if (executable(beside)) return beside;
  }
  throw new Error(`${name} is neither on PATH nor next to kubectl`);
}
