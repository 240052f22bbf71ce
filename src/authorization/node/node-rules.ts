import { PolicyRule } from '../../apis/rbac/types';

/**
 * kube's bootstrap NodeRules(): what every node may do where the Node authorizer does not
 * decide by its graph (the `system:node` ClusterRole holds the same rules). Group names
 * carry this project's domain. DRA and ClusterTrustBundle rules are left out: their
 * feature gates are off and the kinds are not served.
 */

const READ = ['get', 'list', 'watch'];

const rule = (verbs: string[], apiGroups: string[], resources: string[]): PolicyRule => ({ verbs, apiGroups, resources });

export const AUTHENTICATION_GROUP = 'authentication.platform.io';
export const AUTHORIZATION_GROUP = 'authorization.platform.io';
export const CERTIFICATES_GROUP = 'certificates.platform.io';
export const COORDINATION_GROUP = 'coordination.platform.io';
export const STORAGE_GROUP = 'storage.platform.io';
export const NODE_GROUP = 'node.platform.io';
export const RESOURCE_GROUP = 'resource.platform.io';

export const NODE_RULES: readonly PolicyRule[] = [
  // API access checks: these creates change nothing.
  rule(['create'], [AUTHENTICATION_GROUP], ['tokenreviews']),
  rule(['create'], [AUTHORIZATION_GROUP], ['subjectaccessreviews', 'localsubjectaccessreviews']),
  // Services for pod environment variables.
  rule(READ, [''], ['services']),
  // Registering and reporting on its Node (NodeRestriction limits it to its own).
  rule(['create', 'get', 'list', 'watch'], [''], ['nodes']),
  rule(['update', 'patch'], [''], ['nodes/status']),
  rule(['update', 'patch'], [''], ['nodes']),
  rule(['create', 'update', 'patch'], [''], ['events']),
  rule(READ, [''], ['pods']),
  // Mirror pods, pod status and evictions (NodeRestriction limits them to its own pods).
  rule(['create', 'delete'], [''], ['pods']),
  rule(['update', 'patch'], [''], ['pods/status']),
  rule(['create'], [''], ['pods/eviction']),
  // Secrets, config maps, claims and volumes: the graph decides which ones.
  rule(['get', 'list', 'watch'], [''], ['secrets', 'configmaps']),
  rule(['get'], [''], ['persistentvolumeclaims', 'persistentvolumes']),
  rule(['get'], [''], ['endpoints']),
  // Client certificate rotation.
  rule(['create', 'get', 'list', 'watch'], [CERTIFICATES_GROUP], ['certificatesigningrequests']),
  rule(['get', 'create', 'update', 'patch', 'delete'], [COORDINATION_GROUP], ['leases']),
  rule(['get'], [STORAGE_GROUP], ['volumeattachments']),
  rule(['create'], [''], ['serviceaccounts/token']),
  rule(['get', 'update', 'patch'], [''], ['persistentvolumeclaims/status']),
  rule(['get', 'watch', 'list'], [STORAGE_GROUP], ['csidrivers']),
  rule(['get', 'create', 'update', 'patch', 'delete'], [STORAGE_GROUP], ['csinodes']),
  rule(['get', 'list', 'watch'], [NODE_GROUP], ['runtimeclasses']),
];
