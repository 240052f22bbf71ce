import type * as KubernetesClient from '@kubernetes/client-node';
import { pathToFileURL } from 'node:url';
import { importModule } from '../../src/cel/cel-library';

/**
 * `@kubernetes/client-node` 1.x, the real client tests drive the server with. It is published
 * as ES modules only and the tests are CommonJS, so it is imported by absolute file URL.
 */
export async function kubernetesClient(): Promise<typeof KubernetesClient> {
  return (await importModule(pathToFileURL(require.resolve('@kubernetes/client-node')).href)) as typeof KubernetesClient;
}
