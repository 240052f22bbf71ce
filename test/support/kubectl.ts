import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export type Kubectl = (...args: string[]) => Promise<{ stdout: string; stderr: string }>;

/**
 * kubectl with a kubeconfig, as a user runs it: its home and discovery cache inside `dir`
 * so runs never share state.
 */
export function kubectlWith(kubeconfig: string, dir: string, binary = 'kubectl'): Kubectl {
  return (...args: string[]) =>
    run(binary, ['--kubeconfig', kubeconfig, ...args], {
      env: { ...process.env, HOME: dir, KUBECACHEDIR: join(dir, 'kube-cache') },
      timeout: 30000,
    });
}

/** kubectl against a test server with the admin kubeconfig the server wrote. */
export function kubectlFor(server: { kubeconfigPath: string; dataDir: string }): Kubectl {
  return kubectlWith(server.kubeconfigPath, server.dataDir);
}
