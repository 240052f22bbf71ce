import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { ResourceRegistry } from '../registry/resources/registry';
import { StatusError } from '../apimachinery/errors';
import { SYSTEM_USER } from '../apimachinery/user-info';
import { SYSTEM_NAMESPACES } from './namespace-lifecycle';

/** Creates default, kube-system and kube-public at every start when they are missing. */
@Injectable()
export class DefaultNamespaces implements OnApplicationBootstrap {
  private readonly logger = new Logger('DefaultNamespaces');

  constructor(@Inject(ResourceRegistry) private readonly registry: ResourceRegistry) {}

  async onApplicationBootstrap(): Promise<void> {
    const entry = this.registry.lookup('', 'v1', 'namespaces');
    if (!entry?.storage.create) return;
    for (const name of SYSTEM_NAMESPACES) {
      try {
        await entry.storage.create(
          { type: entry.type, groupResource: { group: '', resource: 'namespaces' }, namespace: '', name: '' },
          { apiVersion: 'v1', kind: 'Namespace', metadata: { name } },
          { user: SYSTEM_USER, dryRun: false },
        );
        this.logger.log(`created namespace ${name}`);
      } catch (err) {
        if (!(err instanceof StatusError && err.reason === 'AlreadyExists')) throw err;
      }
    }
  }
}
