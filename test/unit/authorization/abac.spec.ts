import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AbacAuthorizer, loadAbacPolicies } from '../../../src/authorization/abac/abac-authorizer';
import { parsePolicyFile, parsePolicyLine, PolicyLoadError } from '../../../src/authorization/abac/abac-policy';
import { AuthorizationAttributes } from '../../../src/authorization/authorizer';
import { req, url, user } from './rbac-fixtures';

const V1 = 'abac.authorization.platform.io/v1beta1';
const line = (spec: Record<string, unknown>) => JSON.stringify({ apiVersion: V1, kind: 'Policy', spec });

/** kube's documented example policies, in this server's group. */
const EXAMPLES = [
  '# everyone authenticated may read everything',
  line({ group: 'system:authenticated', readonly: true, nonResourcePath: '*' }),
  line({ user: 'admin', namespace: '*', resource: '*', apiGroup: '*' }),
  line({ user: 'scheduler', namespace: '*', resource: 'pods', readonly: true }),
  line({ user: 'scheduler', namespace: '*', resource: 'bindings' }),
  line({ user: 'kubelet', namespace: '*', resource: 'pods', readonly: true }),
  line({ user: 'kubelet', namespace: '*', resource: 'events' }),
  line({ user: 'bob', namespace: 'projectCaribou', resource: 'pods', readonly: true }),
  line({ group: 'viewers', namespace: '*', resource: '*', apiGroup: 'apps', readonly: true }),
  line({ user: 'carl', nonResourcePath: '/logs/*' }),
  line({ user: '*', readonly: true, nonResourcePath: '/version' }),
  '',
  '   # indented comment',
].join('\n');

const abac = new AbacAuthorizer('abac', parsePolicyFile(EXAMPLES, 'policy.jsonl').policies);
const allow = { decision: 'Allow', reason: '' };
const none = { decision: 'NoOpinion', reason: 'No policy matched.' };

const cases: Array<[string, AuthorizationAttributes, object]> = [
  ['admin does anything in any namespace', req(user('admin'), 'delete', 'apps', 'deployments', { ns: 'x', name: 'd' }), allow],
  ['admin does anything at cluster scope', req(user('admin'), 'create', '', 'namespaces'), allow],
  ['scheduler reads pods', req(user('scheduler'), 'list', '', 'pods', { ns: 'a' }), allow],
  ['scheduler may not write pods (readonly)', req(user('scheduler'), 'update', '', 'pods', { ns: 'a', name: 'p' }), none],
  ['scheduler creates bindings', req(user('scheduler'), 'create', '', 'bindings', { ns: 'a' }), allow],
  ['apiGroup empty = core group only', req(user('scheduler'), 'create', 'other.io', 'bindings', { ns: 'a' }), none],
  ['bob reads pods in his namespace', req(user('bob'), 'watch', '', 'pods', { ns: 'projectCaribou' }), allow],
  ['bob: not in another namespace', req(user('bob'), 'get', '', 'pods', { ns: 'other', name: 'p' }), none],
  ['bob: not cluster-wide', req(user('bob'), 'list', '', 'pods'), none],
  ['group viewers read apps', req(user('vic', 'viewers'), 'get', 'apps', 'deployments', { ns: 'a', name: 'd' }), allow],
  ['group viewers: not other groups', req(user('vic', 'viewers'), 'get', 'batch', 'jobs', { ns: 'a', name: 'j' }), none],
  ['authenticated users read any non-resource path', url(user('x', 'system:authenticated'), 'get', '/apis'), allow],
  ['readonly non-resource policy: no post', url(user('x', 'system:authenticated'), 'post', '/apis'), none],
  ['readonly non-resource policy: head is not read-only', url(user('x', 'system:authenticated'), 'head', '/apis'), none],
  ['non-resource prefix /logs/*', url(user('carl'), 'post', '/logs/a/b'), allow],
  ['non-resource prefix: another path', url(user('carl'), 'get', '/metrics'), none],
  ['non-resource policy never grants resources', req(user('carl'), 'get', '', 'pods', { ns: 'a', name: 'p' }), none],
  ['user * (v1beta1) = every authenticated caller', url(user('y', 'system:authenticated'), 'get', '/version'), allow],
  ['user * (v1beta1): not the unauthenticated', url(user('system:anonymous', 'system:unauthenticated'), 'get', '/version'), none],
  ['no policy for the user', req(user('nobody'), 'get', '', 'pods', { ns: 'a', name: 'p' }), none],
];

describe('ABAC authorizer', () => {
  it.each(cases)('%s', (_name, attrs, expected) => expect(abac.authorize(attrs)).toEqual(expected));

  it('a policy with neither user nor group matches nobody (v1beta1)', () => {
    const a = new AbacAuthorizer('abac', parsePolicyFile(line({ namespace: '*', resource: '*', apiGroup: '*' }), 'p').policies);
    expect(a.authorize(req(user('x', 'system:authenticated'), 'get', '', 'pods', { ns: 'a', name: 'p' }))).toEqual(none);
  });

  it('lists the rules of a user in a namespace, as kube (a policy\'s namespace must match, also for paths)', () => {
    expect(abac.rulesFor(user('bob', 'system:authenticated'), 'projectCaribou')).toEqual({
      resourceRules: [{ verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['pods'] }],
      nonResourceRules: [],
      incomplete: false,
    });
    expect(abac.rulesFor(user('bob', 'system:authenticated'), '')).toEqual({
      resourceRules: [],
      nonResourceRules: [
        { verbs: ['get', 'list', 'watch'], nonResourceURLs: ['*'] },
        { verbs: ['get', 'list', 'watch'], nonResourceURLs: ['/version'] },
      ],
      incomplete: false,
    });
    expect(abac.rulesFor(user('admin'), 'any').resourceRules).toEqual([{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }]);
    expect(abac.rulesFor(user('bob'), 'elsewhere')).toEqual({ resourceRules: [], nonResourceRules: [], incomplete: false });
  });
});

describe('ABAC policy file', () => {
  it('reads v1beta1 lines, with * meaning every authenticated caller', () => {
    expect(parsePolicyLine(line({ user: '*', readonly: true, resource: 'pods', namespace: 'a' }))).toEqual({
      policy: { user: '', group: 'system:authenticated', readonly: true, apiGroup: '', resource: 'pods', namespace: 'a', nonResourcePath: '' },
      unversioned: false,
    });
  });

  it('reads legacy unversioned lines with kube\'s v0 conversion', () => {
    expect(parsePolicyLine('{"user":"alice"}')).toEqual({
      policy: { user: 'alice', group: '', readonly: false, apiGroup: '*', resource: '*', namespace: '*', nonResourcePath: '*' },
      unversioned: true,
    });
    expect(parsePolicyLine('{"readonly": true, "resource": "pods"}').policy).toEqual({
      user: '',
      group: 'system:authenticated',
      readonly: true,
      apiGroup: '*',
      resource: 'pods',
      namespace: '*',
      nonResourcePath: '',
    });
    expect(parsePolicyLine('{"apiVersion":"abac.authorization.platform.io/v0","kind":"Policy","group":"*","namespace":"ns"}')).toEqual({
      policy: { user: '', group: 'system:authenticated', readonly: false, apiGroup: '*', resource: '*', namespace: 'ns', nonResourcePath: '' },
      unversioned: false,
    });
  });

  it('v0 lines behave as kube\'s: empty subject = authenticated, all groups, all namespaces', () => {
    const a = new AbacAuthorizer('abac', parsePolicyFile('{"resource":"pods","readonly":true}\n{"user":"root"}', 'p').policies);
    expect(a.authorize(req(user('x', 'system:authenticated'), 'list', 'any.io', 'pods', { ns: 'n' })).decision).toBe('Allow');
    expect(a.authorize(req(user('x', 'system:authenticated'), 'create', '', 'pods', { ns: 'n' })).decision).toBe('NoOpinion');
    expect(a.authorize(url(user('root'), 'put', '/anything')).decision).toBe('Allow');
  });

  it('skips blank and comment lines and counts unversioned ones', () => {
    const parsed = parsePolicyFile('\n# c\n  \n{"user":"a"}\r\n' + line({ user: 'b' }) + '\n', 'p');
    expect(parsed.policies.map((p) => p.user)).toEqual(['a', 'b']);
    expect(parsed.unversionedLines).toBe(1);
  });

  it.each([
    ['not JSON', '{"user": ', /^error reading policy file p\.jsonl, line 3: \{"user": : invalid JSON: /],
    ['not an object', '["user"]', /line 3: \["user"\]: a policy must be a JSON object, got array$/],
    ['wrong field type', line({ user: 'a', readonly: 'yes' }), /line 3: .*: spec\.readonly: expected a boolean, got string$/],
    ['wrong field type (v0)', '{"user": 7}', /line 3: \{"user": 7\}: user: expected a string, got number$/],
    ['unknown version', '{"apiVersion":"abac.authorization.platform.io/v2","kind":"Policy"}', /no kind "Policy" is registered for version "abac.authorization.platform.io\/v2"$/],
    ['unknown kind', `{"apiVersion":"${V1}","kind":"Rule"}`, /no kind "Rule" is registered for version "abac.authorization.platform.io\/v1beta1"$/],
    ['v1beta1 without kind', `{"apiVersion":"${V1}","spec":{}}`, /Object 'Kind' is missing in/],
  ])('fails on a bad line with its number: %s', (_name, bad, message) => {
    const text = ['# first', line({ user: 'ok' }), bad, line({ user: 'never read' })].join('\n');
    let error: unknown;
    try {
      parsePolicyFile(text, 'p.jsonl');
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(PolicyLoadError);
    expect((error as PolicyLoadError).line).toBe(3);
    expect((error as Error).message).toMatch(message);
  });

  it('loads from a file, and names a file that cannot be read', () => {
    const dir = mkdtempSync(join(tmpdir(), 'abac-'));
    const path = join(dir, 'policy.jsonl');
    writeFileSync(path, line({ user: 'alice', namespace: '*', resource: '*', apiGroup: '*' }));
    const a = new AbacAuthorizer('abac', loadAbacPolicies(path));
    expect(a.authorize(req(user('alice'), 'get', '', 'pods', { ns: 'x', name: 'p' })).decision).toBe('Allow');
    expect(() => loadAbacPolicies(join(dir, 'missing'))).toThrow(`error reading policy file ${join(dir, 'missing')}: open ${join(dir, 'missing')}: no such file or directory`);
  });
});
