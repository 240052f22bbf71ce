import { AGGREGATION_CONTROLLER_NAME, CONTROLLER_ROLE_PREFIX, NAMESPACE_CONTROLLER_NAME } from '../../apimachinery/user-info';
import { ClusterRole, RBAC_GROUP } from '../../apis/rbac/types';
import { resourceRule } from './policy-rule-builder';

/**
 * The roles of this server's own controllers, as kube's controller policy
 * (bootstrappolicy/controller_policy.go) gives each controller `system:controller:<name>`.
 * kube's controllers authenticate as service accounts in kube-system; ours run inside the
 * server, so each is bound to the user of the same name. kube also lets every controller
 * write events; this server has no events, so that rule is left out.
 */
export function controllerRoles(): ClusterRole[] {
  return [
    {
      metadata: { name: `${CONTROLLER_ROLE_PREFIX}${AGGREGATION_CONTROLLER_NAME}` },
      rules: [
        // It must be able to write any rules into an aggregating role, hence escalate.
        resourceRule(['escalate', 'get', 'list', 'watch', 'update', 'patch'], [RBAC_GROUP], ['clusterroles']),
      ],
    },
    {
      metadata: { name: `${CONTROLLER_ROLE_PREFIX}${NAMESPACE_CONTROLLER_NAME}` },
      rules: [
        resourceRule(['get', 'list', 'watch', 'delete'], [''], ['namespaces']),
        resourceRule(['update'], [''], ['namespaces/finalize', 'namespaces/status']),
        resourceRule(['get', 'list', 'delete', 'deletecollection'], ['*'], ['*']),
      ],
    },
    {
      // Creates the `default` ServiceAccount of every namespace.
      metadata: { name: `${CONTROLLER_ROLE_PREFIX}service-account-controller` },
      rules: [resourceRule(['create'], [''], ['serviceaccounts'])],
    },
    {
      // Fills legacy service-account token Secrets (kube runs it with the controller manager's own credentials).
      metadata: { name: `${CONTROLLER_ROLE_PREFIX}tokens-controller` },
      rules: [resourceRule(['get', 'list', 'watch'], [''], ['serviceaccounts']), resourceRule(['get', 'list', 'watch', 'update', 'delete'], [''], ['secrets'])],
    },
    {
      // Deletes time-bound bindings some time after their valid-until.
      metadata: { name: `${CONTROLLER_ROLE_PREFIX}binding-expiry` },
      rules: [resourceRule(['list', 'watch', 'delete'], [RBAC_GROUP], ['rolebindings', 'clusterrolebindings'])],
    },
    {
      // Grants approved access requests with time-bound bindings, moves their phases, keeps
      // ended ones for the retention. `bind` on every role: it grants what approvers approved.
      metadata: { name: `${CONTROLLER_ROLE_PREFIX}access-request-controller` },
      rules: [
        resourceRule(['bind'], [RBAC_GROUP], ['roles', 'clusterroles']),
        resourceRule(['get', 'list', 'watch', 'create', 'delete'], [RBAC_GROUP], ['rolebindings', 'clusterrolebindings']),
        resourceRule(['get', 'list', 'watch', 'delete'], ['access.platform.io'], ['accessrequests', 'clusteraccessrequests']),
        resourceRule(['update'], ['access.platform.io'], ['accessrequests/status', 'clusteraccessrequests/status']),
        resourceRule(['get', 'list', 'watch'], ['access.platform.io'], ['accessrequestpolicies']),
      ],
    },
  ];
}
