import { Injectable, Logger, OnApplicationBootstrap, Optional } from '@nestjs/common';
import { HealthChecks, PostStartHook } from '../../health/health-checks';
import { ClusterRoleAggregationController } from '../aggregation/clusterrole-aggregation-controller';
import { DefaultPolicyReconciler } from './default-policy-reconciler';

/** kube's names for these steps in /readyz?verbose (`poststarthook/<name>`). */
const BOOTSTRAP_ROLES_HOOK = 'rbac/bootstrap-roles';
export const BOOTSTRAP_ROLES_CHECK = `poststarthook/${BOOTSTRAP_ROLES_HOOK}`;
const AGGREGATION_CONTROLLER_HOOK = 'start-clusterrole-aggregation-controller';

/** kube keeps trying to reconcile the default policy this long before giving up on start. */
const RECONCILE_DEADLINE_MS = 30_000;
const RECONCILE_RETRY_MS = 1000;

/**
 * At every start, after migrations (the database is migrated when it opens) and before the
 * port opens: reconcile the default policy, then start the aggregation controller. Until
 * reconciliation finished, readiness fails; when it cannot finish within 30 seconds (the
 * store keeps failing), start fails, as kube-apiserver's post-start hook does.
 */
@Injectable()
export class RbacBootstrap implements OnApplicationBootstrap {
  private readonly logger = new Logger('RbacBootstrap');
  private readonly bootstrapHook?: PostStartHook;
  private readonly aggregationHook?: PostStartHook;
  private markReconciled: () => void = () => undefined;
  /** Resolves once the default policy is in place (what every cluster starts with, not a change to record). */
  readonly reconciled: Promise<void> = new Promise((resolve) => (this.markReconciled = resolve));

  constructor(
    private readonly reconciler: DefaultPolicyReconciler,
    private readonly aggregation: ClusterRoleAggregationController,
    @Optional() health?: HealthChecks,
  ) {
    this.bootstrapHook = health?.postStartHook(BOOTSTRAP_ROLES_HOOK);
    this.aggregationHook = health?.postStartHook(AGGREGATION_CONTROLLER_HOOK);
  }

  async onApplicationBootstrap(): Promise<void> {
    try {
      await this.reconcileUntilDone();
    } catch (err) {
      this.bootstrapHook?.failed(err as Error);
      throw err;
    }
    this.bootstrapHook?.done();
    this.markReconciled();
    this.logger.log('default RBAC policy reconciled');
    await this.aggregation.start();
    this.aggregationHook?.done();
  }

  private async reconcileUntilDone(): Promise<void> {
    const deadline = Date.now() + RECONCILE_DEADLINE_MS;
    for (;;) {
      try {
        await this.reconciler.reconcile();
        return;
      } catch (err) {
        if (Date.now() >= deadline) throw new Error(`unable to initialize roles: ${(err as Error).message}`);
        this.logger.error(`default RBAC policy not reconciled yet: ${(err as Error).message}`);
        await new Promise((resolve) => setTimeout(resolve, RECONCILE_RETRY_MS));
      }
    }
  }
}
