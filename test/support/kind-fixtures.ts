/**
 * A valid sample object of every kind the server serves, for the conformance suite
 * (test/e2e/conformance*.e2e-spec.ts). Keyed by `<apiVersion>/<Kind>`; the suite fails
 * naming any registered kind that has no entry here, so a new kind must bring its sample.
 */

export type Sample = Record<string, any>;

/** The body of a kind's sample: everything but apiVersion, kind and metadata. */
type SampleBody = () => Sample;

const RBAC = 'rbac.authorization.platform.io';
const AUTHZ = 'authorization.platform.io';
const AUTHN = 'authentication.platform.io';
const ACCESS = 'access.platform.io';

/** Kinds with the storage verbs: a body that validates, to which the suite adds metadata. */
export const STORED_KIND_SAMPLES: Record<string, SampleBody> = {
  [`${RBAC}/v1/Role`]: () => ({ rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }] }),
  [`${RBAC}/v1/ClusterRole`]: () => ({ rules: [{ nonResourceURLs: ['/healthz'], verbs: ['get'] }] }),
  [`${RBAC}/v1/RoleBinding`]: () => ({
    roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: 'view' },
    subjects: [{ kind: 'User', apiGroup: RBAC, name: 'alice' }],
  }),
  [`${RBAC}/v1/ClusterRoleBinding`]: () => ({
    roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: 'view' },
    subjects: [{ kind: 'Group', apiGroup: RBAC, name: 'devs' }],
  }),
  [`${ACCESS}/v1/AccessRequestPolicy`]: () => ({
    spec: { roles: [{ kind: 'ClusterRole', names: ['view'] }], namespaces: ['default'], requesters: [{ kind: 'Group', apiGroup: RBAC, name: 'devs' }], approvers: [{ kind: 'Group', apiGroup: RBAC, name: 'leads' }] },
  }),
  // Made by system:masters, which no policy needs to allow: it stays Pending.
  [`${ACCESS}/v1/AccessRequest`]: () => ({ spec: { roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: 'view' }, duration: '1h', justification: 'conformance' } }),
  [`${ACCESS}/v1/ClusterAccessRequest`]: () => ({ spec: { roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: 'view' }, duration: '1h' } }),
  'v1/Namespace': () => ({}),
  [`${ACCESS}/v1/AccessGuardrail`]: () => ({
    spec: { match: { verbs: ['get'], apiGroups: ['conformance.example'], resources: ['widgets'] }, message: 'conformance sample' },
  }),
  'v1/ConfigMap': () => ({ data: { key: 'value' } }),
  'v1/Secret': () => ({ type: 'Opaque', data: { key: Buffer.from('value').toString('base64') } }),
  'v1/ServiceAccount': () => ({}),
  'v1/Node': () => ({ spec: { podCIDR: '10.0.0.0/24' } }),
  'v1/Pod': () => ({ spec: { containers: [{ name: 'main', image: 'registry.example/app:1' }] } }),
  'v1/PersistentVolume': () => ({
    spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/srv/volume' } },
  }),
  'v1/PersistentVolumeClaim': () => ({
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
  }),
};

const resourceAttributes = { namespace: 'default', verb: 'get', group: RBAC, resource: 'roles' };

/** Create-only kinds (the reviews): a body that is answered 201, nothing stored. */
export const CREATE_ONLY_KIND_SAMPLES: Record<string, SampleBody> = {
  [`${AUTHZ}/v1/SubjectAccessReview`]: () => ({ spec: { user: 'alice', groups: ['devs'], resourceAttributes } }),
  [`${AUTHZ}/v1/SelfSubjectAccessReview`]: () => ({ spec: { resourceAttributes } }),
  [`${AUTHZ}/v1/LocalSubjectAccessReview`]: () => ({ spec: { user: 'alice', resourceAttributes } }),
  [`${AUTHZ}/v1/SelfSubjectRulesReview`]: () => ({ spec: { namespace: 'default' } }),
  [`${AUTHN}/v1/SelfSubjectReview`]: () => ({}),
  [`${AUTHN}/v1/TokenReview`]: () => ({ spec: { token: 'not-a-token' } }),
  [`${ACCESS}/v1/ResourceAccessReview`]: () => ({ spec: { resourceAttributes } }),
  [`${ACCESS}/v1/LocalResourceAccessReview`]: () => ({ spec: { resourceAttributes } }),
  [`${ACCESS}/v1/SubjectRulesReview`]: () => ({ spec: { user: 'alice', namespace: 'default' } }),
  [`${ACCESS}/v1/AccessExplanation`]: () => ({ spec: { user: 'alice', resourceAttributes } }),
  [`${ACCESS}/v1/PolicyChangeReview`]: () => ({
    spec: {
      changes: [
        {
          object: {
            apiVersion: 'rbac.authorization.platform.io/v1',
            kind: 'RoleBinding',
            metadata: { name: 'sample', namespace: 'default' },
            roleRef: { apiGroup: 'rbac.authorization.platform.io', kind: 'ClusterRole', name: 'view' },
            subjects: [{ kind: 'User', name: 'alice' }],
          },
        },
      ],
    },
  }),
  [`${ACCESS}/v1/AccessSuggestion`]: () => ({ spec: { subject: { kind: 'User', name: 'alice' }, since: '24h' } }),
  [`${ACCESS}/v1/EscalationPathReview`]: () => ({ spec: { subject: { user: 'alice' }, target: { clusterAdmin: true } } }),
  [`${ACCESS}/v1/AccessMatrixReview`]: () => ({ spec: { resources: [{ resource: 'pods' }, { group: 'apps', resource: 'deployments' }] } }),
};

/** Read-only kinds (get and list of objects the server derives, as bindingusages): nothing to sample. */
export const READ_ONLY_KINDS = [`${ACCESS}/v1/BindingUsage`, `${ACCESS}/v1/RuleUsage`, `${ACCESS}/v1/AccessDenial`, `${ACCESS}/v1/AccessFinding`, `${ACCESS}/v1/AccessChange`];

/** The key of a kind in the sample tables. */
export function kindKey(apiVersion: string, kind: string): string {
  return `${apiVersion}/${kind}`;
}
