import { Injectable, Logger, OnApplicationBootstrap, Optional } from '@nestjs/common';
import { HealthChecks } from '../../health/health-checks';
import { ClusterRoleAggregationController } from '../aggregation/clusterrole-aggregation-controller';
import { DefaultPolicyReconciler } from './default-policy-reconciler';

/** kube's name for this step in /readyz?verbose. */
export const BOOTSTRAP_ROLES_CHECK = 'poststarthook/rbac/bootstrap-roles';

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
  private reconciled = false;

  constructor(
    private readonly reconciler: DefaultPolicyReconciler,
    private readonly aggregation: ClusterRoleAggregationController,
    @Optional() health?: HealthChecks,
  ) {
    health?.register(BOOTSTRAP_ROLES_CHECK, ['readyz'], () => {
      if (!this.reconciled) throw new Error('not finished');
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.reconcileUntilDone();
    this.reconciled = true;
    await this.aggregation.start();
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
