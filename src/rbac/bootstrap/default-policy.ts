import { ALL_AUTHENTICATED, ALL_UNAUTHENTICATED, SYSTEM_MASTERS } from '../../apimachinery/user-info';
import { ClusterRole, ClusterRoleBinding, GROUP_KIND, PolicyRule, RBAC_GROUP, RBAC_VERSION, Subject, USER_KIND } from '../../apis/rbac/types';
import { controllerRoles } from './controller-policy';
import { READ, READ_WRITE, resourceRule, urlRule, WRITE } from './policy-rule-builder';

/**
 * The default ClusterRoles and ClusterRoleBindings, reconciled at every start. They follow
 * kube's bootstrap policy (plugin/pkg/auth/authorizer/rbac/bootstrappolicy/policy.go) with
 * every `*.k8s.io` group renamed `*.platform.io`, and with the rules narrowed to the kinds
 * this server serves or names in its API: rules for kinds it has no use for (services,
 * endpoints, events, quota, workloads in apps/batch/..., storage, leases) are left out,
 * since they could never match a request; reconciliation adds them if such kinds come.
 */

/** Marks every default object (kube: kubernetes.io/bootstrapping=rbac-defaults). */
export const BOOTSTRAPPING_LABEL = 'platform.io/bootstrapping';
export const BOOTSTRAPPING_VALUE = 'rbac-defaults';
/** "false" on a default object stops reconciliation from touching it. */
export const AUTOUPDATE_ANNOTATION = `${RBAC_GROUP}/autoupdate`;

export const AGGREGATE_TO_ADMIN = `${RBAC_GROUP}/aggregate-to-admin`;
export const AGGREGATE_TO_EDIT = `${RBAC_GROUP}/aggregate-to-edit`;
export const AGGREGATE_TO_VIEW = `${RBAC_GROUP}/aggregate-to-view`;

const LEGACY = '';
const AUTHENTICATION = 'authentication.platform.io';
const AUTHORIZATION = 'authorization.platform.io';
const CERTIFICATES = 'certificates.platform.io';
const ACCESS = 'access.platform.io';

const API_VERSION = `${RBAC_GROUP}/${RBAC_VERSION}`;

interface RoleSpec {
  name: string;
  labels?: Record<string, string>;
  rules?: PolicyRule[];
  /** Aggregates the roles carrying this label with value "true". */
  aggregateFrom?: string;
}

function clusterRole(spec: RoleSpec): ClusterRole {
  const role: ClusterRole = {
    apiVersion: API_VERSION,
    kind: 'ClusterRole',
    metadata: {
      name: spec.name,
      labels: { ...spec.labels, [BOOTSTRAPPING_LABEL]: BOOTSTRAPPING_VALUE },
      annotations: { [AUTOUPDATE_ANNOTATION]: 'true' },
    },
  };
  if (spec.rules) role.rules = spec.rules;
  if (spec.aggregateFrom) role.aggregationRule = { clusterRoleSelectors: [{ matchLabels: { [spec.aggregateFrom]: 'true' } }] };
  return role;
}

function group(name: string): Subject {
  return { kind: GROUP_KIND, apiGroup: RBAC_GROUP, name };
}

function user(name: string): Subject {
  return { kind: USER_KIND, apiGroup: RBAC_GROUP, name };
}

/** A ClusterRoleBinding named after the ClusterRole it binds, as all of kube's defaults are. */
function clusterRoleBinding(roleName: string, subjects: Subject[]): ClusterRoleBinding {
  const binding: ClusterRoleBinding = {
    apiVersion: API_VERSION,
    kind: 'ClusterRoleBinding',
    metadata: {
      name: roleName,
      labels: { [BOOTSTRAPPING_LABEL]: BOOTSTRAPPING_VALUE },
      annotations: { [AUTOUPDATE_ANNOTATION]: 'true' },
    },
    roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: roleName },
  };
  if (subjects.length) binding.subjects = subjects;
  return binding;
}

/**
 * kube's NodeRules: what a kubelet needs. The Node authorizer narrows the object-level
 * reads (secrets, configmaps, volumes) to the node's own pods.
 */
export function nodeRules(): PolicyRule[] {
  return [
    // Checking API access; these creates change nothing.
    resourceRule(['create'], [AUTHENTICATION], ['tokenreviews']),
    resourceRule(['create'], [AUTHORIZATION], ['subjectaccessreviews', 'localsubjectaccessreviews']),
    // Registering its Node object and reporting status (NodeRestriction limits it to its own).
    resourceRule(['create', 'get', 'list', 'watch'], [LEGACY], ['nodes']),
    resourceRule(['update', 'patch'], [LEGACY], ['nodes/status']),
    resourceRule(['update', 'patch'], [LEGACY], ['nodes']),
    resourceRule(READ, [LEGACY], ['pods']),
    // Mirror pods, pod status and evictions (NodeRestriction limits them to its pods).
    resourceRule(['create', 'delete'], [LEGACY], ['pods']),
    resourceRule(['update', 'patch'], [LEGACY], ['pods/status']),
    resourceRule(['create'], [LEGACY], ['pods/eviction']),
    // Secret and configmap volumes and env, image pull secrets.
    resourceRule(['get', 'list', 'watch'], [LEGACY], ['secrets', 'configmaps']),
    // Persistent volumes.
    resourceRule(['get'], [LEGACY], ['persistentvolumeclaims', 'persistentvolumes']),
    // Rotating its own client certificate.
    resourceRule(['create', 'get', 'list', 'watch'], [CERTIFICATES], ['certificatesigningrequests']),
    // Volume expansion status.
    resourceRule(['get', 'update', 'patch'], [LEGACY], ['persistentvolumeclaims/status']),
    // Tokens for the service accounts of its pods.
    resourceRule(['create'], [LEGACY], ['serviceaccounts/token']),
  ];
}

export function defaultClusterRoles(): ClusterRole[] {
  const roles: RoleSpec[] = [
    {
      // A "root" role which can do absolutely anything.
      name: 'cluster-admin',
      rules: [resourceRule(['*'], ['*'], ['*']), urlRule(['*'], ['*'])],
    },
    {
      // Enough to learn whether the server is ready and which APIs it serves.
      name: 'system:discovery',
      rules: [
        urlRule(['get'], ['/livez', '/readyz', '/healthz', '/version', '/version/', '/openapi', '/openapi/*', '/api', '/api/*', '/apis', '/apis/*']),
      ],
    },
    {
      name: 'system:monitoring',
      rules: [urlRule(['get'], ['/metrics', '/metrics/slis', '/livez', '/readyz', '/healthz', '/livez/*', '/readyz/*', '/healthz/*'])],
    },
    {
      // What every user may ask about themselves.
      name: 'system:basic-user',
      rules: [
        resourceRule(['create'], [AUTHORIZATION], ['selfsubjectaccessreviews', 'selfsubjectrulesreviews']),
        resourceRule(['create'], [AUTHENTICATION], ['selfsubjectreviews']),
      ],
    },
    {
      // Non-sensitive cluster information, open to everyone.
      name: 'system:public-info-viewer',
      // kube's rules plus the API page's and the access explorer's files, which say nothing
      // about the server (the documents and answers the pages read need their own rights).
      rules: [urlRule(['get'], ['/livez', '/readyz', '/healthz', '/version', '/version/', '/openapi/ui', '/openapi/ui/*', '/access', '/access/*'])],
    },
    // The user-facing roles are aggregated; kube chains them through their own labels:
    // view carries aggregate-to-edit and edit carries aggregate-to-admin, so view ⊂ edit ⊂ admin.
    { name: 'admin', aggregateFrom: AGGREGATE_TO_ADMIN },
    { name: 'edit', labels: { [AGGREGATE_TO_ADMIN]: 'true' }, aggregateFrom: AGGREGATE_TO_EDIT },
    { name: 'view', labels: { [AGGREGATE_TO_EDIT]: 'true' }, aggregateFrom: AGGREGATE_TO_VIEW },
    {
      // What admin adds to edit: managing roles and bindings in the namespace.
      name: 'system:aggregate-to-admin',
      labels: { [AGGREGATE_TO_ADMIN]: 'true' },
      rules: [
        resourceRule(['create'], [AUTHORIZATION], ['localsubjectaccessreviews']),
        resourceRule(READ_WRITE, [RBAC_GROUP], ['roles', 'rolebindings']),
      ],
    },
    {
      // What edit adds to view: writing namespaced objects, reading secrets, acting as the
      // namespace's service accounts. The chain also runs through these labels, so admin
      // keeps them even if edit itself is changed.
      name: 'system:aggregate-to-edit',
      labels: { [AGGREGATE_TO_EDIT]: 'true', [AGGREGATE_TO_ADMIN]: 'true' },
      rules: [
        // Read access to escalating resources.
        resourceRule(READ, [LEGACY], ['pods/attach', 'pods/proxy', 'pods/exec', 'pods/portforward', 'secrets']),
        resourceRule(['impersonate'], [LEGACY], ['serviceaccounts']),
        resourceRule(WRITE, [LEGACY], ['pods', 'pods/attach', 'pods/proxy', 'pods/exec', 'pods/portforward']),
        resourceRule(['create'], [LEGACY], ['pods/eviction']),
        resourceRule(WRITE, [LEGACY], ['serviceaccounts', 'persistentvolumeclaims', 'configmaps', 'secrets']),
        resourceRule(['create'], [LEGACY], ['serviceaccounts/token']),
      ],
    },
    {
      // Read-only access to non-escalating namespaced objects: no secrets, roles or bindings.
      name: 'system:aggregate-to-view',
      labels: { [AGGREGATE_TO_VIEW]: 'true', [AGGREGATE_TO_EDIT]: 'true' },
      rules: [
        resourceRule(READ, [LEGACY], ['pods', 'serviceaccounts', 'persistentvolumeclaims', 'persistentvolumeclaims/status', 'configmaps']),
        resourceRule(READ, [LEGACY], ['pods/status', 'namespaces/status', 'pods/log']),
        // Reading namespaces at namespace scope means reading *this* namespace.
        resourceRule(READ, [LEGACY], ['namespaces']),
      ],
    },
    { name: 'system:node', rules: nodeRules() },
    {
      // A node bootstrapping its client certificate.
      name: 'system:node-bootstrapper',
      rules: [resourceRule(['create', 'get', 'list', 'watch'], [CERTIFICATES], ['certificatesigningrequests'])],
    },
    {
      // Service-account issuer discovery: what verifies this server's tokens elsewhere.
      name: 'system:service-account-issuer-discovery',
      rules: [urlRule(['get'], ['/.well-known/openid-configuration', '/.well-known/openid-configuration/', '/openid/v1/jwks', '/openid/v1/jwks/'])],
    },
    {
      // Delegating authentication and authorization checks to this server.
      name: 'system:auth-delegator',
      rules: [resourceRule(['create'], [AUTHENTICATION], ['tokenreviews']), resourceRule(['create'], [AUTHORIZATION], ['subjectaccessreviews'])],
    },
    {
      // Access analysis (who can, what can, why). Not aggregated into admin, edit or view:
      // the answers disclose other subjects' permissions.
      name: 'access-reviewer',
      rules: [
        resourceRule(['create'], [ACCESS], ['resourceaccessreviews', 'localresourceaccessreviews', 'subjectrulesreviews', 'accessexplanations']),
        // Which bindings are used: read-only, derived from every binding.
        resourceRule(['get', 'list'], [ACCESS], ['bindingusages']),
        // What a proposed RBAC change would grant and take away (discloses every subject's grants, as the reviews above do).
        resourceRule(['create'], [ACCESS], ['policychangereviews']),
        resourceRule(['get', 'list'], [ACCESS], ['ruleusages', 'accessdenials', 'accessfindings']),
        resourceRule(['create'], [ACCESS], ['accesssuggestions']),
        // Escalation paths are questions like the reviews; guardrails are read, never written, by reviewers.
        resourceRule(['create'], [ACCESS], ['escalationpathreviews']),
        resourceRule(['get', 'list', 'watch'], [ACCESS], ['accessguardrails']),
        // A namespace's access matrix: one who-can per cell, asked at once.
        resourceRule(['create'], [ACCESS], ['accessmatrixreviews']),
        // Who gained and lost what, through which change: history of every subject's grants.
        resourceRule(['get', 'list', 'watch'], [ACCESS], ['accesschanges']),
      ],
    },
    {
      // Asking for access: aggregated into edit, so whoever edits a namespace may ask for
      // more in it (a policy still decides what may be asked for and who approves).
      name: 'access-requester',
      labels: { [AGGREGATE_TO_EDIT]: 'true' },
      rules: [
        resourceRule(['create', 'get', 'list', 'watch'], [ACCESS], ['accessrequests', 'clusteraccessrequests']),
        // Only the requester may cancel a request: the cancellation subresource checks who calls.
        resourceRule(['update'], [ACCESS], ['accessrequests/cancellation', 'clusteraccessrequests/cancellation']),
        resourceRule(['get', 'list', 'watch'], [ACCESS], ['accessrequestpolicies']),
      ],
    },
    {
      // Deciding on access requests. Not aggregated: approving also needs the approver to be
      // named by the request's policy and able to grant the role.
      name: 'access-approver',
      rules: [
        resourceRule(['get', 'list', 'watch'], [ACCESS], ['accessrequests', 'clusteraccessrequests', 'accessrequestpolicies']),
        resourceRule(['update'], [ACCESS], ['accessrequests/approval', 'clusteraccessrequests/approval']),
      ],
    },
  ];
  return [...roles.map(clusterRole), ...controllerRoles().map((r) => clusterRole({ name: r.metadata.name!, rules: r.rules ?? [] }))];
}

export function defaultClusterRoleBindings(): ClusterRoleBinding[] {
  return [
    clusterRoleBinding('cluster-admin', [group(SYSTEM_MASTERS)]),
    clusterRoleBinding('system:monitoring', [group('system:monitoring')]),
    clusterRoleBinding('system:discovery', [group(ALL_AUTHENTICATED)]),
    clusterRoleBinding('system:basic-user', [group(ALL_AUTHENTICATED)]),
    clusterRoleBinding('system:public-info-viewer', [group(ALL_AUTHENTICATED), group(ALL_UNAUTHENTICATED)]),
    clusterRoleBinding('system:service-account-issuer-discovery', [group('system:serviceaccounts')]),
    // Deprecated since the Node authorizer; kept without subjects as kube does.
    clusterRoleBinding('system:node', []),
    ...controllerRoles().map((r) => clusterRoleBinding(r.metadata.name!, [user(r.metadata.name!)])),
  ];
}
