import { StatusError } from '../../../src/apimachinery/errors';
import { UserInfo } from '../../../src/apimachinery/user-info';
import {
  ASSOCIATED_NODE_KEYS_EXTRA,
  associatedNodeView,
  ConstrainedImpersonation,
  ImpersonationVerb,
  impersonateOnVerb,
  impersonateVerb,
  modeApplies,
  NODE_NAME_EXTRA,
  parseImpersonationVerb,
  WantedUser,
  wantedUserFromHeaders,
} from '../../../src/authentication/impersonation/constrained-impersonation';
import { ImpersonationRequestError } from '../../../src/authentication/impersonation/impersonation';
import { AuthorizationAttributes, AuthorizationResult } from '../../../src/authorization/authorizer';
import { resourceAttributes } from '../../../src/authorization/request-attributes';
import { NODE_NAME_EXTRA as TOKEN_NODE_NAME_EXTRA } from '../../../src/authentication/serviceaccount/token-claims';

const AUTHN = 'authentication.platform.io';

function wanted(name: string, more: Partial<Omit<WantedUser, 'extra'>> & { extra?: Record<string, string[]> } = {}): WantedUser {
  return { name, uid: more.uid ?? '', groups: more.groups ?? [], extra: new Map(Object.entries(more.extra ?? {})) };
}

const user = (username: string, groups: string[] = [], extra?: Record<string, string[]>): UserInfo => ({ username, groups, ...(extra ? { extra } : {}) });

/** A get of pod foo in bar, or another verb on it. */
const podRequest = (requestor: UserInfo, verb = 'get') =>
  resourceAttributes({ user: requestor, verb, path: '/api/v1/namespaces/bar/pods/foo', apiGroup: '', apiVersion: 'v1', resource: 'pods', namespace: 'bar', name: 'foo' });

/**
 * The grants of kube's constrained impersonation filter test, as an authorizer that records
 * what it is asked: each impersonator may impersonate in one mode, and every requestor but
 * legacy-impersonator may `impersonate-on:*:get` and `:list`.
 */
function testAuthorizer() {
  const asked: AuthorizationAttributes[] = [];
  const allows = (a: AuthorizationAttributes): boolean => {
    const name = a.user.username;
    const firstGroup = a.user.groups[0];
    if (name === 'sa-impersonator' && a.verb === 'impersonate:serviceaccount' && a.resource === 'serviceaccounts') return true;
    if (name === 'node-impersonator' && a.verb === 'impersonate:arbitrary-node' && a.resource === 'nodes') return true;
    if (firstGroup === 'associate-node-impersonator' && a.verb === 'impersonate:associated-node' && a.resource === 'nodes') return true;
    if (name === 'user-impersonator' && a.verb === 'impersonate:user-info' && a.resource === 'users') return true;
    if (firstGroup === 'extra-setter-scopes' && a.verb === 'impersonate:user-info' && a.resource === 'userextras' && a.subresource === 'pandas.io/scopes') return true;
    if (name === 'legacy-impersonator' && a.verb === 'impersonate') return true;
    if (name !== 'legacy-impersonator' && a.verb.startsWith('impersonate-on:') && (a.verb.endsWith(':get') || a.verb.endsWith(':list'))) return true;
    if (name === 'many-groups-impersonator' && a.verb === 'impersonate:user-info' && (a.resource === 'users' || (a.resource === 'groups' && a.name === '*'))) return true;
    if (name === 'many-extras-impersonator' && a.verb === 'impersonate:user-info' && (a.resource === 'users' || (a.resource === 'userextras' && a.subresource === '*' && a.name === '*'))) {
      return true;
    }
    return false;
  };
  const authorize = async (a: AuthorizationAttributes): Promise<AuthorizationResult> => {
    asked.push(a);
    return allows(a) ? { decision: 'Allow' } : { decision: 'NoOpinion', reason: 'deny by default' };
  };
  /** What was asked since the last call: verb, group, resource[/subresource], namespace, name. */
  const questions = () => asked.splice(0).map((a) => [a.verb, a.apiGroup, a.subresource ? `${a.resource}/${a.subresource}` : a.resource, a.namespace, a.name]);
  return { authorize, asked, questions };
}

async function refusal(promise: Promise<unknown>): Promise<StatusError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof StatusError) return err;
    throw err;
  }
  throw new Error('expected a refusal');
}

describe('impersonation verbs', () => {
  it('builds impersonate:<mode> and impersonate-on:<mode>:<verb>', () => {
    expect(impersonateVerb('user-info')).toBe('impersonate:user-info');
    expect(impersonateVerb('associated-node')).toBe('impersonate:associated-node');
    expect(impersonateOnVerb('serviceaccount', 'list')).toBe('impersonate-on:serviceaccount:list');
    expect(impersonateOnVerb('arbitrary-node', 'deletecollection')).toBe('impersonate-on:arbitrary-node:deletecollection');
  });

  it.each([
    ['impersonate', { kind: 'legacy' }],
    ['impersonate:user-info', { kind: 'identity', mode: 'user-info' }],
    ['impersonate:serviceaccount', { kind: 'identity', mode: 'serviceaccount' }],
    ['impersonate:arbitrary-node', { kind: 'identity', mode: 'arbitrary-node' }],
    ['impersonate:associated-node', { kind: 'identity', mode: 'associated-node' }],
    ['impersonate-on:user-info:list', { kind: 'action', mode: 'user-info', verb: 'list' }],
    ['impersonate-on:associated-node:watch', { kind: 'action', mode: 'associated-node', verb: 'watch' }],
    // The verb of a custom subresource may hold colons itself.
    ['impersonate-on:serviceaccount:a:b', { kind: 'action', mode: 'serviceaccount', verb: 'a:b' }],
  ] as Array<[string, ImpersonationVerb]>)('parses %s', (verb, parts) => {
    expect(parseImpersonationVerb(verb)).toEqual(parts);
    if (parts.kind === 'action') expect(impersonateOnVerb(parts.mode, parts.verb)).toBe(verb);
    if (parts.kind === 'identity') expect(impersonateVerb(parts.mode)).toBe(verb);
  });

  it.each(['get', '*', '', 'impersonation', 'impersonate:', 'impersonate:legacy', 'impersonate:USER-INFO', 'impersonate-on:user-info', 'impersonate-on:user-info:', 'impersonate-on:node:get'])(
    'does not take %j for an impersonation verb',
    (verb) => expect(parseImpersonationVerb(verb)).toBeUndefined(),
  );

  it('reads the node name from the extra service-account tokens carry', () => {
    expect(NODE_NAME_EXTRA).toBe(TOKEN_NODE_NAME_EXTRA);
  });
});

describe('the wanted identity of the headers', () => {
  it('keeps what is asked, without defaults', () => {
    const headers: Array<[string, string]> = [
      ['Impersonate-User', 'bob'],
      ['Impersonate-Group', 'a'],
      ['Impersonate-Group', 'b'],
      ['Impersonate-Uid', 'u1'],
      ['Impersonate-Extra-Example.com%2fScopes', 'x'],
      ['Impersonate-Extra-example.com%2Fscopes', 'y'],
    ];
    expect(wantedUserFromHeaders(headers)).toEqual({ name: 'bob', uid: 'u1', groups: ['a', 'b'], extra: new Map([['example.com/scopes', ['x', 'y']]]) });
    expect(wantedUserFromHeaders([['Accept', 'application/json']])).toBeUndefined();
    expect(wantedUserFromHeaders([['Impersonate-User', '']])).toBeUndefined();
  });

  it.each([
    [[['Impersonate-Group', 'devs']], '&user.DefaultInfo{Name:"", UID:"", Groups:[]string{"devs"}, Extra:map[string][]string(nil)}'],
    [[['Impersonate-Uid', 'u1']], '&user.DefaultInfo{Name:"", UID:"u1", Groups:[]string(nil), Extra:map[string][]string(nil)}'],
    [
      [
        ['Impersonate-Extra-b', '2'],
        ['Impersonate-Extra-a', '1'],
        ['Impersonate-User', ''],
      ],
      '&user.DefaultInfo{Name:"", UID:"", Groups:[]string(nil), Extra:map[string][]string{"a":[]string{"1"}, "b":[]string{"2"}}}',
    ],
  ])('refuses parts without a user as kube prints them (%j)', (headers, described) => {
    expect(() => wantedUserFromHeaders(headers as Array<[string, string]>)).toThrow(new ImpersonationRequestError(`requested ${described} without impersonating a user name`));
  });
});

describe('which modes apply', () => {
  const saOnNode1 = user('system:serviceaccount:default:agent', [], { [NODE_NAME_EXTRA]: ['node1'] });

  it.each([
    ['associated-node', wanted('system:node:node1'), saOnNode1, true],
    ['associated-node', wanted('system:node:node2'), saOnNode1, false],
    // Only a service account is associated with its node, and only through exactly one value.
    ['associated-node', wanted('system:node:node1'), user('someone', [], { [NODE_NAME_EXTRA]: ['node1'] }), false],
    ['associated-node', wanted('system:node:node1'), user('system:serviceaccount:default:agent', [], { [NODE_NAME_EXTRA]: ['node1', 'node1'] }), false],
    ['associated-node', wanted('system:node:node1', { groups: ['g'] }), saOnNode1, false],
    ['arbitrary-node', wanted('system:node:node1'), user('x'), true],
    ['arbitrary-node', wanted('system:node:Not_A_Node'), user('x'), false],
    ['arbitrary-node', wanted('system:node:node1', { uid: 'u' }), user('x'), false],
    ['serviceaccount', wanted('system:serviceaccount:ns:sa'), user('x'), true],
    ['serviceaccount', wanted('system:serviceaccount:ns:sa', { extra: { 'a.io/b': ['c'] } }), user('x'), false],
    ['user-info', wanted('bob', { groups: ['g'], uid: 'u', extra: { 'a.io/b': ['c'] } }), user('x'), true],
    ['user-info', wanted('system:node:node1'), user('x'), false],
    ['user-info', wanted('system:serviceaccount:ns:sa', { groups: ['g'] }), user('x'), false],
    // Not a valid node name: an ordinary user.
    ['user-info', wanted('system:node:Not_A_Node'), user('x'), true],
  ] as const)('%s for %j requested by %j: %s', (mode, wantedUser, requestor, applies) => {
    expect(modeApplies(mode, wantedUser, requestor)).toBe(applies);
  });

  it('asks associated-node questions about the extra keys and, for the identity, any node', () => {
    const attrs = resourceAttributes({ user: saOnNode1, verb: 'impersonate:associated-node', apiGroup: AUTHN, apiVersion: 'v1', resource: 'nodes', name: 'node1' });
    expect(associatedNodeView(attrs)).toEqual({ ...attrs, name: '*', user: { ...saOnNode1, extra: { [ASSOCIATED_NODE_KEYS_EXTRA]: [NODE_NAME_EXTRA] } } });
    const onAttrs = podRequest(saOnNode1);
    expect(associatedNodeView(onAttrs).name).toBe('foo');
  });
});

describe('constrained impersonation: the order of checks', () => {
  const tester = user('tester');
  const userImpersonator = user('user-impersonator');
  const saImpersonator = user('sa-impersonator');
  const nodeImpersonator = user('node-impersonator');

  it('asks impersonate-on, then impersonate:user-info, then the legacy verb; the first refusal answers', async () => {
    const { authorize, questions } = testAuthorizer();
    const err = await refusal(new ConstrainedImpersonation(authorize).impersonate(wanted('anyone'), podRequest(tester)));
    expect(questions()).toEqual([
      ['impersonate-on:user-info:get', '', 'pods', 'bar', 'foo'],
      ['impersonate:user-info', AUTHN, 'users', '', 'anyone'],
      ['impersonate', '', 'users', '', 'anyone'],
    ]);
    expect(err.code).toBe(403);
    expect(err.message).toBe(
      'users.authentication.platform.io "anyone" is forbidden: User "tester" cannot impersonate:user-info resource "users" in API group "authentication.platform.io" at the cluster scope: deny by default',
    );
  });

  it('allows get as a user-info impersonation, refuses create on the impersonate-on check', async () => {
    const { authorize, questions } = testAuthorizer();
    const impersonation = new ConstrainedImpersonation(authorize);
    expect(await impersonation.impersonate(wanted('anyone'), podRequest(userImpersonator))).toEqual({
      user: { username: 'anyone', groups: ['system:authenticated'] },
      constraint: 'impersonate:user-info',
    });
    expect(questions()).toEqual([
      ['impersonate-on:user-info:get', '', 'pods', 'bar', 'foo'],
      ['impersonate:user-info', AUTHN, 'users', '', 'anyone'],
    ]);
    const err = await refusal(impersonation.impersonate(wanted('anyone'), podRequest(userImpersonator, 'create')));
    expect(questions()).toEqual([
      ['impersonate-on:user-info:create', '', 'pods', 'bar', 'foo'],
      ['impersonate', '', 'users', '', 'anyone'],
    ]);
    expect(err.message).toBe('pods "foo" is forbidden: User "user-impersonator" cannot impersonate-on:user-info:create resource "pods" in API group "" in the namespace "bar": deny by default');
  });

  it('impersonates a service account with its groups', async () => {
    const { authorize, questions } = testAuthorizer();
    expect(await new ConstrainedImpersonation(authorize).impersonate(wanted('system:serviceaccount:default:default'), podRequest(saImpersonator))).toEqual({
      user: { username: 'system:serviceaccount:default:default', groups: ['system:serviceaccounts', 'system:serviceaccounts:default', 'system:authenticated'] },
      constraint: 'impersonate:serviceaccount',
    });
    expect(questions()).toEqual([
      ['impersonate-on:serviceaccount:get', '', 'pods', 'bar', 'foo'],
      ['impersonate:serviceaccount', AUTHN, 'serviceaccounts', 'default', 'default'],
    ]);
  });

  it('impersonates any node in arbitrary-node mode, as system:nodes', async () => {
    const { authorize, questions } = testAuthorizer();
    expect(await new ConstrainedImpersonation(authorize).impersonate(wanted('system:node:node1'), podRequest(nodeImpersonator))).toEqual({
      user: { username: 'system:node:node1', groups: ['system:nodes', 'system:authenticated'] },
      constraint: 'impersonate:arbitrary-node',
    });
    expect(questions()).toEqual([
      ['impersonate-on:arbitrary-node:get', '', 'pods', 'bar', 'foo'],
      ['impersonate:arbitrary-node', AUTHN, 'nodes', '', 'node1'],
    ]);
  });

  it('refuses a node to who may not impersonate one, and an action not granted', async () => {
    const { authorize, questions } = testAuthorizer();
    const err = await refusal(new ConstrainedImpersonation(authorize).impersonate(wanted('system:node:node1'), podRequest(saImpersonator)));
    expect(questions()).toEqual([
      ['impersonate-on:arbitrary-node:get', '', 'pods', 'bar', 'foo'],
      ['impersonate:arbitrary-node', AUTHN, 'nodes', '', 'node1'],
      ['impersonate', '', 'users', '', 'system:node:node1'],
    ]);
    expect(err.message).toBe(
      'nodes.authentication.platform.io "node1" is forbidden: User "sa-impersonator" cannot impersonate:arbitrary-node resource "nodes" in API group "authentication.platform.io" at the cluster scope: deny by default',
    );
    const action = await refusal(new ConstrainedImpersonation(authorize).impersonate(wanted('system:node:node1'), podRequest(nodeImpersonator, 'create')));
    expect(action.message).toBe('pods "foo" is forbidden: User "node-impersonator" cannot impersonate-on:arbitrary-node:create resource "pods" in API group "" in the namespace "bar": deny by default');
  });

  it('impersonates its own node for a service account associated with it, asking about any node and the extra keys', async () => {
    const { authorize, asked, questions } = testAuthorizer();
    const impersonation = new ConstrainedImpersonation(authorize);
    const onNode = (node: string) => user('system:serviceaccount:default:default', ['associate-node-impersonator'], { [NODE_NAME_EXTRA]: [node], 'authentication.platform.io/pod-name': ['p'] });
    expect(await impersonation.impersonate(wanted('system:node:node1'), podRequest(onNode('node1')))).toEqual({
      user: { username: 'system:node:node1', groups: ['system:nodes', 'system:authenticated'] },
      constraint: 'impersonate:associated-node',
    });
    expect(asked.map((a) => a.user.extra)).toEqual([
      { [ASSOCIATED_NODE_KEYS_EXTRA]: ['authentication.platform.io/node-name', 'authentication.platform.io/pod-name'] },
      { [ASSOCIATED_NODE_KEYS_EXTRA]: ['authentication.platform.io/node-name', 'authentication.platform.io/pod-name'] },
    ]);
    expect(questions()).toEqual([
      ['impersonate-on:associated-node:get', '', 'pods', 'bar', 'foo'],
      ['impersonate:associated-node', AUTHN, 'nodes', '', '*'],
    ]);
    // Another node than its own is an arbitrary node.
    const err = await refusal(impersonation.impersonate(wanted('system:node:node1'), podRequest(onNode('node2'))));
    expect(questions()).toEqual([
      ['impersonate-on:arbitrary-node:get', '', 'pods', 'bar', 'foo'],
      ['impersonate:arbitrary-node', AUTHN, 'nodes', '', 'node1'],
      ['impersonate', '', 'users', '', 'system:node:node1'],
    ]);
    expect(err.message).toBe(
      'nodes.authentication.platform.io "node1" is forbidden: User "system:serviceaccount:default:default" cannot impersonate:arbitrary-node resource "nodes" in API group "authentication.platform.io" at the cluster scope: deny by default',
    );
  });

  it('names the node as "*" when associated-node refuses the identity', async () => {
    const refuseIdentity = async (a: AuthorizationAttributes): Promise<AuthorizationResult> =>
      a.verb.startsWith('impersonate-on:') ? { decision: 'Allow' } : { decision: 'NoOpinion', reason: 'no' };
    const agent = user('system:serviceaccount:kube-system:agent', [], { [NODE_NAME_EXTRA]: ['node1'] });
    const err = await refusal(new ConstrainedImpersonation(refuseIdentity).impersonate(wanted('system:node:node1'), podRequest(agent)));
    expect(err.message).toBe(
      'nodes.authentication.platform.io "*" is forbidden: User "system:serviceaccount:kube-system:agent" cannot impersonate:associated-node resource "nodes" in API group "authentication.platform.io" at the cluster scope: no',
    );
  });

  it('checks user, groups and each extra value in user-info mode, then falls back', async () => {
    const { authorize, questions } = testAuthorizer();
    const requestor = user('user-impersonator', ['group-impersonator']);
    const err = await refusal(
      new ConstrainedImpersonation(authorize).impersonate(wanted('system:admin', { groups: ['extra-setter-scopes'], extra: { 'pandas.io/scopes': ['scope-a', 'scope-b'] } }), podRequest(requestor)),
    );
    expect(questions()).toEqual([
      ['impersonate-on:user-info:get', '', 'pods', 'bar', 'foo'],
      ['impersonate:user-info', AUTHN, 'users', '', 'system:admin'],
      ['impersonate:user-info', AUTHN, 'groups', '', 'extra-setter-scopes'],
      ['impersonate', '', 'users', '', 'system:admin'],
    ]);
    expect(err.message).toBe(
      'groups.authentication.platform.io "extra-setter-scopes" is forbidden: User "user-impersonator" cannot impersonate:user-info resource "groups" in API group "authentication.platform.io" at the cluster scope: deny by default',
    );
  });

  it('tries one wildcard check first for four extra values or more', async () => {
    const { authorize, questions } = testAuthorizer();
    const requestor = user('user-impersonator', ['extra-setter-scopes']);
    const values = ['scope-a', 'scope-b', '3', '2', '1'];
    const result = await new ConstrainedImpersonation(authorize).impersonate(wanted('system:admin', { extra: { 'pandas.io/scopes': values } }), podRequest(requestor));
    expect(result.user).toEqual({ username: 'system:admin', groups: ['system:authenticated'], extra: { 'pandas.io/scopes': values } });
    expect(questions()).toEqual([
      ['impersonate-on:user-info:get', '', 'pods', 'bar', 'foo'],
      ['impersonate:user-info', AUTHN, 'users', '', 'system:admin'],
      ['impersonate:user-info', AUTHN, 'userextras/*', '', '*'],
      ...values.map((v) => ['impersonate:user-info', AUTHN, 'userextras/pandas.io/scopes', '', v]),
    ]);
    const many = await new ConstrainedImpersonation(authorize).impersonate(
      wanted('alice', { extra: { 'a.io/k1': ['1'], 'a.io/k2': ['2'], 'a.io/k3': ['3'], 'a.io/k4': ['4'] } }),
      podRequest(user('many-extras-impersonator')),
    );
    expect(many.constraint).toBe('impersonate:user-info');
    expect(questions().slice(2)).toEqual([['impersonate:user-info', AUTHN, 'userextras/*', '', '*']]);
  });

  it('tries one wildcard check first for four groups or more', async () => {
    const { authorize, questions } = testAuthorizer();
    const groups = ['group1', 'group2', 'group3', 'group4'];
    const result = await new ConstrainedImpersonation(authorize).impersonate(wanted('bob', { groups }), podRequest(user('many-groups-impersonator')));
    expect(result.user.groups).toEqual([...groups, 'system:authenticated']);
    expect(questions().slice(2)).toEqual([['impersonate:user-info', AUTHN, 'groups', '', '*']]);
  });

  it('uses the legacy verb when no constrained mode allows, recording no constraint', async () => {
    const { authorize, questions } = testAuthorizer();
    expect(await new ConstrainedImpersonation(authorize).impersonate(wanted('system:admin'), podRequest(user('legacy-impersonator')))).toEqual({
      user: { username: 'system:admin', groups: ['system:authenticated'] },
      constraint: '',
    });
    expect(questions()).toEqual([
      ['impersonate-on:user-info:get', '', 'pods', 'bar', 'foo'],
      ['impersonate', '', 'users', '', 'system:admin'],
    ]);
  });

  it('asks the legacy verb about user, uid, groups, extras in that order, with core version v1', async () => {
    const asked: AuthorizationAttributes[] = [];
    const authorize = async (a: AuthorizationAttributes): Promise<AuthorizationResult> => {
      asked.push(a);
      return a.verb === 'impersonate' ? { decision: 'Allow' } : { decision: 'NoOpinion' };
    };
    const result = await new ConstrainedImpersonation(authorize).impersonate(wanted('bob', { uid: 'u', groups: ['g'], extra: { scopes: ['v'] } }), podRequest(tester));
    expect(result.user).toEqual({ username: 'bob', uid: 'u', groups: ['g', 'system:authenticated'], extra: { scopes: ['v'] } });
    expect(asked.slice(1).map((a) => [a.verb, a.apiGroup, a.apiVersion, a.resource, a.subresource, a.name])).toEqual([
      ['impersonate', '', 'v1', 'users', '', 'bob'],
      ['impersonate', AUTHN, 'v1', 'uids', '', 'u'],
      ['impersonate', '', 'v1', 'groups', '', 'g'],
      ['impersonate', AUTHN, 'v1', 'userextras', 'scopes', 'v'],
    ]);
  });

  it('never impersonates system:masters or the empty group in user-info mode', async () => {
    const { authorize, questions } = testAuthorizer();
    const err = await refusal(new ConstrainedImpersonation(authorize).impersonate(wanted('admin-user', { groups: ['system:masters'] }), podRequest(userImpersonator)));
    expect(questions()).toEqual([
      ['impersonate-on:user-info:get', '', 'pods', 'bar', 'foo'],
      ['impersonate:user-info', AUTHN, 'users', '', 'admin-user'],
      ['impersonate', '', 'users', '', 'admin-user'],
    ]);
    expect(err.message).toBe(
      'groups.authentication.platform.io "system:masters" is forbidden: User "user-impersonator" cannot impersonate:user-info resource "groups" in API group "authentication.platform.io" at the cluster scope: impersonating the system:masters group is not allowed',
    );
    const empty = await refusal(new ConstrainedImpersonation(authorize).impersonate(wanted('admin-user', { groups: ['ok', ''] }), podRequest(userImpersonator)));
    expect(empty.message).toBe(
      'groups.authentication.platform.io is forbidden: User "user-impersonator" cannot impersonate:user-info resource "groups" in API group "authentication.platform.io" at the cluster scope: impersonating the empty string group is not allowed',
    );
  });

  it.each([
    [{ '': ['v'] }, 'impersonating the empty string key in extra is not allowed'],
    [{ scopes: ['v'] }, 'impersonating an invalid key in extra is not allowed: extra.key: Invalid value: "scopes": must be a domain-prefixed path (such as "acme.io/foo")'],
    [
      { 'Acme.io/x': ['v'] },
      `impersonating an invalid key in extra is not allowed: extra.key: Invalid value: "Acme.io": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
    ],
    [{ 'acme.io/a b': ['v'] }, `impersonating an invalid key in extra is not allowed: extra.key: Invalid value: "a b": Invalid path (regex used for validation is '[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+')`],
    [{ 'acme.io/X': ['v'] }, 'impersonating a non-lowercase key in extra is not allowed: "acme.io/X"'],
    [{ 'acme.io/x': [''] }, 'impersonating the empty string value in extra is not allowed'],
  ])('refuses the malformed extra %j in user-info mode', async (extra, why) => {
    const allowAll = async (): Promise<AuthorizationResult> => ({ decision: 'Allow' });
    const asked: string[] = [];
    const allowConstrained = async (a: AuthorizationAttributes): Promise<AuthorizationResult> => {
      asked.push(a.verb);
      return a.verb === 'impersonate' ? { decision: 'NoOpinion' } : allowAll();
    };
    const err = await refusal(new ConstrainedImpersonation(allowConstrained).impersonate(wanted('bob', { extra }), podRequest(tester)));
    expect(err.message).toBe(
      `userextras.authentication.platform.io is forbidden: User "tester" cannot impersonate:user-info resource "userextras" in API group "authentication.platform.io" at the cluster scope: ${why}`,
    );
    // Legacy impersonation takes such extras.
    expect(asked).toContain('impersonate');
    expect((await new ConstrainedImpersonation(allowAll).impersonate(wanted('bob', { extra }), podRequest(tester))).constraint).toBe('');
  });

  it('tries the mode that last worked for the caller first, whose refusal then answers', async () => {
    let legacyAllowed = true;
    const asked: string[] = [];
    const authorize = async (a: AuthorizationAttributes): Promise<AuthorizationResult> => {
      asked.push(a.verb);
      return a.verb === 'impersonate' && legacyAllowed ? { decision: 'Allow' } : { decision: 'NoOpinion', reason: 'no' };
    };
    const impersonation = new ConstrainedImpersonation(authorize);
    await impersonation.impersonate(wanted('bob'), podRequest(tester));
    expect(asked.splice(0)).toEqual(['impersonate-on:user-info:get', 'impersonate']);
    await impersonation.impersonate(wanted('bob'), podRequest(tester));
    expect(asked.splice(0)).toEqual(['impersonate']);
    legacyAllowed = false;
    const err = await refusal(impersonation.impersonate(wanted('bob'), podRequest(tester)));
    expect(asked.splice(0)).toEqual(['impersonate', 'impersonate-on:user-info:get']);
    expect(err.message).toBe('users "bob" is forbidden: User "tester" cannot impersonate resource "users" in API group "" at the cluster scope: no');
  });

  it('asks impersonate-on about non-resource requests too, and puts an evaluation error before the reason', async () => {
    const asked: AuthorizationAttributes[] = [];
    const authorize = async (a: AuthorizationAttributes): Promise<AuthorizationResult> => {
      asked.push(a);
      return { decision: 'NoOpinion', reason: 'no rule', evaluationError: 'webhook unreachable' };
    };
    const version = { ...podRequest(tester), isResourceRequest: false, path: '/version', apiGroup: '', apiVersion: '', resource: '', namespace: '', name: '' };
    const err = await refusal(new ConstrainedImpersonation(authorize).impersonate(wanted('bob'), version));
    expect(asked[0]).toMatchObject({ verb: 'impersonate-on:user-info:get', isResourceRequest: false, path: '/version' });
    expect(err.message).toBe('forbidden: User "tester" cannot impersonate-on:user-info:get path "/version": webhook unreachable: no rule');
  });
});
