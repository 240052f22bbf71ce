import { BeforeApplicationShutdown, Inject, Logger, Module, OnApplicationBootstrap, OnModuleDestroy, OnModuleInit, Optional } from '@nestjs/common';
import { RegistryModule } from '../registry/registry.module';
import { ResourceRegistry } from '../registry/resources/registry';
import { AuthorizationModule } from '../authorization/authorization.module';
import { AuthorizerChain } from '../authorization/authorizer-chain';
import { RbacAuthorizationModule } from '../authorization/rbac/rbac-authorization.module';
import { RbacIndex } from '../authorization/rbac/rbac-index.service';
import { RbacBootstrap } from '../rbac/bootstrap/rbac-bootstrap';
import { RbacModule } from '../rbac/rbac.module';
import { SERVER_OPTIONS, ServerOptions } from '../config/options';
import { reviewAttributes, reviewedUser, reviewEvaluationError, subjectAccessReviewAttributes } from '../reviews/access-review-attributes';
import { SelfSubjectAccessReviewSpec, SubjectAccessReviewSpec } from '../reviews/review-types';
import { accessReviewSpecToWire, rulesReviewStatusToWire } from '../reviews/review-wire';
import { AccessAnalyzer } from './access-analyzer';
import { AccessIndex } from './access-index';
import { accessMatrix } from './access-matrix';
import { accessMatrixReviewType } from './access-matrix-kind';
import { AccessMatrixReviewSpec } from './access-matrix-types';
import { accessExplanationType, localResourceAccessReviewType, resourceAccessReviewType, subjectRulesReviewType } from './access-kinds';
import { AccessStorage } from './access-storage';
import { bindingUsageType } from './binding-usage-kind';
import { BindingUsageService } from './binding-usage.service';
import { BindingUsageStorage } from './binding-usage-storage';
import { ContinueTokenService } from '../registry/generic/continue-token.service';
import { ResourceType } from '../runtime/schema/resource-type';
import { WriteOptions } from '../registry/rest/storage';
import { ResourceAccessReviewSpec, SubjectRulesReviewSpec } from './access-types';
import { accessExplanationStatusToWire, resourceAccessReviewStatusToWire, subjectRulesReviewSpecToWire } from './access-wire';
import { registerPolicyChangeReview } from './policy-change-storage';
import { accessChangeType } from './access-change-kind';
import { AccessHistoryRecorder } from './access-history-recorder';
import { ReadOnlyStorage } from './access-change-storage';
import { GenericStorageFactory } from '../registry/generic/generic-storage.factory';
import { OBJECT_STORE, ObjectStore } from '../storage/mvcc/object-store';
import { ChangeFeedService } from '../storage/changefeed/change-feed.service';
import { SharedInformerFactory } from '../storage/informer/shared-informer-factory';
import { DATABASE } from '../storage/storage.module';
import { Database } from '../storage/engine/database';
import { Clock, CLOCK, systemClock } from '../apimachinery/clock';
import { ACCESS_HISTORY_CONTROLLER, controllerEnabled } from '../config/controllers';

/** Without the AuthorizeWithSelectors gate the selector fields do not exist: they are dropped first. */
function dropSelectors(spec: SelfSubjectAccessReviewSpec): void {
  delete spec.resourceAttributes?.fieldSelector;
  delete spec.resourceAttributes?.labelSelector;
}

/**
 * access.platform.io/v1: ResourceAccessReview and LocalResourceAccessReview (who may do
 * it), SubjectRulesReview (what may a subject do), AccessExplanation (why was it allowed or
 * not). Answered from the RBAC policy index and the authorizer chain that make the real
 * decisions, plus the reverse indexes of AccessIndex, which follow the policy index.
 */
@Module({
  imports: [RegistryModule, AuthorizationModule, RbacAuthorizationModule, RbacModule],
  providers: [BindingUsageService, { provide: AccessIndex, useFactory: (policy: RbacIndex) => new AccessIndex(policy), inject: [RbacIndex] }],
  exports: [BindingUsageService, AccessIndex],
})
export class AccessModule implements OnModuleInit, OnModuleDestroy, OnApplicationBootstrap, BeforeApplicationShutdown {
  private history: AccessHistoryRecorder | undefined;
  private historyStarted: Promise<void> | undefined;
  private historyStarting = false;
  private stopping = false;
  private readonly logger = new Logger('AccessModule');

  constructor(
    private readonly registry: ResourceRegistry,
    private readonly chain: AuthorizerChain,
    private readonly policy: RbacIndex,
    @Inject(SERVER_OPTIONS) private readonly options: ServerOptions,
    private readonly usage: BindingUsageService,
    private readonly continueTokens: ContinueTokenService,
    private readonly index: AccessIndex,
    private readonly storages: GenericStorageFactory,
    @Inject(OBJECT_STORE) private readonly store: ObjectStore,
    private readonly feed: ChangeFeedService,
    @Inject(DATABASE) private readonly db: Database,
    private readonly informers: SharedInformerFactory,
    private readonly rbacBootstrap: RbacBootstrap,
    @Optional() @Inject(CLOCK) private readonly clock: Clock = systemClock,
  ) {}

  onModuleInit(): void {
    const index = this.index;
    const analyzer = new AccessAnalyzer(this.chain, this.policy, index);
    const attributeOptions = () => ({ authorizeWithSelectors: this.options.featureGates.enabled('AuthorizeWithSelectors') });
    const normalize = (spec: SelfSubjectAccessReviewSpec) => {
      if (!attributeOptions().authorizeWithSelectors) dropSelectors(spec);
    };
    const ready = () => this.policy.ready();

    const whoCan = async (spec: ResourceAccessReviewSpec, opts: WriteOptions) => {
      await ready();
      await this.chain.consistent(opts.receivedAt);
      const attrs = reviewAttributes({ username: '', groups: [] }, spec, attributeOptions());
      const status = analyzer.whoCan(attrs);
      status.evaluationError = reviewEvaluationError(status.evaluationError, attrs);
      return { spec: accessReviewSpecToWire(spec), status: resourceAccessReviewStatusToWire(status) };
    };

    this.registry.register(
      accessExplanationType,
      new AccessStorage<SubjectAccessReviewSpec>(
        accessExplanationType,
        async (spec, opts) => {
          await ready();
          const attrs = subjectAccessReviewAttributes(spec, attributeOptions());
          const { chainError, ...status } = await analyzer.explain(attrs, opts.receivedAt);
          const evaluationError = reviewEvaluationError(chainError, attrs);
          return { spec: accessReviewSpecToWire(spec), status: accessExplanationStatusToWire({ ...status, evaluationError }) };
        },
        normalize,
      ),
    );
    this.registry.register(
      accessMatrixReviewType,
      new AccessStorage<AccessMatrixReviewSpec>(accessMatrixReviewType, async (spec, opts, target) => {
        await ready();
        await this.chain.consistent(opts.receivedAt);
        return { spec, status: accessMatrix(analyzer, target.namespace, spec) };
      }),
    );
    this.registry.register(
      bindingUsageType as unknown as ResourceType,
      new BindingUsageStorage({ policy: this.policy, usageOf: (uids) => this.usage.usageOf(uids), continueTokens: this.continueTokens }),
    );
    this.registry.register(localResourceAccessReviewType, new AccessStorage<ResourceAccessReviewSpec>(localResourceAccessReviewType, whoCan, normalize));
    registerPolicyChangeReview(this.registry, this.policy, index, this.chain);
    this.registry.register(resourceAccessReviewType, new AccessStorage<ResourceAccessReviewSpec>(resourceAccessReviewType, whoCan, normalize));
    this.registerAccessHistory();
    this.registry.register(
      subjectRulesReviewType,
      new AccessStorage<SubjectRulesReviewSpec>(subjectRulesReviewType, async (spec, opts) => {
        const rules = await this.chain.rulesFor(reviewedUser(spec), spec.namespace ?? '', opts.receivedAt);
        return { spec: subjectRulesReviewSpecToWire(spec), status: rulesReviewStatusToWire(rules) };
      }),
    );
  }

  /**
   * AccessChange: the generic storage, served read-only (get, list, watch); its writes are the
   * access-history controller's, on the leader, unless --controllers turns it off.
   */
  private registerAccessHistory(): void {
    const type = accessChangeType as unknown as ResourceType;
    const entries = this.storages.create(type);
    this.registry.register(type, new ReadOnlyStorage(entries));
    if (!controllerEnabled(this.options.controllers, ACCESS_HISTORY_CONTROLLER)) return;
    // With the kind switched off by --runtime-config, nothing is recorded either.
    if (!this.registry.isServed(type.group, type.version, type.plural)) return;
    this.history = new AccessHistoryRecorder({
      store: this.store,
      feed: this.feed,
      db: this.db,
      clock: this.clock,
      entries,
      retentionMs: this.options.accessHistoryRetentionMs,
      cached: (resource, namespace, name) => this.informers.informerFor(resource).get(namespace, name),
    });
  }

  onApplicationBootstrap(): void {
    // History starts after the default policy is in place: a fresh cluster's defaults are its
    // starting state, not changes. Not awaited here: the bootstrap's own hook may run after this one.
    const history = this.history;
    if (!history) return;
    this.historyStarted = this.rbacBootstrap.reconciled.then(() => {
      if (this.stopping) return;
      this.historyStarting = true;
      return history.start();
    });
    this.historyStarted.catch((err: Error) => this.logger.error(`access history did not start: ${err.message}`));
  }

  async beforeApplicationShutdown(): Promise<void> {
    // A server that stops before its default policy is in place (a failed start) never started history.
    this.stopping = true;
    if (this.historyStarting) await this.historyStarted?.catch(() => undefined);
    await this.history?.stop();
  }

  onModuleDestroy(): void {
    this.index.close();
  }
}
