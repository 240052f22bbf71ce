import {
  AGGREGATE_TO_ADMIN,
  AUTOUPDATE_ANNOTATION,
  BOOTSTRAPPING_LABEL,
  defaultClusterRoleBindings,
  defaultClusterRoles,
} from '../../../src/rbac/bootstrap/default-policy';
import { reconcileClusterRole, reconcileClusterRoleBinding } from '../../../src/rbac/bootstrap/reconcile';
import { breakdownRule, covers, ruleCovers } from '../../../src/rbac/kinds/rule-coverage';
import { validateClusterRole, validateClusterRoleBinding } from '../../../src/rbac/kinds/rbac-validation';
import { setBindingDefaults } from '../../../src/rbac/kinds/strategies';
import { ClusterRole, ClusterRoleBinding, PolicyRule } from '../../../src/apis/rbac/types';

const r = (verbs: string[], apiGroups: string[], resources: string[], resourceNames?: string[]): PolicyRule =>
  resourceNames ? { verbs, apiGroups, resources, resourceNames } : { verbs, apiGroups, resources };
const u = (verbs: string[], nonResourceURLs: string[]): PolicyRule => ({ verbs, nonResourceURLs });

describe('rule coverage', () => {
  it('breaks a rule down into one group/resource/verb(/name) or URL/verb each', () => {
    expect(breakdownRule(r(['get', 'list'], ['', 'apps'], ['pods']))).toEqual([
      r(['get'], [''], ['pods']),
      r(['list'], [''], ['pods']),
      r(['get'], ['apps'], ['pods']),
      r(['list'], ['apps'], ['pods']),
    ]);
    expect(breakdownRule(r(['get'], [''], ['secrets'], ['a', 'b']))).toEqual([r(['get'], [''], ['secrets'], ['a']), r(['get'], [''], ['secrets'], ['b'])]);
    expect(breakdownRule(u(['get', 'post'], ['/x']))).toEqual([u(['get'], ['/x']), u(['post'], ['/x'])]);
  });

  const cases: Array<[string, PolicyRule, PolicyRule, boolean]> = [
    ['exact', r(['get'], [''], ['pods']), r(['get'], [''], ['pods']), true],
    ['verb *', r(['*'], [''], ['pods']), r(['delete'], [''], ['pods']), true],
    ['other verb', r(['get'], [''], ['pods']), r(['list'], [''], ['pods']), false],
    ['group *', r(['get'], ['*'], ['pods']), r(['get'], ['apps'], ['pods']), true],
    ['other group', r(['get'], [''], ['pods']), r(['get'], ['apps'], ['pods']), false],
    ['resource *', r(['get'], [''], ['*']), r(['get'], [''], ['pods/log']), true],
    ['resource does not cover its subresource', r(['get'], [''], ['pods']), r(['get'], [''], ['pods/log']), false],
    ['*/subresource', r(['get'], [''], ['*/log']), r(['get'], [''], ['pods/log']), true],
    ['*/subresource is not the resource', r(['get'], [''], ['*/log']), r(['get'], [''], ['pods']), false],
    ['unnamed covers named', r(['get'], [''], ['secrets']), r(['get'], [''], ['secrets'], ['a']), true],
    ['named does not cover unnamed', r(['get'], [''], ['secrets'], ['a']), r(['get'], [''], ['secrets']), false],
    ['named covers the same name', r(['get'], [''], ['secrets'], ['a', 'b']), r(['get'], [''], ['secrets'], ['b']), true],
    ['named does not cover another name', r(['get'], [''], ['secrets'], ['a']), r(['get'], [''], ['secrets'], ['c']), false],
    ['URL exact', u(['get'], ['/healthz']), u(['get'], ['/healthz']), true],
    ['URL prefix *', u(['get'], ['/apis/*']), u(['get'], ['/apis/x/y']), true],
    ['URL * alone', u(['*'], ['*']), u(['get'], ['/anything']), true],
    ['URL without *', u(['get'], ['/apis']), u(['get'], ['/apis/x']), false],
    ['resource rule does not cover a URL', r(['*'], ['*'], ['*']), u(['get'], ['/healthz']), false],
  ];
  it.each(cases)('%s', (_title, owner, sub, expected) => {
    expect(ruleCovers(owner, sub)).toBe(expected);
  });

  it('reports the atomic rules left uncovered', () => {
    const owner = [r(['get', 'list'], [''], ['pods']), u(['get'], ['/healthz'])];
    const servant = [r(['get', 'watch'], [''], ['pods']), u(['get'], ['/healthz', '/livez'])];
    expect(covers(owner, servant)).toEqual({ covered: false, uncovered: [r(['watch'], [''], ['pods']), u(['get'], ['/livez'])] });
    expect(covers([r(['*'], ['*'], ['*']), u(['*'], ['*'])], servant)).toEqual({ covered: true, uncovered: [] });
  });
});

const LABELS = { [BOOTSTRAPPING_LABEL]: 'rbac-defaults' };
const ANNOTATIONS = { [AUTOUPDATE_ANNOTATION]: 'true' };
const expectedRole = (rules: PolicyRule[]): ClusterRole => ({
  metadata: { name: 'r', labels: { ...LABELS }, annotations: { ...ANNOTATIONS } },
  rules,
});
const stored = (role: ClusterRole, changes: Partial<ClusterRole> & { annotations?: Record<string, string> }): ClusterRole => {
  const copy = structuredClone(role);
  copy.metadata.resourceVersion = '7';
  if (changes.annotations) copy.metadata.annotations = changes.annotations;
  if (changes.rules) copy.rules = changes.rules;
  if (changes.aggregationRule !== undefined) copy.aggregationRule = changes.aggregationRule;
  return copy;
};

describe('reconciling a default ClusterRole', () => {
  const pods = r(['get', 'list'], [''], ['pods']);
  const health = u(['get'], ['/healthz']);
  const expected = expectedRole([pods, health]);

  it('creates a missing role', () => {
    const result = reconcileClusterRole(null, expected);
    expect(result.operation).toBe('Create');
    expect(result.role).toEqual(expected);
  });

  it('leaves an up-to-date role alone', () => {
    expect(reconcileClusterRole(stored(expected, {}), expected).operation).toBe('None');
  });

  it('adds a missing rule, broken down into what exactly is missing', () => {
    const result = reconcileClusterRole(stored(expected, { rules: [r(['get'], [''], ['pods'])] }), expected);
    expect(result.operation).toBe('Update');
    expect(result.missingRules).toEqual([r(['list'], [''], ['pods']), health]);
    expect(result.role.rules).toEqual([r(['get'], [''], ['pods']), r(['list'], [''], ['pods']), health]);
    expect(result.role.metadata.resourceVersion).toBe('7');
  });

  it('does not add a rule the stored rules already cover', () => {
    const broader = [r(['*'], [''], ['pods']), u(['get'], ['/*'])];
    expect(reconcileClusterRole(stored(expected, { rules: broader }), expected).operation).toBe('None');
  });

  it('keeps rules users added', () => {
    const extra = r(['get'], [''], ['secrets']);
    const result = reconcileClusterRole(stored(expected, { rules: [extra] }), expected);
    expect(result.role.rules![0]).toEqual(extra);
    expect(result.role.rules).toContainEqual(health);
    expect(reconcileClusterRole(stored(expected, { rules: [pods, extra, health] }), expected).operation).toBe('None');
  });

  it('adds missing labels and annotations without overwriting values users set', () => {
    const existing = stored(expected, {});
    existing.metadata.labels = { team: 'x' };
    existing.metadata.annotations = { [AUTOUPDATE_ANNOTATION]: 'true', note: 'mine' };
    const result = reconcileClusterRole(existing, expected);
    expect(result.operation).toBe('Update');
    expect(result.role.metadata.labels).toEqual({ team: 'x', ...LABELS });
    expect(result.role.metadata.annotations).toEqual({ [AUTOUPDATE_ANNOTATION]: 'true', note: 'mine' });
  });

  it('marks a role with autoupdate "false" protected', () => {
    const result = reconcileClusterRole(stored(expected, { rules: [], annotations: { [AUTOUPDATE_ANNOTATION]: 'false' } }), expected);
    expect(result.protected).toBe(true);
    expect(result.operation).toBe('Update');
  });

  it('leaves the rules of an aggregating role to the controller and restores its selectors', () => {
    const select = { matchLabels: { [AGGREGATE_TO_ADMIN]: 'true' } };
    const aggregated: ClusterRole = { ...expectedRole([]), aggregationRule: { clusterRoleSelectors: [select] } };
    delete aggregated.rules;
    const filled = stored(aggregated, { rules: [r(['get'], [''], ['pods'])] });
    expect(reconcileClusterRole(filled, aggregated).operation).toBe('None');

    const userSelector = { matchLabels: { mine: 'true' } };
    const changed = stored(aggregated, { aggregationRule: { clusterRoleSelectors: [userSelector] } });
    const result = reconcileClusterRole(changed, aggregated);
    expect(result.operation).toBe('Update');
    expect(result.role.aggregationRule!.clusterRoleSelectors).toEqual([userSelector, select]);
  });

  it('removes an aggregationRule a non-aggregating default does not have', () => {
    const result = reconcileClusterRole(stored(expected, { aggregationRule: { clusterRoleSelectors: [{ matchLabels: { a: 'b' } }] } }), expected);
    expect(result.operation).toBe('Update');
    expect(result.role.aggregationRule).toBeUndefined();
  });
});

describe('reconciling a default ClusterRoleBinding', () => {
  const group = (name: string) => ({ kind: 'Group', apiGroup: 'rbac.authorization.platform.io', name });
  const expected: ClusterRoleBinding = {
    metadata: { name: 'b', labels: { ...LABELS }, annotations: { ...ANNOTATIONS } },
    roleRef: { apiGroup: 'rbac.authorization.platform.io', kind: 'ClusterRole', name: 'b' },
    subjects: [group('system:authenticated'), group('system:unauthenticated')],
  };
  const existing = (subjects: any[], annotations = ANNOTATIONS): ClusterRoleBinding => ({
    ...structuredClone(expected),
    metadata: { ...structuredClone(expected.metadata), annotations: { ...annotations }, resourceVersion: '3' },
    subjects,
  });

  it('adds a missing subject and keeps the ones users added', () => {
    const mine = { kind: 'User', apiGroup: 'rbac.authorization.platform.io', name: 'alice' };
    const result = reconcileClusterRoleBinding(existing([mine, group('system:authenticated')]), expected);
    expect(result.operation).toBe('Update');
    expect(result.missingSubjects).toEqual([group('system:unauthenticated')]);
    expect(result.binding.subjects).toEqual([mine, group('system:authenticated'), group('system:unauthenticated')]);
  });

  it('leaves a complete binding alone (subject order and apiGroup defaulting do not matter)', () => {
    const defaulted = existing([group('system:unauthenticated'), group('system:authenticated')]);
    expect(reconcileClusterRoleBinding(defaulted, expected).operation).toBe('None');
  });

  it('skips a binding with autoupdate "false"', () => {
    const result = reconcileClusterRoleBinding(existing([], { [AUTOUPDATE_ANNOTATION]: 'false' }), expected);
    expect(result.protected).toBe(true);
  });

  it('recreates a binding whose roleRef differs', () => {
    const other = existing(expected.subjects!);
    other.roleRef = { ...other.roleRef, name: 'elsewhere' };
    const result = reconcileClusterRoleBinding(other, expected);
    expect(result.operation).toBe('Recreate');
    expect(result.binding).toEqual(expected);
  });

  it('creates a missing binding', () => {
    expect(reconcileClusterRoleBinding(null, expected).operation).toBe('Create');
  });
});

describe('the default policy', () => {
  const roles = defaultClusterRoles();
  const byName = new Map(roles.map((role) => [role.metadata.name!, role]));

  it('is valid and marked as defaults', () => {
    for (const role of roles) {
      expect(validateClusterRole(structuredClone(role))).toEqual([]);
      expect(role.metadata.labels![BOOTSTRAPPING_LABEL]).toBe('rbac-defaults');
      expect(role.metadata.annotations![AUTOUPDATE_ANNOTATION]).toBe('true');
    }
    for (const binding of defaultClusterRoleBindings()) {
      const copy = structuredClone(binding);
      setBindingDefaults(copy);
      expect(validateClusterRoleBinding(copy)).toEqual([]);
      expect(copy).toEqual(binding); // already in defaulted form, so reconciliation compares like with like
      expect(byName.has(binding.roleRef.name)).toBe(true);
      expect(binding.metadata.labels![BOOTSTRAPPING_LABEL]).toBe('rbac-defaults');
    }
  });

  it('has kube’s default roles and bindings', () => {
    expect([...byName.keys()].sort()).toEqual(
      [
        'access-approver',
        'access-requester',
        'access-reviewer',
        'admin',
        'cluster-admin',
        'edit',
        'system:aggregate-to-admin',
        'system:aggregate-to-edit',
        'system:aggregate-to-view',
        'system:auth-delegator',
        'system:basic-user',
        'system:controller:access-request-controller',
        'system:controller:binding-expiry',
        'system:controller:clusterrole-aggregation-controller',
        'system:controller:namespace-controller',
        'system:controller:service-account-controller',
        'system:controller:tokens-controller',
        'system:discovery',
        'system:monitoring',
        'system:node',
        'system:node-bootstrapper',
        'system:public-info-viewer',
        'system:service-account-issuer-discovery',
        'view',
      ].sort(),
    );
    const subjects = Object.fromEntries(defaultClusterRoleBindings().map((b) => [b.metadata.name, (b.subjects ?? []).map((s) => `${s.kind}:${s.name}`)]));
    expect(subjects).toEqual({
      'cluster-admin': ['Group:system:masters'],
      'system:monitoring': ['Group:system:monitoring'],
      'system:discovery': ['Group:system:authenticated'],
      'system:basic-user': ['Group:system:authenticated'],
      'system:public-info-viewer': ['Group:system:authenticated', 'Group:system:unauthenticated'],
      'system:node': [],
      'system:controller:access-request-controller': ['User:system:controller:access-request-controller'],
      'system:controller:binding-expiry': ['User:system:controller:binding-expiry'],
      'system:controller:clusterrole-aggregation-controller': ['User:system:controller:clusterrole-aggregation-controller'],
      'system:controller:namespace-controller': ['User:system:controller:namespace-controller'],
      'system:controller:service-account-controller': ['User:system:controller:service-account-controller'],
      'system:controller:tokens-controller': ['User:system:controller:tokens-controller'],
      'system:service-account-issuer-discovery': ['Group:system:serviceaccounts'],
    });
  });

  it('lets the aggregation controller escalate on clusterroles', () => {
    const rules = byName.get('system:controller:clusterrole-aggregation-controller')!.rules!;
    expect(covers(rules, [r(['escalate', 'update', 'get', 'list', 'watch'], ['rbac.authorization.platform.io'], ['clusterroles'])]).covered).toBe(true);
  });

  it('uses only platform.io groups', () => {
    const groups = roles.flatMap((role) => (role.rules ?? []).flatMap((rule) => rule.apiGroups ?? []));
    expect(groups.filter((g) => g !== '' && g !== '*' && !g.endsWith('.platform.io'))).toEqual([]);
  });
});
