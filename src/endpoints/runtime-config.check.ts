import { Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { FlagError } from '../config/flags';
import { ResourceRegistry } from '../registry/resources/registry';

/**
 * Stops the start when `--runtime-config` names a group version or resource that no feature
 * module registered (a typo would otherwise silently leave an API on). Runs after every
 * feature module has registered its kinds.
 */
@Injectable()
export class RuntimeConfigCheck implements OnApplicationBootstrap {
  constructor(private readonly registry: ResourceRegistry) {}

  onApplicationBootstrap(): void {
    const unknown = this.registry.unknownRuntimeConfigKeys();
    if (unknown.length) {
      throw FlagError.about('--runtime-config', `unknown group version or resource: ${unknown.join(', ')}`);
    }
  }
}
