import { HealthIndicatorService } from '@nestjs/terminus';
import { HealthChecks } from '../../../src/health/health-checks';
import { ClusterRoleAggregationController } from '../../../src/rbac/aggregation/clusterrole-aggregation-controller';
import { DefaultPolicyReconciler } from '../../../src/rbac/bootstrap/default-policy-reconciler';
import { BOOTSTRAP_ROLES_CHECK, RbacBootstrap } from '../../../src/rbac/bootstrap/rbac-bootstrap';

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe('RBAC bootstrap', () => {
  it('keeps readiness failing until the default policy is reconciled, then starts aggregation', async () => {
    const health = new HealthChecks(new HealthIndicatorService());
    const reconciled = deferred();
    const calls: string[] = [];
    const reconciler = { reconcile: () => reconciled.promise.then(() => void calls.push('reconcile')) } as unknown as DefaultPolicyReconciler;
    const aggregation = { start: async () => void calls.push('aggregation') } as unknown as ClusterRoleAggregationController;
    const bootstrap = new RbacBootstrap(reconciler, aggregation, health);

    const ready = async () => (await health.run('readyz', BOOTSTRAP_ROLES_CHECK, []))[0].ok;
    const starting = bootstrap.onApplicationBootstrap();
    expect(await ready()).toBe(false);
    expect(calls).toEqual([]);

    reconciled.resolve();
    await starting;
    expect(await ready()).toBe(true);
    expect(calls).toEqual(['reconcile', 'aggregation']);
  });

  it('retries a failed reconciliation', async () => {
    jest.useFakeTimers();
    try {
      let attempts = 0;
      const reconciler = {
        reconcile: async () => {
          if (++attempts < 3) throw new Error('store unavailable');
          return [];
        },
      } as unknown as DefaultPolicyReconciler;
      const aggregation = { start: async () => undefined } as unknown as ClusterRoleAggregationController;
      const bootstrap = new RbacBootstrap(reconciler, aggregation);
      (bootstrap as any).logger = { error: () => undefined, log: () => undefined };
      const starting = bootstrap.onApplicationBootstrap();
      await jest.advanceTimersByTimeAsync(2500);
      await starting;
      expect(attempts).toBe(3);
    } finally {
      jest.useRealTimers();
    }
  });
});
