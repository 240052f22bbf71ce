import { covers } from '../../../src/rbac/kinds/rule-coverage';
import { PolicyRule } from '../../../src/apis/rbac/types';

/**
 * The rule-coverage algorithm escalation prevention decides with: do a caller's rules
 * (owner) grant everything a role would grant (servant)? The answer lists the atomic
 * permissions (one group/resource/verb/name, or one URL/verb) left uncovered.
 */

const r = (verbs: string[], apiGroups: string[], resources: string[], resourceNames?: string[]): PolicyRule =>
  resourceNames ? { verbs, apiGroups, resources, resourceNames } : { verbs, apiGroups, resources };
const u = (verbs: string[], nonResourceURLs: string[]): PolicyRule => ({ verbs, nonResourceURLs });

type Case = [title: string, owner: PolicyRule[], servant: PolicyRule[], uncovered: PolicyRule[]];

const cases: Case[] = [
  // verbs
  ['the same rule', [r(['get'], [''], ['pods'])], [r(['get'], [''], ['pods'])], []],
  ['verb * covers any verb', [r(['*'], [''], ['pods'])], [r(['get', 'delete', 'escalate'], [''], ['pods'])], []],
  ['verb * covers verb *', [r(['*'], [''], ['pods'])], [r(['*'], [''], ['pods'])], []],
  ['listing every verb does not cover verb *', [r(['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'], [''], ['pods'])], [r(['*'], [''], ['pods'])], [r(['*'], [''], ['pods'])]],
  ['only the missing verb is reported', [r(['get', 'list'], [''], ['pods'])], [r(['get', 'list', 'delete'], [''], ['pods'])], [r(['delete'], [''], ['pods'])]],
  ['verbs spread over several owner rules', [r(['get'], [''], ['pods']), r(['list'], [''], ['pods'])], [r(['get', 'list'], [''], ['pods'])], []],
  // groups
  ['group * covers any group', [r(['get'], ['*'], ['deployments'])], [r(['get'], ['apps', 'extensions'], ['deployments'])], []],
  ['group * covers group *', [r(['get'], ['*'], ['pods'])], [r(['get'], ['*'], ['pods'])], []],
  ['listed groups do not cover group *', [r(['get'], ['', 'apps'], ['pods'])], [r(['get'], ['*'], ['pods'])], [r(['get'], ['*'], ['pods'])]],
  ['the core group is not another group', [r(['get'], [''], ['deployments'])], [r(['get'], ['apps'], ['deployments'])], [r(['get'], ['apps'], ['deployments'])]],
  ['several owner rules cover several groups', [r(['get'], ['apps'], ['deployments']), r(['get'], ['extensions'], ['deployments'])], [r(['get'], ['apps', 'extensions'], ['deployments'])], []],
  ['one owner rule with two groups covers each', [r(['get'], ['apps', 'batch'], ['jobs'])], [r(['get'], ['batch'], ['jobs'])], []],
  // resources and subresources
  ['resource * covers any resource', [r(['get'], [''], ['*'])], [r(['get'], [''], ['pods', 'secrets'])], []],
  ['resource * covers subresources', [r(['get'], [''], ['*'])], [r(['get'], [''], ['pods/log', 'pods/exec'])], []],
  ['listed resources do not cover resource *', [r(['get'], [''], ['pods', 'secrets'])], [r(['get'], [''], ['*'])], [r(['get'], [''], ['*'])]],
  ['a resource does not cover its subresource', [r(['get'], [''], ['pods'])], [r(['get'], [''], ['pods/log'])], [r(['get'], [''], ['pods/log'])]],
  ['a subresource does not cover its resource', [r(['get'], [''], ['pods/log'])], [r(['get'], [''], ['pods'])], [r(['get'], [''], ['pods'])]],
  ['*/subresource covers that subresource of any resource', [r(['get'], [''], ['*/status'])], [r(['get'], [''], ['pods/status', 'nodes/status'])], []],
  ['*/subresource does not cover another subresource', [r(['get'], [''], ['*/status'])], [r(['get'], [''], ['pods/log'])], [r(['get'], [''], ['pods/log'])]],
  ['*/subresource does not cover */subresource of another name', [r(['get'], [''], ['*/status'])], [r(['get'], [''], ['*/scale'])], [r(['get'], [''], ['*/scale'])]],
  ['resource/subresource covers itself', [r(['update'], ['apps'], ['deployments/scale'])], [r(['update'], ['apps'], ['deployments/scale'])], []],
  // resourceNames
  ['no names covers any names', [r(['get'], [''], ['secrets'])], [r(['get'], [''], ['secrets'], ['a', 'b'])], []],
  ['names do not cover every name', [r(['get'], [''], ['secrets'], ['a'])], [r(['get'], [''], ['secrets'])], [r(['get'], [''], ['secrets'])]],
  ['names cover a subset of themselves', [r(['get'], [''], ['secrets'], ['a', 'b', 'c'])], [r(['get'], [''], ['secrets'], ['c', 'a'])], []],
  ['only the name not held is reported', [r(['get'], [''], ['secrets'], ['a'])], [r(['get'], [''], ['secrets'], ['a', 'b'])], [r(['get'], [''], ['secrets'], ['b'])]],
  ['names spread over owner rules', [r(['get'], [''], ['secrets'], ['a']), r(['get'], [''], ['secrets'], ['b'])], [r(['get'], [''], ['secrets'], ['a', 'b'])], []],
  ['a name * is a name, not a wildcard', [r(['get'], [''], ['secrets'], ['*'])], [r(['get'], [''], ['secrets'], ['a'])], [r(['get'], [''], ['secrets'], ['a'])]],
  // non-resource URLs
  ['the same URL', [u(['get'], ['/healthz'])], [u(['get'], ['/healthz'])], []],
  ['URL * covers every URL', [u(['get'], ['*'])], [u(['get'], ['/healthz', '/apis/x'])], []],
  ['a URL prefix with * covers longer URLs', [u(['get'], ['/apis/*'])], [u(['get'], ['/apis/rbac/v1', '/apis/'])], []],
  ['a URL prefix with * does not cover the URL without its slash', [u(['get'], ['/apis/*'])], [u(['get'], ['/apis'])], [u(['get'], ['/apis'])]],
  ['a prefix with * covers a servant prefix with *', [u(['get'], ['/metrics/*'])], [u(['get'], ['/metrics/cadvisor*'])], []],
  ['a URL without * covers no other URL', [u(['get'], ['/apis'])], [u(['get'], ['/apis/x'])], [u(['get'], ['/apis/x'])]],
  ['URL verbs are checked', [u(['get'], ['/healthz'])], [u(['get', 'post'], ['/healthz'])], [u(['post'], ['/healthz'])]],
  ['a resource rule does not cover a URL', [r(['*'], ['*'], ['*'])], [u(['get'], ['/healthz'])], [u(['get'], ['/healthz'])]],
  ['a URL rule does not cover a resource', [u(['*'], ['*'])], [r(['get'], [''], ['pods'])], [r(['get'], [''], ['pods'])]],
  ['a rule with resources and URLs is broken into both', [r(['get'], [''], ['pods']), u(['get'], ['/healthz'])], [{ verbs: ['get'], apiGroups: [''], resources: ['pods'], nonResourceURLs: ['/healthz', '/livez'] }], [u(['get'], ['/livez'])]],
  // whole roles
  ['full authority covers everything', [r(['*'], ['*'], ['*']), u(['*'], ['*'])], [r(['*'], ['*'], ['*']), u(['*'], ['*']), r(['get'], ['apps'], ['deployments/scale'], ['x'])], []],
  ['a rule that grants nothing needs nothing', [], [{ verbs: ['get'] }, r([], [''], ['pods'])], []],
  ['an empty owner misses every atomic permission', [], [r(['get', 'list'], ['', 'apps'], ['pods'])], [r(['get'], [''], ['pods']), r(['list'], [''], ['pods']), r(['get'], ['apps'], ['pods']), r(['list'], ['apps'], ['pods'])]],
];

describe('escalation rule coverage', () => {
  it('has a table of at least 25 cases', () => {
    expect(cases.length).toBeGreaterThanOrEqual(25);
  });

  it.each(cases)('%s', (_title, owner, servant, uncovered) => {
    expect(covers(owner, servant)).toEqual({ covered: uncovered.length === 0, uncovered });
  });
});
