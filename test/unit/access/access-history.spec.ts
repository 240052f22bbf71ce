import { accessChangesOf, boundariesBetween, nextBoundary, revisionPrefix, windowPrefix, withoutWindow } from '../../../src/access/access-history';
import { AccessChangeCause } from '../../../src/access/access-change-kind';
import { PermissionChange } from '../../../src/access/policy-change-types';

const RBAC = 'rbac.authorization.platform.io';
const FROM = `${RBAC}/valid-from`;
const UNTIL = `${RBAC}/valid-until`;

const via: PermissionChange['via'] = [{ binding: { kind: 'RoleBinding', namespace: 'a', name: 'b' }, role: { kind: 'ClusterRole', name: 'view' } }];
const entry = (name: string, verb: string, namespace?: string, kind = 'User'): PermissionChange => ({
  subject: { kind, name, ...(kind === 'User' ? { apiGroup: RBAC } : {}) },
  ...(namespace ? { namespace } : {}),
  verb,
  apiGroup: '',
  resource: 'pods',
  via,
});
const cause: AccessChangeCause = { kind: 'RoleBinding', namespace: 'a', name: 'b', resourceVersion: '42', operation: 'Create', user: { username: 'alice' } };

describe('accessChangesOf', () => {
  it('makes one object per subject and namespace, gains and losses together, named after the cause in a fixed order', () => {
    const secrets = { ...entry('bob', 'get', 'a'), resource: 'secrets' };
    const diff = { gained: [entry('zed', 'get', 'a'), entry('bob', 'get', 'a'), secrets, entry('bob', 'list', 'a'), entry('bob', 'get')], lost: [entry('bob', 'delete', 'a')] };
    const changes = accessChangesOf(diff, cause, '2026-01-01T00:00:00.000Z', revisionPrefix('42'));
    expect(changes.map((c) => [c.metadata.name, c.subject.name, c.namespace ?? '<cluster>', c.gained?.map((e) => e.verbs), c.lost?.map((e) => e.verbs)])).toEqual([
      ['r42-0', 'bob', '<cluster>', [['get']], undefined],
      ['r42-1', 'bob', 'a', [['get', 'list'], ['get']], [['delete']]],
      ['r42-2', 'zed', 'a', [['get']], undefined],
    ]);
    // The subject and namespace are the object's; its entries do not repeat them; entries that differ only in their verb are one.
    expect(changes[1].gained).toEqual([
      { verbs: ['get', 'list'], apiGroup: '', resource: 'pods', via },
      { verbs: ['get'], apiGroup: '', resource: 'secrets', via },
    ]);
    expect(changes[1]).toMatchObject({ apiVersion: 'access.platform.io/v1', kind: 'AccessChange', cause, time: '2026-01-01T00:00:00.000Z' });
    // The same diff, in another order, gives the same names: a second leader's entries collide with the first's.
    const again = accessChangesOf({ gained: [...diff.gained].reverse(), lost: diff.lost }, cause, 'x', revisionPrefix('42'));
    expect(again.map((c) => `${c.metadata.name} ${c.subject.name} ${c.namespace ?? ''}`)).toEqual(changes.map((c) => `${c.metadata.name} ${c.subject.name} ${c.namespace ?? ''}`));
  });

  it('tells subjects of different kinds apart', () => {
    const changes = accessChangesOf({ gained: [entry('devs', 'get', 'a', 'Group'), entry('devs', 'get', 'a')], lost: [] }, cause, 't', 'r1');
    expect(changes.map((c) => c.subject.kind).sort()).toEqual(['Group', 'User']);
  });

  it('records nothing for an empty diff', () => {
    expect(accessChangesOf({ gained: [], lost: [] }, cause, 't', 'r1')).toEqual([]);
  });
});

describe('time window boundaries', () => {
  const at = (ms: number) => new Date(ms).toISOString();
  const binding = (name: string, annotations: Record<string, string>) => ({ kind: 'RoleBinding' as const, binding: { metadata: { name, namespace: 'a', uid: `UID-${name}`, annotations } } });
  const T = Date.parse('2026-01-01T00:00:00Z');
  const bindings = [
    binding('later', { [FROM]: at(T + 3000), [UNTIL]: at(T + 5000) }),
    binding('now', { [FROM]: at(T + 1000) }),
    binding('ends', { [UNTIL]: at(T + 1000) }),
    binding('never', { [FROM]: at(T + 9000), [UNTIL]: at(T + 2000) }),
    binding('unreadable', { [UNTIL]: 'soon' }),
  ];

  it('lists the openings and closings in (after, upTo], oldest first, openings before closings at the same moment', () => {
    expect(boundariesBetween(bindings, T, T + 5000).map((b) => [b.at - T, b.opens, b.binding.metadata.name])).toEqual([
      [1000, true, 'now'],
      [1000, false, 'ends'],
      [3000, true, 'later'],
      [5000, false, 'later'],
    ]);
    // Exclusive of `after`, inclusive of `upTo`.
    expect(boundariesBetween(bindings, T + 1000, T + 3000).map((b) => b.at - T)).toEqual([3000]);
    expect(boundariesBetween(bindings, T + 5000, T + 99_000)).toEqual([]);
  });

  it('finds the next boundary, and none past the last', () => {
    expect(nextBoundary(bindings, T)).toBe(T + 1000);
    expect(nextBoundary(bindings, T + 3000)).toBe(T + 5000);
    expect(nextBoundary(bindings, T + 9000)).toBeUndefined();
  });

  it('names a window entry after the moment, the side and the binding; the open binding has no window annotations', () => {
    const [first] = boundariesBetween(bindings, T, T + 1000);
    expect(windowPrefix(first)).toBe(`w${T + 1000}-from-uid-now`);
    const open = withoutWindow(bindings[0].binding);
    expect(open.metadata.annotations).toEqual({});
    expect(bindings[0].binding.metadata.annotations[FROM]).toBeDefined();
  });
});
