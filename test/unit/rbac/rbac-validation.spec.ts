import { FieldError, fieldErrorMessage, FieldPath } from '../../../src/apimachinery/field-errors';
import {
  hasInvalidLabelValueInLabelSelector,
  isValidNonResourceURLWildcard,
  validateClusterRole,
  validateClusterRoleBinding,
  validateClusterRoleBindingUpdate,
  validateClusterRoleUpdate,
  validatePolicyRule,
  validateRole,
  validateRoleBinding,
  validateRoleBindingSubject,
  validateRoleBindingUpdate,
  validateRoleUpdate,
} from '../../../src/rbac/kinds/rbac-validation';
import { ClusterRole, PolicyRule, RBAC_GROUP, RoleBinding, Subject } from '../../../src/apis/rbac/types';
import { roleBindingSchema, roleSchema } from '../../../src/rbac/kinds/schemas';
import { StructSchema } from '../../../src/runtime/schema/schema';
import { valueToDoc } from '../../../src/runtime/document/document';
import { decodeBySchema } from '../../../src/runtime/schema/schema-decoder';

/** The type error decoding a body into an RBAC kind gives (kube's 400 before validation). */
const decodeRbac = (schema: StructSchema, body: unknown) =>
  decodeBySchema(valueToDoc(body), schema, { strict: true, dialect: 'json', rootTypeName: 'v1.Unused' }).typeError;

const messages = (errs: FieldError[]) => errs.map(fieldErrorMessage);
const types = (errs: FieldError[]) => errs.map((e) => e.type);
const rule0 = FieldPath.root('rules').index(0);
const ref = (kind: string, name = 'r', apiGroup = RBAC_GROUP) => ({ apiGroup, kind, name });
const meta = { name: 'x', namespace: 'default' };

const DNS_SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

describe('validatePolicyRule', () => {
  const ok: PolicyRule[] = [
    { verbs: ['get'], apiGroups: [''], resources: ['pods'] },
    { verbs: ['*'], apiGroups: ['*'], resources: ['*'], resourceNames: ['a'] },
    { verbs: ['get'], apiGroups: ['apps'], resources: ['deployments/scale'] },
  ];
  it.each(ok.map((r) => [JSON.stringify(r), r] as const))('accepts resource rule %s', (_s, rule) => {
    expect(validatePolicyRule(rule, true, rule0)).toEqual([]);
  });

  it.each(['/healthz', '*', '/apis/*', '/*', '/version/'])('accepts non-resource URL %j in a cluster rule', (url) => {
    expect(validatePolicyRule({ verbs: ['get'], nonResourceURLs: [url] }, false, rule0)).toEqual([]);
  });

  it('requires verbs', () => {
    const errs = validatePolicyRule({ verbs: [], apiGroups: [''], resources: ['pods'] }, false, rule0);
    expect(messages(errs)).toEqual(['rules[0].verbs: Required value: verbs must contain at least one value']);
    expect(types(errs)).toEqual(['FieldValueRequired']);
  });

  it('a resource rule needs apiGroups and resources', () => {
    const errs = validatePolicyRule({ verbs: ['get'] }, false, rule0);
    expect(messages(errs)).toEqual([
      'rules[0].apiGroups: Required value: resource rules must supply at least one api group',
      'rules[0].resources: Required value: resource rules must supply at least one resource',
    ]);
    expect(types(errs)).toEqual(['FieldValueRequired', 'FieldValueRequired']);
  });

  it('namespaced rules cannot use non-resource URLs', () => {
    const errs = validatePolicyRule({ verbs: ['get'], nonResourceURLs: ['/healthz'] }, true, rule0);
    expect(messages(errs)).toEqual(['rules[0].nonResourceURLs: Invalid value: ["/healthz"]: namespaced rules cannot apply to non-resource URLs']);
    expect(types(errs)).toEqual(['FieldValueInvalid']);
  });

  it.each([
    ['apiGroups', { apiGroups: [''] }],
    ['resources', { resources: ['pods'] }],
    ['resourceNames', { resourceNames: ['x'] }],
  ])('a rule cannot mix non-resource URLs and %s', (_name, extra) => {
    const errs = validatePolicyRule({ verbs: ['get'], nonResourceURLs: ['/x'], ...extra }, false, rule0);
    expect(messages(errs)).toEqual([
      'rules[0].nonResourceURLs: Invalid value: ["/x"]: rules cannot apply to both regular resources and non-resource URLs',
    ]);
  });

  it.each(['/api/*/x', '/api*', '**', '/a/**', '*/x'])('refuses %j: * only alone or as the last whole segment', (url) => {
    const errs = validatePolicyRule({ verbs: ['get'], nonResourceURLs: ['/ok', url] }, false, rule0);
    expect(messages(errs)).toEqual([
      `rules[0].nonResourceURLs[1]: Invalid value: ${JSON.stringify(url)}: '*' is only allowed alone or as the last whole path segment (e.g. '/apis/*')`,
    ]);
    expect(types(errs)).toEqual(['FieldValueInvalid']);
  });

  it('isValidNonResourceURLWildcard', () => {
    expect(isValidNonResourceURLWildcard('/a/b')).toBe(true);
    expect(isValidNonResourceURLWildcard('/a/*')).toBe(true);
    expect(isValidNonResourceURLWildcard('/a*')).toBe(false);
  });
});

describe('validateRole', () => {
  it('accepts a role without rules and one with resource rules', () => {
    expect(validateRole({ metadata: meta })).toEqual([]);
    expect(validateRole({ metadata: meta, rules: [] })).toEqual([]);
    expect(validateRole({ metadata: meta, rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }] })).toEqual([]);
  });

  it('validates every rule as namespaced', () => {
    const errs = validateRole({
      metadata: meta,
      rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }, { verbs: ['get'], nonResourceURLs: ['/healthz'] }],
    });
    expect(messages(errs)).toEqual(['rules[1].nonResourceURLs: Invalid value: ["/healthz"]: namespaced rules cannot apply to non-resource URLs']);
  });

  it('wrongly typed rules are a decode error (400) naming the Go field and type', () => {
    expect(decodeRbac(roleSchema, { metadata: meta, rules: [{ verbs: 'get', apiGroups: [''], resources: ['pods'] }] })).toBe(
      'json: cannot unmarshal string into Go struct field PolicyRule.rules.verbs of type []string',
    );
    expect(decodeRbac(roleSchema, { metadata: meta, rules: {} })).toBe('json: cannot unmarshal object into Go struct field Role.rules of type []v1.PolicyRule');
    // Called directly with such values, validation reads them as empty and does not throw.
    expect(messages(validateRole({ metadata: meta, rules: [{ verbs: 'get', apiGroups: [''], resources: ['pods'] }] } as never))).toEqual([
      'rules[0].verbs: Required value: verbs must contain at least one value',
    ]);
  });

  it('update applies the same rules', () => {
    expect(validateRoleUpdate({ metadata: meta, rules: [{ verbs: [] } as never] }, { metadata: meta })).toHaveLength(3);
  });
});

describe('validateClusterRole', () => {
  const cr = (extra: Partial<ClusterRole>): ClusterRole => ({ metadata: { name: 'c' }, ...extra });

  it('allows non-resource URLs', () => {
    expect(validateClusterRole(cr({ rules: [{ verbs: ['get'], nonResourceURLs: ['/healthz', '/apis/*'] }] }))).toEqual([]);
  });

  it('validates rules as cluster rules', () => {
    expect(messages(validateClusterRole(cr({ rules: [{ verbs: ['get'], apiGroups: [''] }] })))).toEqual([
      'rules[0].resources: Required value: resource rules must supply at least one resource',
    ]);
  });

  it('accepts an aggregation rule with valid selectors', () => {
    const aggregationRule = {
      clusterRoleSelectors: [
        { matchLabels: { 'rbac.authorization.platform.io/aggregate-to-view': 'true' } },
        { matchExpressions: [{ key: 'a', operator: 'Exists' }] },
      ],
    };
    expect(validateClusterRole(cr({ aggregationRule }))).toEqual([]);
    expect(validateClusterRole(cr({ aggregationRule: null }))).toEqual([]);
  });

  it('an aggregation rule needs at least one selector', () => {
    for (const aggregationRule of [{}, { clusterRoleSelectors: [] }]) {
      const errs = validateClusterRole(cr({ aggregationRule }));
      expect(messages(errs)).toEqual([
        'aggregationRule.clusterRoleSelectors: Required value: at least one clusterRoleSelector required if aggregationRule is non-nil',
      ]);
      expect(types(errs)).toEqual(['FieldValueRequired']);
    }
  });

  it('reports a bad operator and that the selector cannot be built', () => {
    const aggregationRule = { clusterRoleSelectors: [{ matchExpressions: [{ key: 'a', operator: 'Near', values: ['b'] }] }] };
    expect(messages(validateClusterRole(cr({ aggregationRule })))).toEqual([
      'aggregationRule.clusterRoleSelectors[0].matchExpressions[0].operator: Invalid value: "Near": not a valid selector operator',
      'aggregationRule.clusterRoleSelectors[0]: Invalid value: "null": invalid label selector.',
    ]);
  });

  it('reports values that In needs and Exists forbids', () => {
    const aggregationRule = {
      clusterRoleSelectors: [{ matchExpressions: [{ key: 'a', operator: 'In' }] }, { matchExpressions: [{ key: 'a', operator: 'DoesNotExist', values: ['x'] }] }],
    };
    const errs = validateClusterRole(cr({ aggregationRule }));
    expect(messages(errs)).toEqual([
      "aggregationRule.clusterRoleSelectors[0].matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
      'aggregationRule.clusterRoleSelectors[0]: Invalid value: "null": invalid label selector.',
      "aggregationRule.clusterRoleSelectors[1].matchExpressions[0].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
      'aggregationRule.clusterRoleSelectors[1]: Invalid value: "null": invalid label selector.',
    ]);
  });

  it('reports bad matchLabels on the map', () => {
    const errs = validateClusterRole(cr({ aggregationRule: { clusterRoleSelectors: [{ matchLabels: { 'bad key!': 'true' } }] } }));
    expect(errs.map((e) => e.field)).toEqual(['aggregationRule.clusterRoleSelectors[0].matchLabels', 'aggregationRule.clusterRoleSelectors[0]']);
  });

  it('on update tolerates bad selector values only if the stored role already had them', () => {
    const bad = cr({ aggregationRule: { clusterRoleSelectors: [{ matchExpressions: [{ key: 'a', operator: 'In', values: ['not ok'] }] }] } });
    const good = cr({ aggregationRule: { clusterRoleSelectors: [{ matchLabels: { a: 'b' } }] } });
    expect(hasInvalidLabelValueInLabelSelector(bad)).toBe(true);
    expect(hasInvalidLabelValueInLabelSelector(good)).toBe(false);
    expect(validateClusterRoleUpdate(bad, good).map((e) => e.field)).toEqual([
      'aggregationRule.clusterRoleSelectors[0].matchExpressions[0].values[0]',
      'aggregationRule.clusterRoleSelectors[0]',
    ]);
    expect(validateClusterRoleUpdate(bad, bad).map((e) => e.field)).toEqual(['aggregationRule.clusterRoleSelectors[0]']);
  });
});

describe('validateRoleBindingSubject', () => {
  const s0 = FieldPath.root('subjects').index(0);
  const check = (subject: Partial<Subject>, namespaced = true) => validateRoleBindingSubject(subject as Subject, namespaced, s0);

  it('accepts users, groups and service accounts', () => {
    expect(check({ kind: 'User', apiGroup: RBAC_GROUP, name: 'alice@example.com' })).toEqual([]);
    expect(check({ kind: 'Group', apiGroup: RBAC_GROUP, name: 'system:authenticated' })).toEqual([]);
    expect(check({ kind: 'ServiceAccount', apiGroup: '', name: 'builder', namespace: 'ci' }, false)).toEqual([]);
    expect(check({ kind: 'ServiceAccount', name: 'builder' }, true)).toEqual([]);
  });

  it('requires a name', () => {
    const errs = check({ kind: 'User', apiGroup: RBAC_GROUP, name: '' });
    expect(messages(errs)).toEqual(['subjects[0].name: Required value']);
    expect(types(errs)).toEqual(['FieldValueRequired']);
  });

  it('rejects unknown kinds', () => {
    const errs = check({ kind: 'Robot', name: 'r2' });
    expect(messages(errs)).toEqual(['subjects[0].kind: Unsupported value: "Robot": supported values: "ServiceAccount", "User", "Group"']);
    expect(types(errs)).toEqual(['FieldValueNotSupported']);
  });

  it.each(['User', 'Group'])('%s subjects belong to the RBAC group', (kind) => {
    const errs = check({ kind, apiGroup: 'example.com', name: 'n' });
    expect(messages(errs)).toEqual([`subjects[0].apiGroup: Unsupported value: "example.com": supported values: "${RBAC_GROUP}"`]);
    expect(types(errs)).toEqual(['FieldValueNotSupported']);
  });

  it('service accounts take no apiGroup', () => {
    const errs = check({ kind: 'ServiceAccount', apiGroup: RBAC_GROUP, name: 'sa', namespace: 'default' });
    expect(messages(errs)).toEqual([`subjects[0].apiGroup: Unsupported value: "${RBAC_GROUP}": supported values: ""`]);
  });

  it('service account names are DNS subdomains', () => {
    const errs = check({ kind: 'ServiceAccount', name: 'Not_Valid', namespace: 'default' });
    expect(messages(errs)).toEqual([`subjects[0].name: Invalid value: "Not_Valid": ${DNS_SUBDOMAIN_MSG}`]);
    expect(types(errs)).toEqual(['FieldValueInvalid']);
  });

  it('service accounts need a namespace only in cluster-wide bindings', () => {
    expect(messages(check({ kind: 'ServiceAccount', name: 'sa' }, false))).toEqual(['subjects[0].namespace: Required value']);
    expect(check({ kind: 'ServiceAccount', name: 'sa' }, true)).toEqual([]);
  });
});

describe('validateRoleBinding and validateClusterRoleBinding', () => {
  const rb = (extra: Partial<RoleBinding>): RoleBinding => ({ metadata: meta, roleRef: ref('Role'), ...extra });

  it('accepts valid bindings', () => {
    expect(validateRoleBinding(rb({ subjects: [{ kind: 'User', apiGroup: RBAC_GROUP, name: 'alice' }] }))).toEqual([]);
    expect(validateRoleBinding(rb({ roleRef: ref('ClusterRole', 'view') }))).toEqual([]);
    expect(validateClusterRoleBinding({ metadata: { name: 'c' }, roleRef: ref('ClusterRole', 'cluster-admin') })).toEqual([]);
  });

  it('roleRef.apiGroup must be the RBAC group', () => {
    const errs = validateRoleBinding(rb({ roleRef: ref('Role', 'r', 'example.com') }));
    expect(messages(errs)).toEqual([`roleRef.apiGroup: Unsupported value: "example.com": supported values: "${RBAC_GROUP}"`]);
    expect(types(errs)).toEqual(['FieldValueNotSupported']);
  });

  it('a RoleBinding references a Role or a ClusterRole', () => {
    expect(messages(validateRoleBinding(rb({ roleRef: ref('Robot') })))).toEqual([
      'roleRef.kind: Unsupported value: "Robot": supported values: "Role", "ClusterRole"',
    ]);
  });

  it('a ClusterRoleBinding references only a ClusterRole', () => {
    const errs = validateClusterRoleBinding({ metadata: { name: 'c' }, roleRef: ref('Role') });
    expect(messages(errs)).toEqual(['roleRef.kind: Unsupported value: "Role": supported values: "ClusterRole"']);
  });

  it('roleRef.name is required and a path segment', () => {
    expect(messages(validateRoleBinding(rb({ roleRef: ref('Role', '') })))).toEqual(['roleRef.name: Required value']);
    const errs = validateRoleBinding(rb({ roleRef: ref('Role', 'a/b') }));
    expect(messages(errs)).toEqual([`roleRef.name: Invalid value: "a/b": may not contain '/'`]);
    expect(types(errs)).toEqual(['FieldValueInvalid']);
  });

  it('a missing roleRef reports every field', () => {
    expect(validateRoleBinding({ metadata: meta } as RoleBinding).map((e) => e.field)).toEqual([
      'roleRef.apiGroup',
      'roleRef.kind',
      'roleRef.name',
    ]);
  });

  it('reports every error at once', () => {
    const errs = validateClusterRoleBinding({
      metadata: { name: 'many' },
      roleRef: { apiGroup: 'x', kind: 'Role', name: '' },
      subjects: [{ kind: 'Robot', name: '' }],
    });
    expect(errs.map((e) => e.field)).toEqual(['roleRef.apiGroup', 'roleRef.kind', 'roleRef.name', 'subjects[0].name', 'subjects[0].kind']);
  });

  it('validates subjects with the binding scope', () => {
    const subjects = [{ kind: 'ServiceAccount', name: 'sa' }];
    expect(validateRoleBinding(rb({ subjects }))).toEqual([]);
    expect(messages(validateClusterRoleBinding({ metadata: { name: 'c' }, roleRef: ref('ClusterRole'), subjects }))).toEqual([
      'subjects[0].namespace: Required value',
    ]);
  });

  it('wrongly typed fields are a decode error (400): the first one, as Go reports it', () => {
    expect(decodeRbac(roleBindingSchema, { metadata: meta, roleRef: 'view', subjects: [{ kind: 'User', name: 7 }] })).toBe(
      'json: cannot unmarshal string into Go struct field RoleBinding.roleRef of type v1.RoleRef',
    );
    expect(decodeRbac(roleBindingSchema, { metadata: meta, subjects: [{ kind: 'User', name: 7 }] })).toBe(
      'json: cannot unmarshal number into Go struct field Subject.subjects.name of type string',
    );
  });
});

describe('binding updates', () => {
  const old: RoleBinding = { metadata: meta, roleRef: ref('ClusterRole', 'view'), subjects: [{ kind: 'User', apiGroup: RBAC_GROUP, name: 'bob' }] };

  it('subjects may change', () => {
    expect(validateRoleBindingUpdate({ ...old, subjects: [] }, old)).toEqual([]);
    expect(validateClusterRoleBindingUpdate({ ...old, subjects: [] }, old)).toEqual([]);
  });

  it.each([
    ['name', ref('ClusterRole', 'edit')],
    ['kind', ref('Role', 'view')],
  ])('roleRef.%s may not change', (_field, roleRef) => {
    const errs = validateRoleBindingUpdate({ ...old, roleRef }, old);
    expect(messages(errs)).toEqual([
      `roleRef: Invalid value: {"apiGroup":"${RBAC_GROUP}","kind":"${roleRef.kind}","name":"${roleRef.name}"}: cannot change roleRef`,
    ]);
    expect(types(errs)).toEqual(['FieldValueInvalid']);
  });

  it('a ClusterRoleBinding roleRef may not change either', () => {
    const errs = validateClusterRoleBindingUpdate({ ...old, roleRef: ref('ClusterRole', 'edit') }, old);
    expect(errs.map((e) => [e.field, e.detail])).toEqual([['roleRef', 'cannot change roleRef']]);
  });
});
