import {
  impersonationAttributes,
  impersonationFromHeaders,
  isImpersonationHeader,
  splitServiceAccountUsername,
} from '../../../src/authentication/impersonation/impersonation';

const alice = { username: 'alice', groups: ['system:authenticated'] };
type Headers = Array<[string, string]>;

describe('impersonation headers', () => {
  it('ask for nothing without Impersonate-* headers', () => {
    expect(impersonationFromHeaders([['Accept', 'application/json']])).toBeUndefined();
  });

  it('impersonate a user, who gets system:authenticated', () => {
    const result = impersonationFromHeaders([['Impersonate-User', 'bob']]);
    expect(result?.user).toEqual({ username: 'bob', groups: ['system:authenticated'] });
    expect(result?.requests).toEqual([{ kind: 'User', namespace: '', name: 'bob', apiVersion: '', fieldPath: '' }]);
  });

  it('take repeated groups, extras (key lower-cased and percent-decoded) and a uid', () => {
    const headers: Headers = [
      ['Impersonate-User', 'bob'],
      ['Impersonate-Group', 'devs'],
      ['impersonate-group', 'ops'],
      ['Impersonate-Extra-Scopes', 'view'],
      ['Impersonate-Extra-scopes', 'edit'],
      ['Impersonate-Extra-Example.com%2FReason', 'audit'],
      ['Impersonate-Uid', 'uid-7'],
    ];
    const result = impersonationFromHeaders(headers)!;
    expect(result.user).toEqual({
      username: 'bob',
      groups: ['devs', 'ops', 'system:authenticated'],
      extra: { scopes: ['view', 'edit'], 'example.com/reason': ['audit'] },
      uid: 'uid-7',
    });
    expect(result.requests.map((r) => [r.kind, r.name, r.fieldPath])).toEqual([
      ['User', 'bob', ''],
      ['Group', 'devs', ''],
      ['Group', 'ops', ''],
      ['UserExtra', 'view', 'scopes'],
      ['UserExtra', 'edit', 'scopes'],
      ['UserExtra', 'audit', 'example.com/reason'],
      ['UID', 'uid-7', ''],
    ]);
  });

  it('add system:authenticated unless the asked groups say authenticated or unauthenticated', () => {
    expect(impersonationFromHeaders([['Impersonate-User', 'bob'], ['Impersonate-Group', 'system:authenticated']])?.user.groups).toEqual(['system:authenticated']);
    expect(impersonationFromHeaders([['Impersonate-User', 'bob'], ['Impersonate-Group', 'system:unauthenticated']])?.user.groups).toEqual(['system:unauthenticated']);
  });

  it('give system:anonymous the group system:unauthenticated', () => {
    expect(impersonationFromHeaders([['Impersonate-User', 'system:anonymous']])?.user).toEqual({ username: 'system:anonymous', groups: ['system:unauthenticated'] });
    expect(impersonationFromHeaders([['Impersonate-User', 'system:anonymous'], ['Impersonate-Group', 'g']])?.user.groups).toEqual(['g', 'system:unauthenticated']);
  });

  it('impersonate a service account with its groups, unless groups are asked for', () => {
    const sa = impersonationFromHeaders([['Impersonate-User', 'system:serviceaccount:ns1:builder']])!;
    expect(sa.requests).toEqual([{ kind: 'ServiceAccount', namespace: 'ns1', name: 'builder', apiVersion: '', fieldPath: '' }]);
    expect(sa.user).toEqual({
      username: 'system:serviceaccount:ns1:builder',
      groups: ['system:serviceaccounts', 'system:serviceaccounts:ns1', 'system:authenticated'],
    });
    const withGroups = impersonationFromHeaders([['Impersonate-User', 'system:serviceaccount:ns1:builder'], ['Impersonate-Group', 'g']])!;
    expect(withGroups.user.groups).toEqual(['g', 'system:authenticated']);
  });

  it.each([
    ['system:serviceaccount:ns1:builder', { namespace: 'ns1', name: 'builder' }],
    ['system:serviceaccount:ns1', undefined],
    ['system:serviceaccount:ns1:a:b', undefined],
    ['system:serviceaccount:NS:builder', undefined],
    ['system:serviceaccount::builder', undefined],
    ['serviceaccount:ns1:builder', undefined],
  ])('read %s as a service account: %j', (username, expected) => {
    expect(splitServiceAccountUsername(username)).toEqual(expected);
  });

  it('refuse groups, extras or a uid without a user, with kube\'s message', () => {
    expect(() => impersonationFromHeaders([['Impersonate-Group', 'devs']])).toThrow('requested [{Group  devs    }] without impersonating a user');
    expect(() => impersonationFromHeaders([['Impersonate-Extra-Scopes', 'view'], ['Impersonate-Uid', 'u']])).toThrow(
      'requested [{UserExtra  view  authentication.platform.io/v1  scopes} {UID  u  authentication.platform.io/v1  }] without impersonating a user',
    );
  });

  it('need `impersonate` on users, groups and serviceaccounts (core) and on userextras and uids', () => {
    const result = impersonationFromHeaders([
      ['Impersonate-User', 'system:serviceaccount:ns1:builder'],
      ['Impersonate-Group', 'devs'],
      ['Impersonate-Extra-Scopes', 'view'],
      ['Impersonate-Uid', 'u-1'],
    ])!;
    const asked = result.requests.map((r) => impersonationAttributes(r, alice));
    const summary = asked.map((a) => ({ verb: a.verb, group: a.apiGroup, resource: a.resource, subresource: a.subresource, namespace: a.namespace, name: a.name }));
    expect(summary).toEqual([
      { verb: 'impersonate', group: '', resource: 'serviceaccounts', subresource: '', namespace: 'ns1', name: 'builder' },
      { verb: 'impersonate', group: '', resource: 'groups', subresource: '', namespace: '', name: 'devs' },
      { verb: 'impersonate', group: 'authentication.platform.io', resource: 'userextras', subresource: 'scopes', namespace: '', name: 'view' },
      { verb: 'impersonate', group: 'authentication.platform.io', resource: 'uids', subresource: '', namespace: '', name: 'u-1' },
    ]);
    expect(asked.every((a) => a.user === alice && a.isResourceRequest)).toBe(true);
    expect(impersonationAttributes(impersonationFromHeaders([['Impersonate-User', 'bob']])!.requests[0], alice)).toMatchObject({ resource: 'users', name: 'bob', apiGroup: '', apiVersion: '' });
  });

  it('recognise the headers to remove', () => {
    expect(['Impersonate-User', 'impersonate-group', 'Impersonate-Uid', 'Impersonate-Extra-X'].every(isImpersonationHeader)).toBe(true);
    expect(isImpersonationHeader('Authorization')).toBe(false);
  });
});
