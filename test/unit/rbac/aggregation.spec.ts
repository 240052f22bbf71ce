import { aggregateRules, sameRule, sameRules } from '../../../src/rbac/aggregation/aggregate-rules';
import { clusterRoleSelectorMatcher } from '../../../src/rbac/aggregation/cluster-role-selector';
import { ClusterRole, PolicyRule } from '../../../src/apis/rbac/types';

const role = (name: string, labels: Record<string, string>, rules: PolicyRule[] = []): ClusterRole => ({
  metadata: { name, labels },
  rules,
});
const aggregating = (name: string, selectors: any[], rules: PolicyRule[] = [], labels: Record<string, string> = {}): ClusterRole => ({
  metadata: { name, labels },
  aggregationRule: { clusterRoleSelectors: selectors },
  rules,
});
const get = (resource: string, verbs = ['get']): PolicyRule => ({ verbs, apiGroups: [''], resources: [resource] });

describe('clusterRoleSelectorMatcher', () => {
  const cases: Array<[string, any, Record<string, string> | undefined, boolean]> = [
    ['matchLabels equal', { matchLabels: { a: 'x' } }, { a: 'x' }, true],
    ['matchLabels different value', { matchLabels: { a: 'x' } }, { a: 'y' }, false],
    ['matchLabels missing key', { matchLabels: { a: 'x' } }, {}, false],
    ['matchLabels all must hold', { matchLabels: { a: 'x', b: 'y' } }, { a: 'x' }, false],
    ['In', { matchExpressions: [{ key: 'tier', operator: 'In', values: ['a', 'b'] }] }, { tier: 'b' }, true],
    ['In, value not listed', { matchExpressions: [{ key: 'tier', operator: 'In', values: ['a'] }] }, { tier: 'c' }, false],
    ['In, key missing', { matchExpressions: [{ key: 'tier', operator: 'In', values: ['a'] }] }, {}, false],
    ['NotIn, other value', { matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['a'] }] }, { tier: 'c' }, true],
    ['NotIn, key missing', { matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['a'] }] }, undefined, true],
    ['NotIn, listed value', { matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['a'] }] }, { tier: 'a' }, false],
    ['Exists', { matchExpressions: [{ key: 'x', operator: 'Exists' }] }, { x: '' }, true],
    ['Exists, missing', { matchExpressions: [{ key: 'x', operator: 'Exists' }] }, { y: '1' }, false],
    ['DoesNotExist', { matchExpressions: [{ key: 'x', operator: 'DoesNotExist' }] }, { y: '1' }, true],
    ['DoesNotExist, present', { matchExpressions: [{ key: 'x', operator: 'DoesNotExist' }] }, { x: '1' }, false],
    ['labels and expressions ANDed', { matchLabels: { a: 'x' }, matchExpressions: [{ key: 'b', operator: 'Exists' }] }, { a: 'x' }, false],
    ['empty selector matches everything', {}, { any: 'thing' }, true],
    ['null entry matches everything (kube decodes it to an empty selector)', null, undefined, true],
  ];
  it.each(cases)('%s', (_title, selector, labels, expected) => {
    expect(clusterRoleSelectorMatcher(selector)!.matches(labels)).toBe(expected);
  });

  it('cannot read an unknown operator or In without values', () => {
    expect(clusterRoleSelectorMatcher({ matchExpressions: [{ key: 'a', operator: 'Near', values: ['b'] }] })).toBeNull();
    expect(clusterRoleSelectorMatcher({ matchExpressions: [{ key: 'a', operator: 'In', values: [] }] })).toBeNull();
    expect(clusterRoleSelectorMatcher({ matchLabels: { 'bad key!': 'x' } })).toBeNull();
  });
});

describe('rule equality', () => {
  it('treats an absent list as empty and compares lists in order', () => {
    expect(sameRule({ verbs: ['get'], apiGroups: [''], resources: ['pods'] }, { verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: [] })).toBe(true);
    expect(sameRule({ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] }, { verbs: ['list', 'get'], apiGroups: [''], resources: ['pods'] })).toBe(false);
    expect(sameRules(undefined, [])).toBe(true);
    expect(sameRules(null, [get('pods')])).toBe(false);
  });
});

describe('aggregateRules', () => {
  const select = (key: string) => ({ matchLabels: { [key]: 'true' } });

  it('unions the rules of matching roles, sorted by role name, keeping each role’s rule order', () => {
    const roles = [
      role('zeta', { agg: 'true' }, [get('z1'), get('z2')]),
      role('alpha', { agg: 'true' }, [get('a2'), get('a1')]),
      role('other', { no: 'true' }, [get('o')]),
    ];
    const target = aggregating('target', [select('agg')]);
    expect(aggregateRules(target, [target, ...roles])).toEqual([get('a2'), get('a1'), get('z1'), get('z2')]);
  });

  it('drops duplicate rules, keeping the first, also across selectors', () => {
    const roles = [
      role('a', { one: 'true' }, [get('pods'), get('secrets')]),
      role('b', { one: 'true' }, [{ ...get('pods'), resourceNames: [] }, get('nodes')]),
      role('c', { two: 'true' }, [get('secrets'), get('configmaps')]),
    ];
    const target = aggregating('target', [select('one'), select('two')]);
    expect(aggregateRules(target, roles)).toEqual([get('pods'), get('secrets'), get('nodes'), get('configmaps')]);
  });

  it('goes selector by selector: all roles of the first selector come before the second’s', () => {
    const roles = [role('a', { second: 'true' }, [get('from-second')]), role('b', { first: 'true' }, [get('from-first')])];
    const target = aggregating('target', [select('first'), select('second')]);
    expect(aggregateRules(target, roles)).toEqual([get('from-first'), get('from-second')]);
  });

  it('excludes the aggregating role itself and ignores its manual rules', () => {
    const target = aggregating('target', [select('agg')], [get('manual')], { agg: 'true' });
    expect(aggregateRules(target, [target, role('m', { agg: 'true' }, [get('member')])])).toEqual([get('member')]);
  });

  it('is empty when nothing matches', () => {
    expect(aggregateRules(aggregating('t', [select('none')]), [role('a', {}, [get('x')])])).toEqual([]);
  });

  it('matches with matchExpressions', () => {
    const roles = [role('a', { tier: 'gold' }, [get('gold')]), role('b', { tier: 'bronze' }, [get('bronze')]), role('c', {}, [get('none')])];
    const target = aggregating('t', [{ matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['bronze'] }] }]);
    expect(aggregateRules(target, roles)).toEqual([get('gold'), get('none')]);
  });

  it('gives null (leave the role alone) when a selector cannot be read', () => {
    const target = aggregating('t', [select('a'), { matchExpressions: [{ key: 'k', operator: 'Bad' }] }]);
    expect(aggregateRules(target, [role('x', { a: 'true' }, [get('x')])])).toBeNull();
  });
});
