import { aggregateErrors } from '../../../src/apimachinery/aggregate-errors';
import {
  CLUSTER_ROLE_BINDINGS_RESOURCE,
  CLUSTER_ROLES_RESOURCE,
  PolicyChange,
  ROLE_BINDINGS_RESOURCE,
  ROLES_RESOURCE,
} from '../../../src/authorization/rbac/policy-index';
import { RbacAuthorizer } from '../../../src/authorization/rbac/rbac-authorizer';
import { ruleAllows, rulesAllow } from '../../../src/authorization/rbac/rule-matching';
import { clusterRole, clusterRoleBinding, G, indexOf, req, role, roleBinding, SA, U, url, user } from './rbac-fixtures';

const READ_PODS = [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }];
const alice = user('alice', 'devs');
const getPod = (ns = 'ns1') => req(alice, 'get', '', 'pods', { ns, name: 'p' });

describe('policy index updates change decisions', () => {
  it('creating, relabelling and deleting a binding', () => {
    const index = indexOf({ clusterRoles: [clusterRole('reader', READ_PODS)] });
    const rbac = new RbacAuthorizer('rbac', index);
    expect(rbac.authorize(getPod()).decision).toBe('NoOpinion');

    index.upsert(ROLE_BINDINGS_RESOURCE, roleBinding('ns1', 'b', 'ClusterRole', 'reader', [U('alice')]));
    expect(rbac.authorize(getPod())).toMatchObject({ decision: 'Allow', reason: 'RBAC: allowed by RoleBinding "b/ns1" of ClusterRole "reader" to User "alice"' });
    expect(rbac.authorize(getPod('ns2')).decision).toBe('NoOpinion');

    // Same binding, subjects changed: now through the group, then to someone else.
    index.upsert(ROLE_BINDINGS_RESOURCE, roleBinding('ns1', 'b', 'ClusterRole', 'reader', [G('devs')]));
    expect(rbac.authorize(getPod()).reason).toBe('RBAC: allowed by RoleBinding "b/ns1" of ClusterRole "reader" to Group "devs"');
    index.upsert(ROLE_BINDINGS_RESOURCE, roleBinding('ns1', 'b', 'ClusterRole', 'reader', [U('bob')]));
    expect(rbac.authorize(getPod()).decision).toBe('NoOpinion');
    expect(index.bindingsFor(user('bob'), 'ns1').map((b) => b.name)).toEqual(['b']);
    expect(index.bindingsFor(alice, 'ns1')).toEqual([]);

    index.remove(ROLE_BINDINGS_RESOURCE, 'ns1', 'b');
    expect(rbac.authorize(req(user('bob'), 'get', '', 'pods', { ns: 'ns1', name: 'p' })).decision).toBe('NoOpinion');
    expect(index.counts()).toEqual({ Role: 0, ClusterRole: 1, RoleBinding: 0, ClusterRoleBinding: 0 });
  });

  it('changing, deleting and re-creating the referenced role (cached rules are invalidated)', () => {
    const index = indexOf({
      clusterRoles: [clusterRole('reader', READ_PODS)],
      clusterRoleBindings: [clusterRoleBinding('crb', 'reader', [U('alice')])],
    });
    const rbac = new RbacAuthorizer('rbac', index);
    expect(rbac.authorize(getPod()).decision).toBe('Allow'); // resolves and caches the rules
    index.upsert(CLUSTER_ROLES_RESOURCE, clusterRole('reader', [{ apiGroups: [''], resources: ['services'], verbs: ['get'] }]));
    expect(rbac.authorize(getPod()).decision).toBe('NoOpinion');
    expect(rbac.authorize(req(alice, 'get', '', 'services', { ns: 'x', name: 's' })).decision).toBe('Allow');

    index.remove(CLUSTER_ROLES_RESOURCE, '', 'reader');
    expect(rbac.authorize(getPod())).toEqual({
      decision: 'NoOpinion',
      reason: 'RBAC: clusterrole.rbac.authorization.platform.io "reader" not found',
      evaluationError: 'clusterrole.rbac.authorization.platform.io "reader" not found',
    });
    index.upsert(CLUSTER_ROLES_RESOURCE, clusterRole('reader', READ_PODS));
    expect(rbac.authorize(getPod()).decision).toBe('Allow');
  });

  it('a Role change reaches only the bindings of its namespace', () => {
    const index = indexOf({
      roles: [role('ns1', 'r', READ_PODS), role('ns2', 'r', READ_PODS)],
      roleBindings: [roleBinding('ns1', 'b', 'Role', 'r', [U('alice')]), roleBinding('ns2', 'b', 'Role', 'r', [U('alice')])],
    });
    const rbac = new RbacAuthorizer('rbac', index);
    expect(rbac.authorize(getPod('ns1')).decision).toBe('Allow');
    expect(rbac.authorize(getPod('ns2')).decision).toBe('Allow');
    index.remove(ROLES_RESOURCE, 'ns2', 'r');
    expect(rbac.authorize(getPod('ns1')).decision).toBe('Allow');
    expect(rbac.authorize(getPod('ns2')).reason).toBe('RBAC: role.rbac.authorization.platform.io "r" not found');
    expect(index.role('ns1', 'r')?.metadata.name).toBe('r');
    expect(index.role('ns2', 'r')).toBeUndefined();
  });

  it('a binding created before its role starts working when the role appears', () => {
    const index = indexOf({ clusterRoleBindings: [clusterRoleBinding('early', 'later', [SA('robot', 'ns1')])] });
    const rbac = new RbacAuthorizer('rbac', index);
    const robot = user('system:serviceaccount:ns1:robot');
    const attrs = req(robot, 'list', '', 'pods');
    expect(rbac.authorize(attrs).evaluationError).toBe('clusterrole.rbac.authorization.platform.io "later" not found');
    index.upsert(CLUSTER_ROLES_RESOURCE, clusterRole('later', READ_PODS));
    expect(rbac.authorize(attrs).reason).toBe('RBAC: allowed by ClusterRoleBinding "early" of ClusterRole "later" to ServiceAccount "robot/ns1"');
  });

  it('a binding filed under several of the caller\'s keys is visited once', () => {
    const index = indexOf({
      clusterRoles: [clusterRole('reader', READ_PODS)],
      clusterRoleBindings: [clusterRoleBinding('both', 'reader', [G('devs'), U('alice'), G('system:authenticated')])],
    });
    const seen: string[] = [];
    index.visitRulesFor(user('alice', 'devs', 'system:authenticated'), 'ns1', (source, rule) => {
      if (rule) seen.push(source!.describe());
      return true;
    });
    expect(seen).toEqual(['ClusterRoleBinding "both" of ClusterRole "reader" to Group "devs"']);
  });

  it('replaceAll swaps the whole content', () => {
    const index = indexOf({ clusterRoles: [clusterRole('a', READ_PODS)], clusterRoleBindings: [clusterRoleBinding('x', 'a', [U('alice')])] });
    index.replaceAll([{ resource: CLUSTER_ROLE_BINDINGS_RESOURCE, items: [clusterRoleBinding('y', 'a', [U('bob')])] }]);
    expect(index.bindingsFor(alice)).toEqual([]);
    expect(index.clusterRole('a')).toBeUndefined();
    expect(index.counts()).toEqual({ Role: 0, ClusterRole: 0, RoleBinding: 0, ClusterRoleBinding: 1 });
  });

  it('tells listeners what changed', () => {
    const index = indexOf({});
    const seen: string[] = [];
    index.onChange((c: PolicyChange) => seen.push(c.type === 'RESYNCED' ? c.type : `${c.type} ${c.kind} ${c.object.metadata.name}`));
    index.upsert(CLUSTER_ROLES_RESOURCE, clusterRole('a', READ_PODS));
    index.upsert(CLUSTER_ROLES_RESOURCE, clusterRole('a', []));
    index.remove(CLUSTER_ROLES_RESOURCE, '', 'a', clusterRole('a', []));
    index.remove(CLUSTER_ROLES_RESOURCE, '', 'a');
    index.replaceAll([]);
    expect(seen).toEqual(['ADDED ClusterRole a', 'MODIFIED ClusterRole a', 'DELETED ClusterRole a', 'RESYNCED']);
  });

  it('lists a caller\'s bindings with the subject that names it, and the rules of role references', () => {
    const index = indexOf({
      clusterRoles: [clusterRole('reader', READ_PODS)],
      clusterRoleBindings: [clusterRoleBinding('c', 'reader', [U('zed'), G('devs')])],
      roleBindings: [roleBinding('ns1', 'r', 'ClusterRole', 'reader', [U('alice')]), roleBinding('ns2', 'r', 'ClusterRole', 'reader', [U('alice')])],
    });
    expect(index.bindingsFor(alice, 'ns1').map((b) => [b.kind, b.namespace, b.name, b.subject])).toEqual([
      ['ClusterRoleBinding', '', 'c', G('devs')],
      ['RoleBinding', 'ns1', 'r', U('alice')],
    ]);
    expect(index.rulesOfRoleRef({ apiGroup: 'rbac.authorization.platform.io', kind: 'ClusterRole', name: 'reader' }, '')).toEqual({ rules: READ_PODS });
    expect(index.rulesOfRoleRef({ apiGroup: 'rbac.authorization.platform.io', kind: 'Role', name: 'reader' }, 'ns1')).toEqual({
      error: 'role.rbac.authorization.platform.io "reader" not found',
    });
  });

  it('tolerates malformed stored objects without granting anything', () => {
    const index = indexOf({
      clusterRoles: [{ ...clusterRole('odd', []), rules: null as never }, clusterRole('no-verbs', [{ apiGroups: ['*'], resources: ['*'] } as never])],
      clusterRoleBindings: [
        { ...clusterRoleBinding('no-subjects', 'odd', []), subjects: null as never },
        clusterRoleBinding('odd', 'odd', [U('alice')]),
        clusterRoleBinding('no-verbs', 'no-verbs', [U('alice')]),
        { ...clusterRoleBinding('no-ref', 'x', [U('alice')]), roleRef: undefined as never },
      ],
    });
    const rbac = new RbacAuthorizer('rbac', index);
    expect(rbac.authorize(getPod())).toEqual({
      decision: 'NoOpinion',
      reason: 'RBAC: unsupported role reference kind: ""',
      evaluationError: 'unsupported role reference kind: ""',
    });
  });
});

describe('rule matching (kube RuleAllows)', () => {
  const who = user('u');
  it('matches resource and non-resource requests by their own fields only', () => {
    const rule = { verbs: ['get'], apiGroups: [''], resources: ['pods'], nonResourceURLs: ['/x'] };
    expect(ruleAllows(rule, req(who, 'get', '', 'pods', { ns: 'a', name: 'p' }))).toBe(true);
    expect(ruleAllows(rule, url(who, 'get', '/x'))).toBe(true);
    expect(ruleAllows(rule, url(who, 'get', '/y'))).toBe(false);
  });

  it('trims every trailing * of a URL and compares the rest as a prefix', () => {
    expect(ruleAllows({ verbs: ['get'], nonResourceURLs: ['/a/**'] }, url(who, 'get', '/a/b'))).toBe(true);
    expect(ruleAllows({ verbs: ['get'], nonResourceURLs: ['/a*'] }, url(who, 'get', '/ab'))).toBe(true);
    expect(ruleAllows({ verbs: ['get'], nonResourceURLs: ['/a/*'] }, url(who, 'get', '/b/a/'))).toBe(false);
  });

  it('rulesAllow: any rule', () => {
    const rules = [
      { verbs: ['list'], apiGroups: [''], resources: ['pods'] },
      { verbs: ['get'], apiGroups: ['apps'], resources: ['deployments'] },
    ];
    expect(rulesAllow(rules, req(who, 'get', 'apps', 'deployments', { ns: 'a', name: 'd' }))).toBe(true);
    expect(rulesAllow(rules, req(who, 'get', '', 'pods', { ns: 'a', name: 'p' }))).toBe(false);
    expect(rulesAllow([], req(who, 'get', '', 'pods'))).toBe(false);
  });
});

describe('aggregateErrors (kube utilerrors)', () => {
  it.each([
    [[], ''],
    [['a'], 'a'],
    [['a', 'a'], 'a'],
    [['a', 'b', 'a'], '[a, b]'],
  ])('%j -> %s', (input, expected) => expect(aggregateErrors(input)).toBe(expected));
});
