import { ruleAllows } from '../../../src/authorization/rbac/rule-matching';
import { AuthorizationAttributes, AuthorizationResult } from '../../../src/authorization/authorizer';
import { RbacAuthorizer } from '../../../src/authorization/rbac/rbac-authorizer';
import {
  clusterRole,
  clusterRoleBinding,
  G,
  indexOf,
  req,
  role,
  roleBinding,
  SA,
  sa,
  U,
  url,
  user,
} from './rbac-fixtures';

/**
 * The RBAC authorizer over one fixed world of roles and bindings: every rule of the
 * semantics, allowed and not, with kube's reasons and the errors it reports.
 */
const world = indexOf({
  clusterRoles: [
    clusterRole('pod-reader', [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'watch'] }]),
    clusterRole('secret-admin', [{ apiGroups: [''], resources: ['secrets'], verbs: ['*'] }]),
    clusterRole('widget-getter', [{ apiGroups: ['*'], resources: ['widgets'], verbs: ['get'] }]),
    clusterRole('everything', [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }]),
    clusterRole('pod-logs', [{ apiGroups: [''], resources: ['pods/log'], verbs: ['get'] }]),
    clusterRole('status-writer', [{ apiGroups: ['*'], resources: ['*/status'], verbs: ['update', 'patch'] }]),
    clusterRole('app-config', [
      {
        apiGroups: [''],
        resources: ['configmaps'],
        resourceNames: ['app-config'],
        verbs: ['get', 'list', 'watch', 'update', 'delete', 'create', 'deletecollection'],
      },
    ]),
    clusterRole('health-reader', [{ nonResourceURLs: ['/healthz', '/logs/*', '/metrics*'], verbs: ['get'] }]),
    clusterRole('all-urls', [{ nonResourceURLs: ['*'], verbs: ['*'] }]),
    clusterRole('rbac-viewer', [{ apiGroups: ['rbac.authorization.platform.io'], resources: ['roles', 'rolebindings'], verbs: ['get', 'list'] }]),
    clusterRole('two-groups', [{ apiGroups: ['apps', 'batch'], resources: ['deployments', 'jobs'], verbs: ['list'] }]),
  ],
  roles: [
    role('ns1', 'deployer', [{ apiGroups: ['apps'], resources: ['deployments'], verbs: ['create', 'update'] }]),
    role('ns2', 'deployer', [{ apiGroups: ['apps'], resources: ['deployments'], verbs: ['delete'] }]),
  ],
  clusterRoleBindings: [
    clusterRoleBinding('alice-pods', 'pod-reader', [U('alice')]),
    clusterRoleBinding('ops-secrets', 'secret-admin', [G('ops')]),
    clusterRoleBinding('missing-role', 'does-not-exist', [U('carol')]),
    clusterRoleBinding('sa-widgets', 'widget-getter', [SA('robot', 'ns1')]),
    clusterRoleBinding('sa-no-namespace', 'everything', [SA('ghost')]),
    clusterRoleBinding('health', 'health-reader', [G('system:authenticated')]),
    clusterRoleBinding('status', 'status-writer', [U('stat')]),
    clusterRoleBinding('bad-subjects', 'pod-reader', [U('mallory', { namespace: 'ns1' }), { kind: 'Robot', name: 'robo' }, G('fixers', { namespace: 'x' })]),
    clusterRoleBinding('crb-to-role', 'deployer', [U('dan')], 'Role'),
    clusterRoleBinding('root-urls', 'all-urls', [U('root')]),
    clusterRoleBinding('multi', 'two-groups', [U('first'), G('team'), U('multi')]),
    clusterRoleBinding('case', 'pod-reader', [U('Eve')]),
  ],
  roleBindings: [
    roleBinding('ns1', 'bob-deployer', 'Role', 'deployer', [U('bob')]),
    roleBinding('ns1', 'bob-viewer', 'ClusterRole', 'rbac-viewer', [U('bob')]),
    roleBinding('ns1', 'named', 'ClusterRole', 'app-config', [U('nina')]),
    roleBinding('ns1', 'sa-local', 'ClusterRole', 'pod-logs', [SA('builder')]),
    roleBinding('ns2', 'sa-remote', 'ClusterRole', 'pod-reader', [SA('robot', 'ns1')]),
    roleBinding('ns1', 'wrong-ref', 'Role', 'nonexistent', [G('devs')]),
    roleBinding('ns1', 'devs-pods', 'ClusterRole', 'pod-reader', [G('devs')]),
    roleBinding('ns1', 'weird-ref', 'Foo', 'x', [U('wes')]),
    roleBinding('ns3', 'admins', 'ClusterRole', 'everything', [G('ns3-admins')]),
  ],
});

const authorizer = new RbacAuthorizer('rbac', world);

const alice = user('alice');
const bob = user('bob');
const nina = user('nina');
const robot = sa('ns1', 'robot');
const builder = sa('ns1', 'builder');
const dev = user('dora', 'devs');
const op = user('oscar', 'ops', 'system:authenticated');

const allowedBy = (source: string): AuthorizationResult => ({ decision: 'Allow', reason: `RBAC: allowed by ${source}` });
const noOpinion: AuthorizationResult = { decision: 'NoOpinion', reason: '' };
const failed = (error: string): AuthorizationResult => ({ decision: 'NoOpinion', reason: `RBAC: ${error}`, evaluationError: error });

const cases: Array<[string, AuthorizationAttributes, AuthorizationResult]> = [
  // verbs
  ['verb listed: get', req(alice, 'get', '', 'pods', { ns: 'ns1', name: 'p' }), allowedBy('ClusterRoleBinding "alice-pods" of ClusterRole "pod-reader" to User "alice"')],
  ['verb listed: list', req(alice, 'list', '', 'pods', { ns: 'ns1' }), allowedBy('ClusterRoleBinding "alice-pods" of ClusterRole "pod-reader" to User "alice"')],
  ['verb listed: watch', req(alice, 'watch', '', 'pods'), allowedBy('ClusterRoleBinding "alice-pods" of ClusterRole "pod-reader" to User "alice"')],
  ['verb not listed: delete', req(alice, 'delete', '', 'pods', { ns: 'ns1', name: 'p' }), noOpinion],
  ['verb not listed: create', req(alice, 'create', '', 'pods', { ns: 'ns1' }), noOpinion],
  ['verbs *: create', req(op, 'create', '', 'secrets', { ns: 'ns1' }), allowedBy('ClusterRoleBinding "ops-secrets" of ClusterRole "secret-admin" to Group "ops"')],
  ['verbs *: special verb escalate', req(op, 'escalate', '', 'secrets'), allowedBy('ClusterRoleBinding "ops-secrets" of ClusterRole "secret-admin" to Group "ops"')],
  ['verbs *: deletecollection', req(op, 'deletecollection', '', 'secrets', { ns: 'ns9' }), allowedBy('ClusterRoleBinding "ops-secrets" of ClusterRole "secret-admin" to Group "ops"')],
  // API groups
  ['core group only: pods in apps', req(alice, 'get', 'apps', 'pods', { ns: 'ns1', name: 'p' }), noOpinion],
  ['apiGroups *: any group', req(robot, 'get', 'example.io', 'widgets', { name: 'w' }), allowedBy('ClusterRoleBinding "sa-widgets" of ClusterRole "widget-getter" to ServiceAccount "robot/ns1"')],
  ['apiGroups *: the core group', req(robot, 'get', '', 'widgets', { name: 'w' }), allowedBy('ClusterRoleBinding "sa-widgets" of ClusterRole "widget-getter" to ServiceAccount "robot/ns1"')],
  ['several groups and resources: batch/deployments', req(user('multi'), 'list', 'batch', 'deployments'), allowedBy('ClusterRoleBinding "multi" of ClusterRole "two-groups" to User "multi"')],
  ['several groups and resources: apps/jobs', req(user('multi'), 'list', 'apps', 'jobs'), allowedBy('ClusterRoleBinding "multi" of ClusterRole "two-groups" to User "multi"')],
  ['several groups and resources: other group', req(user('multi'), 'list', 'extensions', 'jobs'), noOpinion],
  // resources and subresources
  ['resource not listed', req(alice, 'get', '', 'services', { ns: 'ns1', name: 's' }), noOpinion],
  ['resource rule does not cover a subresource', req(alice, 'get', '', 'pods', { ns: 'ns1', name: 'p', sub: 'log' }), noOpinion],
  ['resources * covers subresources', req(user('x', 'ns3-admins'), 'get', '', 'pods', { ns: 'ns3', name: 'p', sub: 'exec' }), allowedBy('RoleBinding "admins/ns3" of ClusterRole "everything" to Group "ns3-admins"')],
  ['resource/subresource', req(builder, 'get', '', 'pods', { ns: 'ns1', name: 'p', sub: 'log' }), allowedBy('RoleBinding "sa-local/ns1" of ClusterRole "pod-logs" to ServiceAccount "builder/ns1"')],
  ['resource/subresource does not cover the resource', req(builder, 'get', '', 'pods', { ns: 'ns1', name: 'p' }), noOpinion],
  ['resource/subresource: other subresource', req(builder, 'get', '', 'pods', { ns: 'ns1', name: 'p', sub: 'exec' }), noOpinion],
  ['*/subresource: any resource', req(user('stat'), 'update', 'apps', 'deployments', { ns: 'a', name: 'd', sub: 'status' }), allowedBy('ClusterRoleBinding "status" of ClusterRole "status-writer" to User "stat"')],
  ['*/subresource: cluster-scoped resource', req(user('stat'), 'patch', '', 'nodes', { name: 'n', sub: 'status' }), allowedBy('ClusterRoleBinding "status" of ClusterRole "status-writer" to User "stat"')],
  ['*/subresource does not cover the resource itself', req(user('stat'), 'update', 'apps', 'deployments', { ns: 'a', name: 'd' }), noOpinion],
  ['*/subresource: other subresource', req(user('stat'), 'update', 'apps', 'deployments', { ns: 'a', name: 'd', sub: 'scale' }), noOpinion],
  ['*/subresource is not a suffix match', req(user('stat'), 'update', '', 'pods', { ns: 'a', name: 'd', sub: 'tatus' }), noOpinion],
  // resourceNames
  ['resourceNames: get the named object', req(nina, 'get', '', 'configmaps', { ns: 'ns1', name: 'app-config' }), allowedBy('RoleBinding "named/ns1" of ClusterRole "app-config" to User "nina"')],
  ['resourceNames: get another object', req(nina, 'get', '', 'configmaps', { ns: 'ns1', name: 'other' }), noOpinion],
  ['resourceNames: update the named object', req(nina, 'update', '', 'configmaps', { ns: 'ns1', name: 'app-config' }), allowedBy('RoleBinding "named/ns1" of ClusterRole "app-config" to User "nina"')],
  ['resourceNames: delete the named object', req(nina, 'delete', '', 'configmaps', { ns: 'ns1', name: 'app-config' }), allowedBy('RoleBinding "named/ns1" of ClusterRole "app-config" to User "nina"')],
  ['resourceNames never grant create (no name)', req(nina, 'create', '', 'configmaps', { ns: 'ns1' }), noOpinion],
  ['resourceNames never grant deletecollection', req(nina, 'deletecollection', '', 'configmaps', { ns: 'ns1' }), noOpinion],
  ['resourceNames: list without a field selector', req(nina, 'list', '', 'configmaps', { ns: 'ns1' }), noOpinion],
  ['resourceNames: list with metadata.name of an allowed name', req(nina, 'list', '', 'configmaps', { ns: 'ns1', name: 'app-config' }), allowedBy('RoleBinding "named/ns1" of ClusterRole "app-config" to User "nina"')],
  ['resourceNames: watch with metadata.name of an allowed name', req(nina, 'watch', '', 'configmaps', { ns: 'ns1', name: 'app-config' }), allowedBy('RoleBinding "named/ns1" of ClusterRole "app-config" to User "nina"')],
  ['resourceNames: watch of another name', req(nina, 'watch', '', 'configmaps', { ns: 'ns1', name: 'nope' }), noOpinion],
  ['no resourceNames: any name', req(alice, 'get', '', 'pods', { ns: 'ns1', name: 'anything' }), allowedBy('ClusterRoleBinding "alice-pods" of ClusterRole "pod-reader" to User "alice"')],
  // non-resource URLs
  ['nonResourceURL exact', url(op, 'get', '/healthz'), allowedBy('ClusterRoleBinding "health" of ClusterRole "health-reader" to Group "system:authenticated"')],
  ['nonResourceURL exact does not cover a subpath', url(op, 'get', '/healthz/etcd'), noOpinion],
  ['nonResourceURL prefix/*: subpath', url(op, 'get', '/logs/kube.log'), allowedBy('ClusterRoleBinding "health" of ClusterRole "health-reader" to Group "system:authenticated"')],
  ['nonResourceURL prefix/*: the bare prefix with slash', url(op, 'get', '/logs/'), allowedBy('ClusterRoleBinding "health" of ClusterRole "health-reader" to Group "system:authenticated"')],
  ['nonResourceURL prefix/*: not without the slash', url(op, 'get', '/logs'), noOpinion],
  ['nonResourceURL trailing * matches as a prefix (kube)', url(op, 'get', '/metrics-extra'), allowedBy('ClusterRoleBinding "health" of ClusterRole "health-reader" to Group "system:authenticated"')],
  ['nonResourceURL verb must match', url(op, 'post', '/healthz'), noOpinion],
  ['nonResourceURL *: everything', url(user('root'), 'delete', '/anything/at/all'), allowedBy('ClusterRoleBinding "root-urls" of ClusterRole "all-urls" to User "root"')],
  ['resource rules never grant non-resource paths', url(alice, 'get', '/api/v1/pods'), noOpinion],
  ['non-resource rules never grant resources', req(user('root'), 'get', '', 'pods', { ns: 'a', name: 'p' }), noOpinion],
  // RoleBinding scope
  ['RoleBinding to Role: its namespace', req(bob, 'create', 'apps', 'deployments', { ns: 'ns1' }), allowedBy('RoleBinding "bob-deployer/ns1" of Role "deployer" to User "bob"')],
  ['RoleBinding to Role: not another namespace', req(bob, 'create', 'apps', 'deployments', { ns: 'ns2' }), noOpinion],
  ['RoleBinding to Role: not cluster-wide', req(bob, 'create', 'apps', 'deployments'), noOpinion],
  ['RoleBinding uses the Role of its own namespace', req(bob, 'delete', 'apps', 'deployments', { ns: 'ns1', name: 'd' }), noOpinion],
  ['RoleBinding to ClusterRole: its namespace', req(bob, 'list', 'rbac.authorization.platform.io', 'roles', { ns: 'ns1' }), allowedBy('RoleBinding "bob-viewer/ns1" of ClusterRole "rbac-viewer" to User "bob"')],
  ['RoleBinding to ClusterRole: not another namespace', req(bob, 'list', 'rbac.authorization.platform.io', 'roles', { ns: 'ns2' }), noOpinion],
  ['RoleBinding to ClusterRole: not all namespaces', req(bob, 'list', 'rbac.authorization.platform.io', 'roles'), noOpinion],
  ['RoleBinding to ClusterRole with *: not cluster-scoped resources', req(user('x', 'ns3-admins'), 'list', '', 'namespaces'), noOpinion],
  ['RoleBinding to ClusterRole with *: the namespace itself', req(user('x', 'ns3-admins'), 'get', '', 'namespaces', { ns: 'ns3', name: 'ns3' }), allowedBy('RoleBinding "admins/ns3" of ClusterRole "everything" to Group "ns3-admins"')],
  // ClusterRoleBinding scope
  ['ClusterRoleBinding: any namespace', req(alice, 'list', '', 'pods', { ns: 'anywhere' }), allowedBy('ClusterRoleBinding "alice-pods" of ClusterRole "pod-reader" to User "alice"')],
  ['ClusterRoleBinding: cluster scope', req(alice, 'list', '', 'pods'), allowedBy('ClusterRoleBinding "alice-pods" of ClusterRole "pod-reader" to User "alice"')],
  ['ClusterRoleBinding to a Role is an error', req(user('dan'), 'create', 'apps', 'deployments', { ns: 'ns1' }), failed('role.rbac.authorization.platform.io "deployer" not found')],
  // subjects
  ['user names are case sensitive', req(user('eve'), 'get', '', 'pods', { ns: 'a', name: 'p' }), noOpinion],
  ['user names are case sensitive: exact', req(user('Eve'), 'get', '', 'pods', { ns: 'a', name: 'p' }), allowedBy('ClusterRoleBinding "case" of ClusterRole "pod-reader" to User "Eve"')],
  ['a group subject does not match a user of that name', req(user('ops'), 'get', '', 'secrets', { ns: 'a', name: 's' }), noOpinion],
  ['a user subject does not match a group of that name', req(user('zed', 'alice'), 'get', '', 'pods', { ns: 'a', name: 'p' }), noOpinion],
  ['service account: other namespace of the same name', req(sa('ns2', 'robot'), 'get', '', 'widgets', { name: 'w' }), noOpinion],
  ['service account without namespace in a RoleBinding: the binding namespace', req(builder, 'get', '', 'pods', { ns: 'ns1', name: 'p', sub: 'log' }), allowedBy('RoleBinding "sa-local/ns1" of ClusterRole "pod-logs" to ServiceAccount "builder/ns1"')],
  ['service account without namespace in a RoleBinding: not others', req(sa('ns2', 'builder'), 'get', '', 'pods', { ns: 'ns1', name: 'p', sub: 'log' }), noOpinion],
  ['service account of another namespace bound in ns2', req(robot, 'list', '', 'pods', { ns: 'ns2' }), allowedBy('RoleBinding "sa-remote/ns2" of ClusterRole "pod-reader" to ServiceAccount "robot/ns1"')],
  ['service account without namespace in a ClusterRoleBinding matches nobody', req(user('system:serviceaccount::ghost'), 'get', '', 'pods', { ns: 'a', name: 'p' }), noOpinion],
  ['the first subject naming the caller is the one reported', req(user('multi', 'team'), 'list', 'apps', 'deployments'), allowedBy('ClusterRoleBinding "multi" of ClusterRole "two-groups" to Group "team"')],
  // errors: reported, skipped, and other bindings still decide
  ['roleRef to a missing ClusterRole', req(user('carol'), 'get', '', 'pods', { ns: 'a', name: 'p' }), failed('clusterrole.rbac.authorization.platform.io "does-not-exist" not found')],
  ['roleRef to a missing Role', req(dev, 'create', '', 'pods', { ns: 'ns1' }), failed('role.rbac.authorization.platform.io "nonexistent" not found')],
  ['a missing role does not stop other bindings from allowing', req(dev, 'list', '', 'pods', { ns: 'ns1' }), allowedBy('RoleBinding "devs-pods/ns1" of ClusterRole "pod-reader" to Group "devs"')],
  ['errors of RoleBindings only in their namespace', req(dev, 'create', '', 'pods', { ns: 'ns2' }), noOpinion],
  ['several errors are aggregated', req(user('carol', 'devs'), 'create', '', 'pods', { ns: 'ns1' }), failed('[clusterrole.rbac.authorization.platform.io "does-not-exist" not found, role.rbac.authorization.platform.io "nonexistent" not found]')],
  ['an errored binding does not hide an allow elsewhere', req(user('carol', 'ops'), 'get', '', 'secrets', { ns: 'a', name: 's' }), allowedBy('ClusterRoleBinding "ops-secrets" of ClusterRole "secret-admin" to Group "ops"')],
  ['unsupported roleRef kind', req(user('wes'), 'get', '', 'pods', { ns: 'ns1', name: 'p' }), failed('unsupported role reference kind: "Foo"')],
  ['User subject with a namespace is an error and grants nothing', req(user('mallory'), 'get', '', 'pods', { ns: 'a', name: 'p' }), failed('ClusterRoleBinding "bad-subjects": User subject "mallory" may not have a namespace, has "ns1"')],
  ['Group subject with a namespace is an error and grants nothing', req(user('fay', 'fixers'), 'get', '', 'pods', { ns: 'a', name: 'p' }), failed('ClusterRoleBinding "bad-subjects": Group subject "fixers" may not have a namespace, has "x"')],
  ['unknown subject kind is an error to the user it names', req(user('robo'), 'get', '', 'pods', { ns: 'a', name: 'p' }), failed('ClusterRoleBinding "bad-subjects": subject "robo" has an unrecognized kind "Robot"')],
  ['unknown subject kind is an error to the group it names', req(user('rhea', 'robo'), 'get', '', 'pods', { ns: 'a', name: 'p' }), failed('ClusterRoleBinding "bad-subjects": subject "robo" has an unrecognized kind "Robot"')],
  ['malformed subjects are not reported to others', req(user('nobody'), 'get', '', 'pods', { ns: 'a', name: 'p' }), noOpinion],
  ['a malformed subject does not hide an allow', req(user('mallory', 'ops'), 'get', '', 'secrets', { ns: 'a', name: 's' }), allowedBy('ClusterRoleBinding "ops-secrets" of ClusterRole "secret-admin" to Group "ops"')],
  // no bindings at all
  ['a user with no bindings', req(user('stranger'), 'get', '', 'pods', { ns: 'a', name: 'p' }), noOpinion],
  ['anonymous', req(user('system:anonymous', 'system:unauthenticated'), 'get', '', 'pods', { ns: 'a', name: 'p' }), noOpinion],
];

describe('RBAC authorizer decisions', () => {
  it('has a table of at least 60 cases', () => expect(cases.length).toBeGreaterThanOrEqual(60));

  it.each(cases)('%s', (_name, attrs, expected) => {
    const { grantedBy, grantedByRule, ...result } = authorizer.authorize(attrs);
    expect(result).toEqual(expected);
    // An allow names the binding its reason names and the rule that matched (usage counts them); nothing else does.
    if (expected.decision === 'Allow') {
      expect(expected.reason).toContain(`${grantedBy?.kind} "${grantedBy?.name}`);
      expect(grantedByRule && ruleAllows(grantedByRule, attrs)).toBe(true);
    } else {
      expect(grantedBy).toBeUndefined();
      expect(grantedByRule).toBeUndefined();
    }
  });
});

describe('RBAC rule resolution (RulesFor)', () => {
  it('lists the rules of cluster bindings and of the namespace, split by kind', () => {
    expect(authorizer.rulesFor(user('bob', 'system:authenticated'), 'ns1')).toEqual({
      resourceRules: [
        { verbs: ['create', 'update'], apiGroups: ['apps'], resources: ['deployments'] },
        { verbs: ['get', 'list'], apiGroups: ['rbac.authorization.platform.io'], resources: ['roles', 'rolebindings'] },
      ],
      nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/healthz', '/logs/*', '/metrics*'] }],
      incomplete: false,
    });
  });

  it('keeps resourceNames and leaves out the rules of other namespaces', () => {
    expect(authorizer.rulesFor(nina, 'ns1').resourceRules).toEqual([
      {
        verbs: ['get', 'list', 'watch', 'update', 'delete', 'create', 'deletecollection'],
        apiGroups: [''],
        resources: ['configmaps'],
        resourceNames: ['app-config'],
      },
    ]);
    expect(authorizer.rulesFor(nina, 'ns2')).toEqual({ resourceRules: [], nonResourceRules: [], incomplete: false });
  });

  it('lists only cluster-wide rules for the empty namespace', () => {
    expect(authorizer.rulesFor(bob, '')).toEqual({ resourceRules: [], nonResourceRules: [], incomplete: false });
    expect(authorizer.rulesFor(alice, '').resourceRules).toEqual([{ verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['pods'] }]);
  });

  it('reports unresolvable roles in evaluationError and stays complete, as kube does', () => {
    expect(authorizer.rulesFor(dev, 'ns1')).toEqual({
      resourceRules: [{ verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['pods'] }],
      nonResourceRules: [],
      incomplete: false,
      evaluationError: 'role.rbac.authorization.platform.io "nonexistent" not found',
    });
  });

  it('returns copies, so callers cannot change the index', () => {
    const rules = authorizer.rulesFor(alice, 'ns1');
    rules.resourceRules[0].verbs.push('delete');
    expect(authorizer.authorize(req(alice, 'delete', '', 'pods', { ns: 'ns1', name: 'p' })).decision).toBe('NoOpinion');
  });
});
