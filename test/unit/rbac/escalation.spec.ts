import { StatusError } from '../../../src/apimachinery/errors';
import { AdmissionOperation, AdmissionRequest } from '../../../src/registry/rest/admission';
import { Target } from '../../../src/registry/rest/storage';
import { KubeObject } from '../../../src/apimachinery/types';
import { UserInfo } from '../../../src/apimachinery/user-info';
import { Authorizer, AuthorizationAttributes, AuthorizationResult } from '../../../src/authorization/authorizer';
import { AuthorizerChain } from '../../../src/authorization/authorizer-chain';
import { alwaysAllowAuthorizer, alwaysDenyAuthorizer } from '../../../src/authorization/authorizers';
import {
  CLUSTER_ROLE_BINDINGS_RESOURCE,
  CLUSTER_ROLES_RESOURCE,
  PolicyIndex,
  ROLE_BINDINGS_RESOURCE,
  ROLES_RESOURCE,
} from '../../../src/authorization/rbac/policy-index';
import { RbacAuthorizer } from '../../../src/authorization/rbac/rbac-authorizer';
import { RbacIndex } from '../../../src/authorization/rbac/rbac-index.service';
import { secretType } from '../../../src/core/kinds/secret';
import { clusterRoleBindingType, clusterRoleType, roleBindingType, roleType } from '../../../src/rbac/kinds/kinds';
import { RbacEscalationCheck } from '../../../src/rbac/escalation/escalation-check';
import { EscalationAuthorizer } from '../../../src/rbac/escalation/escalation-authorization';
import { isOnlyMutatingGcFields } from '../../../src/rbac/escalation/gc-fields';
import { confirmNoEscalation } from '../../../src/rbac/escalation/no-escalation';
import { compactRules, compactRuleString, describeMissingRules } from '../../../src/rbac/escalation/rule-description';
import { PolicyRule } from '../../../src/apis/rbac/types';
import { ObjectStore } from '../../../src/storage/mvcc/object-store';
import { clusterRole, clusterRoleBinding, G, indexOf, Objects, RBAC, role, roleBinding, U, user } from '../authorization/rbac-fixtures';

const r = (verbs: string[], apiGroups: string[], resources: string[], resourceNames?: string[]): PolicyRule =>
  resourceNames ? { verbs, apiGroups, resources, resourceNames } : { verbs, apiGroups, resources };
const u = (verbs: string[], nonResourceURLs: string[]): PolicyRule => ({ verbs, nonResourceURLs });

const alice = user('alice', 'devs', 'system:authenticated');
const PREFIX = 'user "alice" (groups=["devs" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n';

describe('describing missing permissions', () => {
  it('prints a rule as kube\'s CompactString: only set fields, Go-quoted lists', () => {
    expect(compactRuleString(r(['get', 'list'], [''], ['pods']))).toBe('{APIGroups:[""], Resources:["pods"], Verbs:["get" "list"]}');
    expect(compactRuleString(r(['get'], ['apps'], ['deployments'], ['web']))).toBe('{APIGroups:["apps"], Resources:["deployments"], ResourceNames:["web"], Verbs:["get"]}');
    expect(compactRuleString(u(['get'], ['/metrics']))).toBe('{NonResourceURLs:["/metrics"], Verbs:["get"]}');
    expect(compactRuleString(r(['get'], [''], ['a"b\\c\u0001']))).toBe('{APIGroups:[""], Resources:["a\\"b\\\\c\\x01"], Verbs:["get"]}');
  });

  it('merges the verbs of rules on one group/resource/name (kube\'s CompactRules), keeping others apart', () => {
    const atomic = [r(['get'], [''], ['pods']), r(['get'], [''], ['secrets'], ['a']), r(['list'], [''], ['pods']), r(['get'], [''], ['pods']), u(['get'], ['/x']), u(['post'], ['/x'])];
    expect(compactRules(atomic)).toEqual([u(['get'], ['/x']), u(['post'], ['/x']), r(['get', 'list'], [''], ['pods']), r(['get'], [''], ['secrets'], ['a'])]);
    // Rules with several groups, resources or names are not "simple" and stay as they are.
    const complex = [r(['get'], ['', 'apps'], ['pods']), r(['list'], ['', 'apps'], ['pods']), r(['get'], [''], ['pods'], ['a', 'b'])];
    expect(compactRules(complex)).toEqual(complex);
  });

  it('lists each missing permission once, sorted as Go sorts strings', () => {
    const missing = [
      r(['get'], [''], ['secrets']),
      u(['get'], ['/metrics']),
      r(['delete'], ['apps'], ['deployments']),
      r(['list'], [''], ['secrets']),
      r(['get'], [''], ['configmaps'], ['b']),
      r(['get'], [''], ['configmaps'], ['a']),
      u(['get'], ['/metrics']),
    ];
    expect(describeMissingRules(missing)).toBe(
      [
        '{APIGroups:[""], Resources:["configmaps"], ResourceNames:["a"], Verbs:["get"]}',
        '{APIGroups:[""], Resources:["configmaps"], ResourceNames:["b"], Verbs:["get"]}',
        '{APIGroups:[""], Resources:["secrets"], Verbs:["get" "list"]}',
        '{APIGroups:["apps"], Resources:["deployments"], Verbs:["delete"]}',
        '{NonResourceURLs:["/metrics"], Verbs:["get"]}',
      ].join('\n'),
    );
  });
});

describe('confirmNoEscalation', () => {
  const owner = { rules: [r(['get', 'list', 'watch'], [''], ['pods']), r(['*'], ['apps'], ['deployments'])], errors: [] };

  it('passes when the caller holds every permission granted', () => {
    expect(confirmNoEscalation(alice, owner, [r(['get', 'watch'], [''], ['pods']), r(['delete', 'patch'], ['apps'], ['deployments'])])).toBeNull();
    expect(confirmNoEscalation(alice, { rules: [], errors: [] }, [])).toBeNull();
  });

  it('lists only the missing permissions, in kube\'s words', () => {
    const granted = [r(['get', 'delete'], [''], ['pods']), r(['get'], [''], ['secrets']), r(['get'], ['apps'], ['deployments'])];
    expect(confirmNoEscalation(alice, owner, granted)).toBe(
      `${PREFIX}{APIGroups:[""], Resources:["pods"], Verbs:["delete"]}\n{APIGroups:[""], Resources:["secrets"], Verbs:["get"]}`,
    );
  });

  it('quotes the user name and groups as Go does, also with no groups', () => {
    expect(confirmNoEscalation(user('we"ird'), { rules: [], errors: [] }, [u(['get'], ['/x'])])).toBe(
      'user "we\\"ird" (groups=[]) is attempting to grant RBAC permissions not currently held:\n{NonResourceURLs:["/x"], Verbs:["get"]}',
    );
  });

  it('adds the resolution errors when the check fails, and ignores them when it passes', () => {
    const broken = { rules: owner.rules, errors: ['clusterrole.rbac.authorization.platform.io "gone" not found'] };
    expect(confirmNoEscalation(alice, broken, [r(['get'], [''], ['pods'])])).toBeNull();
    expect(confirmNoEscalation(alice, broken, [r(['get'], [''], ['secrets'])])).toBe(
      `${PREFIX}{APIGroups:[""], Resources:["secrets"], Verbs:["get"]}; resolution errors: [clusterrole.rbac.authorization.platform.io "gone" not found]`,
    );
    const twice = { rules: [], errors: ['a', 'b', 'a'] };
    expect(confirmNoEscalation(alice, twice, [r(['get'], [''], ['secrets'])])).toMatch(/; resolution errors: \[\[a, b\]\]$/);
  });
});

describe('isOnlyMutatingGcFields', () => {
  const old: KubeObject = {
    metadata: { name: 'r', resourceVersion: '5', finalizers: ['a'], managedFields: [{ manager: 'x' }] },
    rules: [r(['get'], [''], ['pods'])],
  };

  it('is true when only finalizers, owner references or managed fields change', () => {
    expect(isOnlyMutatingGcFields({ ...old, metadata: { ...old.metadata, finalizers: [] } }, old)).toBe(true);
    const owned = { ...old, metadata: { ...old.metadata, ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: 'n', uid: 'u' }], managedFields: [] } };
    expect(isOnlyMutatingGcFields(owned, old)).toBe(true);
    const { finalizers: _f, ...withoutFinalizers } = old.metadata;
    expect(isOnlyMutatingGcFields({ ...old, metadata: withoutFinalizers }, old)).toBe(true);
  });

  it('is false when anything else changes', () => {
    expect(isOnlyMutatingGcFields({ ...old, rules: [r(['*'], ['*'], ['*'])] }, old)).toBe(false);
    expect(isOnlyMutatingGcFields({ ...old, metadata: { ...old.metadata, labels: { a: 'b' } } }, old)).toBe(false);
    expect(isOnlyMutatingGcFields({ ...old, metadata: { ...old.metadata, resourceVersion: undefined } }, old)).toBe(false);
  });
});

/** An authorizer that answers from a table and records what it was asked. */
function scripted(type: string, answer: (attrs: AuthorizationAttributes) => AuthorizationResult['decision']): Authorizer & { asked: AuthorizationAttributes[] } {
  const asked: AuthorizationAttributes[] = [];
  return {
    type,
    name: type.toLowerCase(),
    asked,
    authorize: (attrs) => {
      asked.push(attrs);
      return { decision: answer(attrs) };
    },
  };
}

describe('EscalationAuthorizer', () => {
  const noRbac = new RbacAuthorizer('rbac', indexOf({}));
  const bindRef = { apiGroup: RBAC, kind: 'ClusterRole', name: 'view' };

  it('never takes AlwaysAllow\'s word for escalate or bind', async () => {
    const authorizer = new EscalationAuthorizer(() => [alwaysAllowAuthorizer], noRbac);
    expect(await authorizer.mayEscalate(alice, 'roles', 'team', 'x')).toBe(false);
    expect(await authorizer.mayBind(alice, bindRef, 'team')).toBe(false);
  });

  it('asks the configured authorizers in order: the first decision wins, failures have no opinion', async () => {
    const failing: Authorizer = { type: 'Webhook', name: 'broken', authorize: () => Promise.reject(new Error('connection refused')) };
    const webhook = scripted('Webhook', (a) => (a.verb === 'escalate' ? 'Allow' : 'NoOpinion'));
    expect(await new EscalationAuthorizer(() => [failing, webhook], noRbac).mayEscalate(alice, 'clusterroles', '', '')).toBe(true);
    expect(webhook.asked[0]).toMatchObject({ verb: 'escalate', apiGroup: RBAC, apiVersion: '*', resource: 'clusterroles', namespace: '', name: '', isResourceRequest: true });
    const deny = new EscalationAuthorizer(() => [alwaysDenyAuthorizer, webhook], noRbac);
    expect(await deny.mayEscalate(alice, 'roles', 'team', 'x')).toBe(false);
  });

  it('falls back to the RBAC policy when RBAC authorization is not configured', async () => {
    const index = indexOf({
      clusterRoles: [clusterRole('binder', [r(['bind'], [RBAC], ['clusterroles'], ['view'])])],
      roleBindings: [roleBinding('team', 'alice-binds', 'ClusterRole', 'binder', [U('alice')])],
    });
    const authorizer = new EscalationAuthorizer(() => [alwaysAllowAuthorizer], new RbacAuthorizer('rbac', index));
    expect(await authorizer.mayBind(alice, bindRef, 'team')).toBe(true);
    expect(await authorizer.mayBind(alice, bindRef, 'other')).toBe(false);
    expect(await authorizer.mayBind(alice, { ...bindRef, name: 'edit' }, 'team')).toBe(false);
    expect(await authorizer.mayBind(alice, { ...bindRef, kind: 'Group' }, 'team')).toBe(false);
  });

  it('asks bind with the role\'s group, resource and name in the binding\'s namespace', async () => {
    const rbac = scripted('RBAC', () => 'NoOpinion');
    await new EscalationAuthorizer(() => [rbac], noRbac).mayBind(alice, { apiGroup: RBAC, kind: 'Role', name: 'dev' }, 'team');
    expect(rbac.asked).toHaveLength(1); // the configured RBAC authorizer is not asked twice
    expect(rbac.asked[0]).toMatchObject({ verb: 'bind', apiGroup: RBAC, resource: 'roles', name: 'dev', namespace: 'team' });
  });
});

/** The policy index as the admission plugin reads it, always in sync. */
class SyncedIndex extends PolicyIndex {
  readied = 0;
  async ready(): Promise<void> {
    this.readied++;
  }
  async waitForRevision(): Promise<boolean> {
    return true;
  }
  syncedRevision(): string {
    return '1';
  }
}

function admissionWith(objects: Objects, configured: Authorizer[] = [alwaysAllowAuthorizer]) {
  const index = new SyncedIndex();
  index.replaceAll([
    { resource: ROLES_RESOURCE, items: objects.roles ?? [] },
    { resource: CLUSTER_ROLES_RESOURCE, items: objects.clusterRoles ?? [] },
    { resource: ROLE_BINDINGS_RESOURCE, items: objects.roleBindings ?? [] },
    { resource: CLUSTER_ROLE_BINDINGS_RESOURCE, items: objects.clusterRoleBindings ?? [] },
  ]);
  const chain = new AuthorizerChain();
  chain.replace(configured);
  const store = { currentRevision: async () => '1' } as unknown as ObjectStore;
  return { index, plugin: new RbacEscalationCheck(index as unknown as RbacIndex, chain, store) };
}

interface Write {
  operation?: AdmissionOperation;
  who?: UserInfo;
  object: KubeObject;
  old?: KubeObject;
  pathName?: string;
}

function request(kind: 'Role' | 'ClusterRole' | 'RoleBinding' | 'ClusterRoleBinding', write: Write): AdmissionRequest {
  const type = { Role: roleType, ClusterRole: clusterRoleType, RoleBinding: roleBindingType, ClusterRoleBinding: clusterRoleBindingType }[kind];
  const target: Target = {
    type,
    groupResource: { group: RBAC, resource: type.plural },
    namespace: write.object.metadata.namespace ?? '',
    name: write.object.metadata.name!,
  };
  const operation = write.operation ?? (write.old ? 'UPDATE' : 'CREATE');
  return {
    operation,
    target,
    object: write.object,
    old: write.old,
    options: { user: write.who ?? alice, dryRun: false },
    ...(operation === 'CREATE' ? { pathName: write.pathName ?? '' } : {}),
  };
}

/** The Status a refused admission throws, or 'admitted'. */
async function outcome(plugin: RbacEscalationCheck, req: AdmissionRequest): Promise<'admitted' | { code: number; reason: string; message: string }> {
  try {
    await plugin.check(req);
    return 'admitted';
  } catch (err) {
    if (!(err instanceof StatusError)) throw err;
    return { code: err.code, reason: err.reason, message: err.message };
  }
}

describe('RbacEscalationCheck', () => {
  const podReader = [r(['get', 'list'], [''], ['pods'])];
  // alice reads pods in "team" (through a RoleBinding of a ClusterRole) and reads configmaps everywhere.
  const policy: Objects = {
    clusterRoles: [
      clusterRole('pod-reader', podReader),
      clusterRole('cm-reader', [r(['get'], [''], ['configmaps'])]),
      clusterRole('secret-admin', [r(['*'], [''], ['secrets'])]),
      clusterRole('secret-reader', [r(['get'], [''], ['secrets'])]),
      clusterRole('escalator', [r(['escalate'], [RBAC], ['roles'], ['named'])]),
      clusterRole('binder', [r(['bind'], [RBAC], ['clusterroles'], ['secret-admin'])]),
    ],
    roleBindings: [
      roleBinding('team', 'alice-pods', 'ClusterRole', 'pod-reader', [U('alice')]),
      roleBinding('team', 'alice-escalates', 'ClusterRole', 'escalator', [G('devs')]),
      roleBinding('team', 'alice-binds', 'ClusterRole', 'binder', [U('alice')]),
    ],
    clusterRoleBindings: [clusterRoleBinding('alice-cms', 'cm-reader', [U('alice')])],
  };

  it('admits a Role the caller holds at its namespace, refuses it elsewhere with only the missing rules', async () => {
    const { plugin } = admissionWith(policy);
    const held = role('team', 'reader', [...podReader, r(['get'], [''], ['configmaps'])]);
    expect(await outcome(plugin, request('Role', { object: held }))).toBe('admitted');
    expect(await outcome(plugin, request('Role', { object: role('other', 'reader', held.rules) }))).toEqual({
      code: 403,
      reason: 'Forbidden',
      message: `roles.rbac.authorization.platform.io "reader" is forbidden: ${PREFIX}{APIGroups:[""], Resources:["pods"], Verbs:["get" "list"]}`,
    });
  });

  it('checks a ClusterRole against the cluster-wide rules only', async () => {
    const { plugin } = admissionWith(policy);
    expect(await outcome(plugin, request('ClusterRole', { object: clusterRole('cm', [r(['get'], [''], ['configmaps'])]) }))).toBe('admitted');
    expect(await outcome(plugin, request('ClusterRole', { object: clusterRole('pods', podReader) }))).toMatchObject({ code: 403 });
  });

  it('checks updates (the full new rule set), but not those that only touch finalizers', async () => {
    const { plugin } = admissionWith(policy);
    const old = role('team', 'wide', [r(['*'], ['*'], ['*'])]);
    const renamed = { ...old, metadata: { ...old.metadata, labels: { x: 'y' } } };
    expect(await outcome(plugin, request('Role', { object: renamed, old }))).toMatchObject({ code: 403 });
    const finalized = { ...old, metadata: { ...old.metadata, finalizers: ['done'] } };
    expect(await outcome(plugin, request('Role', { object: finalized, old }))).toBe('admitted');
  });

  it('escalate on roles admits anything; limited by resourceNames it needs the name in the path', async () => {
    const { plugin } = admissionWith(policy);
    const wide = role('team', 'named', [r(['*'], ['*'], ['*'])]);
    expect(await outcome(plugin, request('Role', { object: wide, pathName: 'named' }))).toBe('admitted'); // PUT or apply
    expect(await outcome(plugin, request('Role', { object: wide, pathName: '' }))).toMatchObject({ code: 403 }); // POST
    expect(await outcome(plugin, request('Role', { object: wide, old: role('team', 'named', []) }))).toBe('admitted');
    expect(await outcome(plugin, request('Role', { object: role('other', 'named', wide.rules), pathName: 'named' }))).toMatchObject({ code: 403 });
  });

  it('lets system:masters write anything without reading the policy', async () => {
    const { plugin, index } = admissionWith({});
    const admin = user('admin', 'system:masters');
    expect(await outcome(plugin, request('ClusterRole', { who: admin, object: { ...clusterRole('all', [r(['*'], ['*'], ['*'])]), aggregationRule: { clusterRoleSelectors: [{}] } } }))).toBe('admitted');
    expect(await outcome(plugin, request('ClusterRoleBinding', { who: admin, object: clusterRoleBinding('x', 'missing', [U('bob')]) }))).toBe('admitted');
    expect(index.readied).toBe(0);
  });

  it('requires every permission to set or keep an aggregationRule', async () => {
    const { plugin } = admissionWith(policy);
    const aggregated = { ...clusterRole('agg', []), aggregationRule: { clusterRoleSelectors: [{ matchLabels: { a: 'b' } }] } };
    expect(await outcome(plugin, request('ClusterRole', { object: aggregated }))).toEqual({
      code: 403,
      reason: 'Forbidden',
      message: 'clusterroles.rbac.authorization.platform.io "agg" is forbidden: must have cluster-admin privileges to use the aggregationRule',
    });
    const dropped = clusterRole('agg', []);
    expect(await outcome(plugin, request('ClusterRole', { object: dropped, old: aggregated }))).toMatchObject({ code: 403 });
    const { plugin: superPlugin } = admissionWith({
      clusterRoles: [clusterRole('all', [r(['*'], ['*'], ['*']), u(['*'], ['*'])])],
      clusterRoleBindings: [clusterRoleBinding('alice-all', 'all', [U('alice')])],
    });
    expect(await outcome(superPlugin, request('ClusterRole', { object: aggregated }))).toBe('admitted');
  });

  it('admits a binding to a role whose permissions the caller holds at the binding\'s scope', async () => {
    const { plugin } = admissionWith(policy);
    expect(await outcome(plugin, request('RoleBinding', { object: roleBinding('team', 'b', 'ClusterRole', 'pod-reader', [U('bob')]) }))).toBe('admitted');
    expect(await outcome(plugin, request('RoleBinding', { object: roleBinding('other', 'b', 'ClusterRole', 'pod-reader', [U('bob')]) }))).toEqual({
      code: 403,
      reason: 'Forbidden',
      message: `rolebindings.rbac.authorization.platform.io "b" is forbidden: ${PREFIX}{APIGroups:[""], Resources:["pods"], Verbs:["get" "list"]}`,
    });
    // A ClusterRoleBinding grants cluster-wide: permissions held in one namespace do not do.
    expect(await outcome(plugin, request('ClusterRoleBinding', { object: clusterRoleBinding('b', 'pod-reader', [U('bob')]) }))).toMatchObject({ code: 403 });
    expect(await outcome(plugin, request('ClusterRoleBinding', { object: clusterRoleBinding('b', 'cm-reader', [U('bob')]) }))).toBe('admitted');
  });

  it('admits a binding the caller may bind, even to a role that does not exist yet', async () => {
    const { plugin } = admissionWith(policy);
    expect(await outcome(plugin, request('RoleBinding', { object: roleBinding('team', 'b', 'ClusterRole', 'secret-admin', [U('bob')]) }))).toBe('admitted');
    // bind limited by resourceNames does not extend to another role.
    expect(await outcome(plugin, request('RoleBinding', { object: roleBinding('team', 'b', 'ClusterRole', 'secret-reader', [U('bob')]) }))).toMatchObject({ code: 403 });
    const withBindOnMissing = admissionWith({
      ...policy,
      clusterRoles: [...policy.clusterRoles!.filter((c) => c.metadata.name !== 'secret-admin')],
    });
    expect(await outcome(withBindOnMissing.plugin, request('RoleBinding', { object: roleBinding('team', 'b', 'ClusterRole', 'secret-admin', [U('bob')]) }))).toBe('admitted');
  });

  it('answers 404 for a role that does not exist when the caller may not bind it', async () => {
    const { plugin } = admissionWith(policy);
    expect(await outcome(plugin, request('RoleBinding', { object: roleBinding('team', 'b', 'Role', 'nope', [U('bob')]) }))).toEqual({
      code: 404,
      reason: 'NotFound',
      message: 'roles.rbac.authorization.platform.io "nope" not found',
    });
    expect(await outcome(plugin, request('ClusterRoleBinding', { object: clusterRoleBinding('b', 'nope', [U('bob')]) }))).toMatchObject({
      code: 404,
      message: 'clusterroles.rbac.authorization.platform.io "nope" not found',
    });
  });

  it('resolves a Role reference in the binding\'s namespace', async () => {
    const { plugin } = admissionWith({ ...policy, roles: [role('team', 'local', podReader), role('other', 'local', [r(['*'], ['*'], ['*'])])] });
    expect(await outcome(plugin, request('RoleBinding', { object: roleBinding('team', 'b', 'Role', 'local', [U('bob')]) }))).toBe('admitted');
    expect(await outcome(plugin, request('RoleBinding', { object: roleBinding('other', 'b', 'Role', 'local', [U('bob')]) }))).toMatchObject({ code: 403 });
  });

  it('leaves deletes and other kinds alone', async () => {
    const { plugin } = admissionWith({});
    expect(await outcome(plugin, request('Role', { operation: 'DELETE', object: role('team', 'x', [r(['*'], ['*'], ['*'])]) }))).toBe('admitted');
    const secret = request('Role', { object: role('team', 'x', [r(['*'], ['*'], ['*'])]) });
    secret.target = { ...secret.target, type: secretType, groupResource: { group: '', resource: 'secrets' } };
    expect(await outcome(plugin, secret)).toBe('admitted');
  });
});
