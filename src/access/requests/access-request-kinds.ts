import { ALL_STORAGE_VERBS, ResourceStrategy, ResourceType, StrategyContext } from '../../runtime/schema/resource-type';
import { validatePathSegmentName } from '../../apimachinery/validation/names';
import { isPlainObject, KubeObject } from '../../apimachinery/types';
import { ageColumn, nameColumn } from '../../runtime/table/columns';
import { RBAC_GROUP } from '../../apis/rbac/types';
import { ACCESS_GROUP, ACCESS_VERSION } from '../access-types';
import { accessRequestPolicySchema, accessRequestSchema, clusterAccessRequestSchema } from './access-request-schemas';
import { AccessRequest, AccessRequestPolicy, PHASES } from './access-request-types';
import { validateAccessRequest, validateAccessRequestPolicy, validateAccessRequestUpdate } from './access-request-validation';
import { fieldErrors, FieldPath } from '../../apimachinery/field-errors';

/**
 * AccessRequestPolicy, AccessRequest and ClusterAccessRequest as the generic layer serves
 * them (every storage verb, Table, apply, watch), and the request kinds' `status` and
 * `approval` subresources.
 */

const DEFAULT_MAX_DURATION = '1h';

function dropStatus(obj: KubeObject): void {
  delete obj.status;
}

function defaultPolicy(policy: AccessRequestPolicy): void {
  dropStatus(policy);
  if (!isPlainObject(policy.spec)) return;
  policy.spec.requiredApprovals ??= 1;
  policy.spec.maxDuration ??= DEFAULT_MAX_DURATION;
}

const policyStrategy: ResourceStrategy<AccessRequestPolicy> = {
  allowCreateOnUpdate: true,
  allowUnconditionalUpdate: true,
  prepareForCreate: defaultPolicy,
  prepareForUpdate: defaultPolicy,
  validate: (policy) => validateAccessRequestPolicy(policy),
  validateUpdate: (policy) => validateAccessRequestPolicy(policy),
};

/** The requester is who the server authenticated, never what the body says (kube's CSR spec.username). */
function requesterOf(ctx: StrategyContext): AccessRequest['spec']['requester'] {
  const { username, uid, groups, extra } = ctx.user;
  const requester: NonNullable<AccessRequest['spec']['requester']> = { username, groups: [...groups] };
  if (uid) requester.uid = uid;
  if (extra && Object.keys(extra).length) requester.extra = extra;
  return requester;
}

function defaultRoleRef(request: AccessRequest): void {
  if (isPlainObject(request.spec?.roleRef) && !request.spec.roleRef.apiGroup) request.spec.roleRef.apiGroup = RBAC_GROUP;
}

function requestStrategy(clusterScoped: boolean): ResourceStrategy<AccessRequest> {
  return {
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: true,
    prepareForCreate: (request, ctx) => {
      if (isPlainObject(request.spec)) request.spec.requester = requesterOf(ctx);
      defaultRoleRef(request);
      request.status = { phase: 'Pending' };
    },
    prepareForUpdate: (request, old) => {
      // The status is written through the status and approval subresources only.
      request.status = old.status;
      defaultRoleRef(request);
      // A body without the requester (an apply, a hand-written PUT) leaves it as it is.
      if (isPlainObject(request.spec) && request.spec.requester === undefined) request.spec.requester = old.spec.requester;
    },
    validate: (request) => validateAccessRequest(request, clusterScoped),
    validateUpdate: (request, old) => [...validateAccessRequest(request, clusterScoped), ...validateAccessRequestUpdate(request, old)],
  };
}

/**
 * The status subresource (the controller's): only the status of the body counts; spec and
 * metadata stay as stored, as kube's status strategies reset them.
 */
const statusStrategy: ResourceStrategy<AccessRequest> = {
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  prepareForUpdate: (request, old) => {
    request.spec = old.spec;
    for (const key of ['labels', 'annotations', 'finalizers', 'ownerReferences'] as const) {
      if (old.metadata[key] === undefined) delete request.metadata[key];
      else (request.metadata as Record<string, unknown>)[key] = old.metadata[key];
    }
  },
  validate: () => [],
  validateUpdate: (request) => {
    const phase = request.status?.phase;
    if (phase !== undefined && !(PHASES as readonly string[]).includes(phase)) return [fieldErrors.notSupported(FieldPath.root('status').child('phase'), phase, [...PHASES])];
    return [];
  },
};

const roleOf = (r: AccessRequest) => `${r.spec?.roleRef?.kind ?? ''}/${r.spec?.roleRef?.name ?? ''}`;

function requestTable(clusterScoped: boolean): ResourceType<AccessRequest>['table'] {
  return {
    columns: [
      nameColumn,
      { name: 'Requester', type: 'string', description: 'The user who made the request.', cell: (r) => r.spec?.requester?.username ?? '' },
      { name: 'Role', type: 'string', description: 'The role requested.', cell: roleOf },
      {
        name: 'Scope',
        type: 'string',
        description: 'Where the role is granted: the namespace, or the cluster.',
        cell: (r) => (clusterScoped ? '<cluster>' : (r.metadata.namespace ?? '')),
      },
      { name: 'Duration', type: 'string', description: 'How long the access lasts once approved.', cell: (r) => r.spec?.duration ?? '' },
      { name: 'Phase', type: 'string', description: 'Pending, Approved, Active, Expired, Denied, Revoked or Canceled.', cell: (r) => r.status?.phase ?? '' },
      { name: 'Approvals', type: 'integer', description: 'How many approvals the request has.', cell: (r) => r.status?.approvals?.length ?? 0 },
      ageColumn,
      { name: 'Policy', type: 'string', priority: 1, description: 'The AccessRequestPolicy that allowed the request.', cell: (r) => r.status?.policy ?? '' },
      { name: 'Valid Until', type: 'string', priority: 1, description: 'When the access ends.', cell: (r) => r.status?.validUntil ?? '' },
      { name: 'Justification', type: 'string', priority: 1, description: 'Why the access is needed.', cell: (r) => r.spec?.justification ?? '' },
    ],
  };
}

function accessType<T extends KubeObject>(
  kind: string,
  plural: string,
  namespaced: boolean,
  schema: ResourceType['schema'],
  strategy: ResourceStrategy<T>,
  table: ResourceType<T>['table'],
): ResourceType<T> {
  return {
    group: ACCESS_GROUP,
    version: ACCESS_VERSION,
    kind,
    listKind: `${kind}List`,
    plural,
    singular: kind.toLowerCase(),
    shortNames: [],
    categories: ['access'],
    namespaced,
    verbs: [...ALL_STORAGE_VERBS],
    nameValidator: validatePathSegmentName,
    schema,
    strategy,
    table,
  };
}

export const accessRequestPolicyType = accessType<AccessRequestPolicy>('AccessRequestPolicy', 'accessrequestpolicies', false, accessRequestPolicySchema, policyStrategy, {
  columns: [
    nameColumn,
    {
      name: 'Roles',
      type: 'string',
      description: 'The roles that may be requested.',
      cell: (p) => (p.spec?.roles ?? []).map((r) => `${r.kind}/${r.names?.length ? r.names.join('|') : '<selector>'}`).join(', '),
    },
    { name: 'Required Approvals', type: 'integer', description: 'How many distinct approvers must approve.', cell: (p) => p.spec?.requiredApprovals ?? 1 },
    { name: 'Max Duration', type: 'string', description: 'The longest duration a request may ask for.', cell: (p) => p.spec?.maxDuration ?? '' },
    ageColumn,
  ],
});

export const accessRequestType = accessType<AccessRequest>('AccessRequest', 'accessrequests', true, accessRequestSchema, requestStrategy(false), requestTable(false));

export const clusterAccessRequestType = accessType<AccessRequest>(
  'ClusterAccessRequest',
  'clusteraccessrequests',
  false,
  clusterAccessRequestSchema,
  requestStrategy(true),
  requestTable(true),
);

export const ACCESS_REQUEST_TYPES = [accessRequestType, clusterAccessRequestType];

/** The `status` subresource of a request kind: same kind and key, its own strategy, get and update. */
export function statusSubresourceType(parent: ResourceType<AccessRequest>): ResourceType<AccessRequest> {
  return { ...parent, verbs: ['get', 'update'], strategy: statusStrategy };
}

/**
 * The `approval` subresource (the body is the request with one more approval, denial or a
 * revocation) and the `cancellation` subresource (with a status.cancellation): the request kind, get and update.
 */
export function decisionSubresourceType(parent: ResourceType<AccessRequest>): ResourceType<AccessRequest> {
  return { ...parent, verbs: ['get', 'update'], strategy: statusStrategy };
}
