import { ResourceRegistry } from '../../registry/resources/registry';
import { ResourceType } from '../../runtime/schema/resource-type';
import { RbacIndex } from '../../authorization/rbac/rbac-index.service';
import { ContinueTokenService } from '../../registry/generic/continue-token.service';
import { AccessAnalyzer } from '../access-analyzer';
import { ComputedStorage } from './computed-storage';
import { accessDenialType, ruleUsageType } from './usage-kinds';
import { accessDenialsOf, ruleUsagesOf } from './usage-views';
import { RuleUsageService } from './usage.service';

export interface LeastPrivilegeSources {
  policy: RbacIndex;
  usage: RuleUsageService;
  continueTokens: ContinueTokenService;
  analyzer: AccessAnalyzer;
}

/** Registers the least-privilege kinds of access.platform.io/v1 with the generic registry. */
export function registerLeastPrivilege(registry: ResourceRegistry, sources: LeastPrivilegeSources): void {
  const { policy, usage, continueTokens } = sources;
  const revision = () => policy.syncedRevision();
  registry.register(
    ruleUsageType as unknown as ResourceType,
    new ComputedStorage(ruleUsageType as unknown as ResourceType, { objects: async () => ruleUsagesOf((await usage.read()).uses, policy), revision, continueTokens }),
  );
  registry.register(
    accessDenialType as unknown as ResourceType,
    new ComputedStorage(accessDenialType as unknown as ResourceType, { objects: async () => accessDenialsOf((await usage.read()).denials), revision, continueTokens }),
  );
}
