import { FieldError, fieldErrorBody } from '../../../src/apimachinery/field-errors';
import { ResourceType, StrategyContext } from '../../../src/runtime/schema/resource-type';
import { KubeObject } from '../../../src/apimachinery/types';
import { validateObjectMeta, validateObjectMetaUpdate } from '../../../src/apimachinery/validation/object-meta';
import { SYSTEM_USER } from '../../../src/apimachinery/user-info';
import { clusterRoleBindingType, clusterRoleType, roleBindingType, roleType } from '../../../src/rbac/kinds/kinds';
import { setBindingDefaults } from '../../../src/rbac/kinds/strategies';
import { RBAC_GROUP } from '../../../src/apis/rbac/types';

const ctx: StrategyContext = { user: SYSTEM_USER, namespace: 'default', dryRun: false };
const ref = (kind: string, name = 'r') => ({ apiGroup: RBAC_GROUP, kind, name });

/** What the generic storage does on create: prepare, then metadata and kind validation. */
function create(type: ResourceType, body: Record<string, unknown>): { obj: KubeObject; errs: FieldError[] } {
  const obj = structuredClone(body) as KubeObject;
  obj.metadata = obj.metadata ?? {};
  if (type.namespaced) obj.metadata.namespace = obj.metadata.namespace ?? 'default';
  type.strategy.prepareForCreate?.(obj, ctx);
  const errs = [...validateObjectMeta(obj.metadata, { namespaced: type.namespaced, nameValidator: type.nameValidator }), ...type.strategy.validate(obj, ctx)];
  return { obj, errs };
}

function update(type: ResourceType, next: KubeObject, old: KubeObject): FieldError[] {
  const obj = structuredClone(next);
  type.strategy.prepareForUpdate?.(obj, old, ctx);
  return [
    ...validateObjectMetaUpdate(obj.metadata, old.metadata),
    ...validateObjectMeta(obj.metadata, { namespaced: type.namespaced, nameValidator: type.nameValidator }),
    ...type.strategy.validateUpdate(obj, old, ctx),
  ];
}

describe('RBAC resource types', () => {
  it.each([
    [roleType, 'Role', 'roles', true],
    [clusterRoleType, 'ClusterRole', 'clusterroles', false],
    [roleBindingType, 'RoleBinding', 'rolebindings', true],
    [clusterRoleBindingType, 'ClusterRoleBinding', 'clusterrolebindings', false],
  ] as const)('%#: %s', (type, kind, plural, namespaced) => {
    expect(type).toMatchObject({
      group: RBAC_GROUP,
      version: 'v1',
      kind,
      listKind: `${kind}List`,
      plural,
      singular: kind.toLowerCase(),
      shortNames: [],
      namespaced,
    });
    expect([...type.verbs].sort()).toEqual(['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch']);
    expect(type.strategy.allowCreateOnUpdate).toBe(true);
    expect(type.strategy.allowUnconditionalUpdate).toBe(true);
    expect(type.nameValidator('a/b', false)).toEqual(["may not contain '/'"]);
    expect(type.nameValidator('system:controller:x', false)).toEqual([]);
  });
});

describe('setBindingDefaults', () => {
  it('gives subjects their kind apiGroup and keeps explicit ones', () => {
    const binding = {
      metadata: {},
      roleRef: { kind: 'Role', name: 'r' },
      subjects: [
        { kind: 'User', name: 'alice' },
        { kind: 'Group', name: 'devs' },
        { kind: 'ServiceAccount', name: 'builder', namespace: 'default' },
        { kind: 'User', apiGroup: 'example.com', name: 'x' },
        { kind: 'Robot', name: 'r2' },
      ],
    };
    setBindingDefaults(binding);
    expect(binding.subjects).toEqual([
      { kind: 'User', apiGroup: RBAC_GROUP, name: 'alice' },
      { kind: 'Group', apiGroup: RBAC_GROUP, name: 'devs' },
      { kind: 'ServiceAccount', apiGroup: '', name: 'builder', namespace: 'default' },
      { kind: 'User', apiGroup: 'example.com', name: 'x' },
      { kind: 'Robot', name: 'r2' },
    ]);
    expect(binding.roleRef).toEqual(ref('Role'));
  });

  it('defaults a missing roleRef apiGroup and leaves wrongly typed values to validation', () => {
    const missing: KubeObject = { metadata: {} };
    setBindingDefaults(missing);
    expect(missing.roleRef).toEqual({ apiGroup: RBAC_GROUP });
    const wrong: KubeObject = { metadata: {}, roleRef: 'view', subjects: 'x' };
    setBindingDefaults(wrong);
    expect(wrong).toEqual({ metadata: {}, roleRef: 'view', subjects: 'x' });
  });
});

describe('RBAC strategies', () => {
  it('drop a client-sent status', () => {
    for (const [type, body] of [
      [roleType, { metadata: { name: 'r' }, rules: [], status: { x: 1 } }],
      [clusterRoleBindingType, { metadata: { name: 'b' }, roleRef: ref('ClusterRole'), status: {} }],
    ] as const) {
      const { obj, errs } = create(type, body);
      expect(errs).toEqual([]);
      expect(obj).not.toHaveProperty('status');
    }
  });

  it('defaults subjects on update too, so the roleRef comparison sees defaulted values', () => {
    const { obj: old } = create(roleBindingType, { metadata: { name: 'b', uid: 'u' }, roleRef: ref('Role'), subjects: [] });
    const next = { ...structuredClone(old), roleRef: { kind: 'Role', name: 'r' }, subjects: [{ kind: 'Group', name: 'ops' }] };
    expect(update(roleBindingType, next, old)).toEqual([]);
  });

  it('refuse a roleRef change on update', () => {
    const { obj: old } = create(clusterRoleBindingType, { metadata: { name: 'b' }, roleRef: ref('ClusterRole', 'view') });
    const errs = update(clusterRoleBindingType, { ...structuredClone(old), roleRef: ref('ClusterRole', 'edit') }, old);
    expect(errs.map((e) => [e.field, e.type, e.detail])).toEqual([['roleRef', 'FieldValueInvalid', 'cannot change roleRef']]);
  });
});

/** The cases the HTTP tests send, checked here without a server. */
const RULES_CASES: Array<[string, ResourceType, Record<string, unknown>, string, string, string]> = [
  ['Role name with a slash', roleType, { metadata: { name: 'a/b' }, rules: [] }, 'metadata.name', 'FieldValueInvalid', "may not contain '/'"],
  ['ClusterRole name ..', clusterRoleType, { metadata: { name: '..' }, rules: [] }, 'metadata.name', 'FieldValueInvalid', "may not be '..'"],
  ['ClusterRoleBinding name with %', clusterRoleBindingType, { metadata: { name: 'a%b' }, roleRef: ref('ClusterRole') }, 'metadata.name', 'FieldValueInvalid', "may not contain '%'"],
  ['RoleBinding without a name', roleBindingType, { metadata: {}, roleRef: ref('Role') }, 'metadata.name', 'FieldValueRequired', 'name or generateName is required'],
  ['rule without verbs', clusterRoleType, { metadata: { name: 'v' }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: [] }] }, 'rules[0].verbs', 'FieldValueRequired', 'verbs must contain at least one value'],
  ['RoleBinding without roleRef', roleBindingType, { metadata: { name: 'noref' } }, 'roleRef.kind', 'FieldValueNotSupported', 'supported values: "Role", "ClusterRole"'],
  ['ClusterRoleBinding to a Role', clusterRoleBindingType, { metadata: { name: 'x' }, roleRef: ref('Role') }, 'roleRef.kind', 'FieldValueNotSupported', 'supported values: "ClusterRole"'],
  ['subject without a name', clusterRoleBindingType, { metadata: { name: 's2' }, roleRef: ref('ClusterRole'), subjects: [{ kind: 'User', name: '' }] }, 'subjects[0].name', 'FieldValueRequired', 'Required value'],
  ['ServiceAccount subject with an apiGroup', clusterRoleBindingType, { metadata: { name: 's3' }, roleRef: ref('ClusterRole'), subjects: [{ kind: 'ServiceAccount', apiGroup: RBAC_GROUP, name: 'sa', namespace: 'default' }] }, 'subjects[0].apiGroup', 'FieldValueNotSupported', 'supported values: ""'],
  ['aggregationRule without selectors', clusterRoleType, { metadata: { name: 'agg' }, aggregationRule: { clusterRoleSelectors: [] } }, 'aggregationRule.clusterRoleSelectors', 'FieldValueRequired', 'Required value'],
  ['a bad label key', clusterRoleType, { metadata: { name: 'lbl', labels: { 'bad key!': 'x' } }, rules: [] }, 'metadata.labels', 'FieldValueInvalid', 'name part must consist of alphanumeric characters'],
];

describe('create validation end to end (without HTTP)', () => {
  it.each(RULES_CASES)('%s', (_title, type, body, field, reason, message) => {
    const { errs } = create(type, body);
    const cause = errs.find((e) => e.field === field);
    expect(cause).toBeDefined();
    expect(cause!.type).toBe(reason);
    expect(fieldErrorBody(cause!)).toContain(message);
  });

  it('a RoleBinding without roleRef gets no apiGroup error (it is defaulted)', () => {
    expect(create(roleBindingType, { metadata: { name: 'noref' } }).errs.map((e) => e.field)).toEqual(['roleRef.kind', 'roleRef.name']);
  });
});
