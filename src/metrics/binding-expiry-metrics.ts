import { metricsCatalog } from './registry';

/** What the binding-expiry controller has done (time-bound bindings deleted after their retention). */

const deleted = metricsCatalog.counter({
  stabilityLevel: 'ALPHA',
  name: 'access_expired_bindings_deleted_total',
  help: 'Number of RoleBindings and ClusterRoleBindings the binding-expiry controller deleted after their valid-until plus the retention passed.',
});

export function recordExpiredBindingDeleted(): void {
  deleted.inc();
}
