import { Module, OnModuleInit } from '@nestjs/common';
import { RegistryModule } from '../../registry/registry.module';
import { ResourceRegistry } from '../../registry/resources/registry';
import { ResourceType } from '../../runtime/schema/resource-type';
import { AuthorizationModule } from '../../authorization/authorization.module';
import { RbacAuthorizationModule } from '../../authorization/rbac/rbac-authorization.module';
import { RbacIndex } from '../../authorization/rbac/rbac-index.service';
import { KubeObject } from '../../apimachinery/types';
import { RBAC_GROUP, Subject } from '../../apis/rbac/types';
import { ContinueTokenService } from '../../registry/generic/continue-token.service';
import { AccessModule } from '../access.module';
import { BindingUsageService } from '../binding-usage.service';
import { Informer } from '../../storage/informer/informer';
import { SharedInformerFactory } from '../../storage/informer/shared-informer-factory';
import { storageResource } from '../../apimachinery/store-key';
import { AccessFinding, accessFindingType } from './finding-kind';
import { computeFindings } from './findings';
import { AccessStorage } from '../access-storage';
import { generateAccess } from './role-generation';
import { AccessSuggestionSpec, accessSuggestionType, windowOf } from './suggestion-kind';
import { rfc3339 } from './usage-kinds';
import { EscalationPathsModule } from '../escalation-paths/escalation-paths.module';
import { CLUSTER_ADMIN, EscalationPathService } from '../escalation-paths/escalation-path.service';

const SERVICE_ACCOUNTS_RESOURCE = storageResource({ group: '', plural: 'serviceaccounts' });
import { ComputedRead, ComputedStorage } from './computed-storage';
import { accessDenialType, ruleUsageType } from './usage-kinds';
import { accessDenialsOf, ruleUsagesOf } from './usage-views';
import { RuleUsageService } from './usage.service';
import { DEFAULT_USAGE_WINDOW, refuseBeyondRetention, selectedWindow } from './usage-window';

/** A subject as a binding names it (users and groups in the RBAC group). */
function asBindingSubject(s: { kind: 'User' | 'Group' | 'ServiceAccount'; name: string; namespace?: string }): Subject {
  return s.kind === 'ServiceAccount' ? { kind: s.kind, name: s.name, namespace: s.namespace } : { kind: s.kind, apiGroup: RBAC_GROUP, name: s.name };
}

/**
 * Least privilege from observed use (access.platform.io/v1, read-only kinds): rule-level
 * usage (RuleUsage) and refused attributes (AccessDenial), recorded by the authorizer chain's
 * usage recorder at decision time.
 */
@Module({ imports: [RegistryModule, AuthorizationModule, RbacAuthorizationModule, AccessModule, EscalationPathsModule], providers: [RuleUsageService] })
export class LeastPrivilegeModule implements OnModuleInit {
  /** The shared informer of ServiceAccounts (bindings to missing ones are findings). */
  private readonly serviceAccounts: Informer;

  constructor(
    private readonly registry: ResourceRegistry,
    private readonly policy: RbacIndex,
    private readonly usage: RuleUsageService,
    private readonly continueTokens: ContinueTokenService,
    private readonly bindingUsage: BindingUsageService,
    private readonly escalationPaths: EscalationPathService,
    informers: SharedInformerFactory,
  ) {
    this.serviceAccounts = informers.informerFor(SERVICE_ACCOUNTS_RESOURCE);
  }

  onModuleInit(): void {
    const { policy, usage, continueTokens } = this;
    const revision = () => policy.syncedRevision();
    const computed = (type: ResourceType, objects: (read: ComputedRead) => Promise<KubeObject[]>) =>
      this.registry.register(type, new ComputedStorage(type, { objects, revision, continueTokens }));
    computed(ruleUsageType as unknown as ResourceType, async () => ruleUsagesOf((await usage.read()).uses, policy));
    computed(accessDenialType as unknown as ResourceType, async () => accessDenialsOf((await usage.read()).denials));
    computed(accessFindingType as unknown as ResourceType, (read) => this.findings(selectedWindow(read.field), read.warn));
    this.registry.register(accessSuggestionType, new AccessStorage<AccessSuggestionSpec>(accessSuggestionType, (spec) => this.suggest(spec)));
  }

  /** AccessSuggestion: the generated roles and the diff for a subject and window (400 beyond the retention). */
  async suggest(spec: AccessSuggestionSpec): Promise<{ spec: unknown; status: unknown }> {
    const windowMs = windowOf(spec);
    refuseBeyondRetention('spec.since', spec.since ?? DEFAULT_USAGE_WINDOW, windowMs);
    await this.policy.ready();
    const from = this.usage.now() - windowMs;
    const [{ uses }, missing] = await Promise.all([this.usage.read([]), this.usage.missingUse(from)]);
    const generated = generateAccess({
      subject: spec.subject!,
      from,
      bindings: (['RoleBinding', 'ClusterRoleBinding'] as const).flatMap((kind) => this.policy.objectsOf(kind).map((object) => ({ kind, object }))),
      rulesOf: (binding, namespace) => this.policy.rulesOfRoleRef(binding.roleRef, namespace).rules,
      uses,
    });
    return { spec: structuredClone(spec), status: { windowStart: rfc3339(from), ...generated, ...incompleteness(missing) } };
  }

  /**
   * The findings of a window, from the policy index, the binding usage and the rule usage.
   * When use in the window may be missing, the findings that rest on absence of use say so,
   * and so does a response warning.
   */
  async findings(window: { since: string; windowMs: number }, warn?: (message: string) => void): Promise<AccessFinding[]> {
    await Promise.all([this.policy.ready(), this.serviceAccounts.start()]);
    const bindings = (['RoleBinding', 'ClusterRoleBinding'] as const).flatMap((kind) => this.policy.objectsOf(kind).map((object) => ({ kind, object })));
    const uids = bindings.map((b) => b.object.metadata.uid ?? '').filter(Boolean);
    const now = this.usage.now();
    const [granted, recorded, missing, paths] = await Promise.all([
      this.bindingUsage.usageOf(uids),
      this.usage.read([]),
      this.usage.missingUse(now - window.windowMs),
      this.escalationPaths.reaching(CLUSTER_ADMIN),
    ]);
    const synced = this.serviceAccounts.hasSynced();
    const found = computeFindings({
      now,
      windowMs: window.windowMs,
      bindings,
      rulesOf: (binding, namespace) => this.policy.rulesOfRoleRef(binding.roleRef, namespace).rules,
      lastGranted: new Map([...granted].map(([uid, u]) => [uid, u.lastGranted])),
      uses: recorded.uses,
      serviceAccountExists: (namespace, name) => (synced ? this.serviceAccounts.get(namespace, name) !== undefined : undefined),
      pathsToClusterAdmin: paths.reaching.filter((r) => r.path.steps.length).map((r) => ({ subject: asBindingSubject(r.subject.subject), path: r.path })),
    });
    const incomplete = incompleteness(missing);
    if (incomplete.incomplete) warn?.(`the findings may be incomplete: ${incomplete.evaluationError}`);
    // Missing use matters only to findings that rest on absence of use.
    return found.map((f) => ({ ...f, since: window.since, ...(f.type === 'MissingServiceAccount' || f.type === 'PathToClusterAdmin' ? {} : incomplete) }));
  }
}

/** `incomplete` and `evaluationError` of an answer, from why recorded use may be missing. */
function incompleteness(missing: readonly string[]): { incomplete: boolean; evaluationError?: string } {
  return missing.length ? { incomplete: true, evaluationError: missing.join('; ') } : { incomplete: false };
}
