import { transformBody } from '../../../src/runtime/serializer/transform';
import { ageOf, humanDuration } from '../../../src/runtime/table/human-duration';
import { parseIncludeObject } from '../../../src/runtime/table/table';
import { namespaceType } from '../../../src/core/namespace';
import { clusterRoleBindingType, clusterRoleType, roleBindingType } from '../../../src/rbac/kinds/kinds';

const NOW = new Date('2024-06-01T12:00:00Z');
const TABLE = { kind: 'Table' as const, group: 'meta.platform.io' as const, version: 'v1' as const };
const ago = (seconds: number) => new Date(NOW.getTime() - seconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');

describe('humanDuration (kubectl AGE)', () => {
  it.each([
    [0, '0s'],
    [-1500, '0s'],
    [-3000, '<invalid>'],
    [45_000, '45s'],
    [119_000, '119s'],
    [120_000, '2m'],
    [330_000, '5m30s'],
    [600_000, '10m'],
    [179 * 60_000, '179m'],
    [3 * 3_600_000, '3h'],
    [(3 * 60 + 12) * 60_000, '3h12m'],
    [8 * 3_600_000, '8h'],
    [47 * 3_600_000, '47h'],
    [(3 * 24 + 2) * 3_600_000, '3d2h'],
    [4 * 24 * 3_600_000, '4d'],
    [30 * 24 * 3_600_000, '30d'],
    [(2 * 365 + 45) * 24 * 3_600_000, '2y45d'],
    [9 * 365 * 24 * 3_600_000, '9y'],
  ])('%d ms is %s', (ms, text) => {
    expect(humanDuration(ms)).toBe(text);
  });

  it('is <unknown> without a timestamp', () => {
    expect(ageOf(undefined, NOW)).toBe('<unknown>');
    expect(ageOf(ago(90), NOW)).toBe('90s');
  });
});

const binding = {
  apiVersion: 'rbac.authorization.platform.io/v1',
  kind: 'RoleBinding',
  metadata: { name: 'readers', namespace: 'ns', resourceVersion: '17', creationTimestamp: ago(3 * 86400 + 7200), uid: 'u1' },
  roleRef: { apiGroup: 'rbac.authorization.platform.io', kind: 'ClusterRole', name: 'view' },
  subjects: [
    { kind: 'User', apiGroup: 'rbac.authorization.platform.io', name: 'alice' },
    { kind: 'User', apiGroup: 'rbac.authorization.platform.io', name: 'bob' },
    { kind: 'Group', apiGroup: 'rbac.authorization.platform.io', name: 'devs' },
    { kind: 'ServiceAccount', name: 'ci', namespace: 'build' },
  ],
};

describe('Table rows per kind', () => {
  it("prints RoleBindings as kube's printer: NAME, ROLE, AGE, and wide USERS, GROUPS, SERVICEACCOUNTS", () => {
    const table = transformBody(TABLE, binding, { type: roleBindingType, query: {}, now: NOW }) as any;
    expect(table).toMatchObject({ kind: 'Table', apiVersion: 'meta.platform.io/v1', metadata: { resourceVersion: '17' } });
    expect(table.columnDefinitions.map((c: any) => [c.name, c.type, c.format, c.priority])).toEqual([
      ['Name', 'string', 'name', 0],
      ['Role', 'string', '', 0],
      ['Age', 'string', '', 0],
      ['Users', 'string', '', 1],
      ['Groups', 'string', '', 1],
      ['ServiceAccounts', 'string', '', 1],
    ]);
    expect(table.columnDefinitions[3].description).toBe('Users in the roleBinding');
    expect(table.rows).toEqual([
      {
        cells: ['readers', 'ClusterRole/view', '3d2h', 'alice, bob', 'devs', 'build/ci'],
        object: { kind: 'PartialObjectMetadata', apiVersion: 'meta.platform.io/v1', metadata: binding.metadata },
      },
    ]);
  });

  it('prints ClusterRoleBindings the same way with their own descriptions', () => {
    const crb = { ...binding, kind: 'ClusterRoleBinding', subjects: [], metadata: { name: 'c', creationTimestamp: ago(30) } };
    const table = transformBody(TABLE, crb, { type: clusterRoleBindingType, query: {}, now: NOW }) as any;
    expect(table.rows[0].cells).toEqual(['c', 'ClusterRole/view', '30s', '', '', '']);
    expect(table.columnDefinitions[4].description).toBe('Groups in the clusterRoleBinding');
  });

  it("prints ClusterRoles with kube's default Name and Created At (a date)", () => {
    const list = {
      apiVersion: 'rbac.authorization.platform.io/v1',
      kind: 'ClusterRoleList',
      metadata: { resourceVersion: '30', continue: 'tok', remainingItemCount: 4 },
      items: [{ metadata: { name: 'a', creationTimestamp: '2024-01-02T03:04:05Z' } }],
    };
    const table = transformBody(TABLE, list, { type: clusterRoleType, query: {}, now: NOW }) as any;
    expect(table.metadata).toEqual({ resourceVersion: '30', continue: 'tok', remainingItemCount: 4 });
    expect(table.columnDefinitions.map((c: any) => [c.name, c.type, c.format])).toEqual([
      ['Name', 'string', 'name'],
      ['Created At', 'date', ''],
    ]);
    expect(table.rows[0].cells).toEqual(['a', '2024-01-02T03:04:05Z']);
  });

  it('prints Namespaces as NAME, STATUS, AGE', () => {
    const ns = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'dev', creationTimestamp: ago(600) }, status: { phase: 'Active' } };
    const table = transformBody(TABLE, ns, { type: namespaceType, query: {}, now: NOW }) as any;
    expect(table.columnDefinitions.map((c: any) => c.name)).toEqual(['Name', 'Status', 'Age']);
    expect(table.rows[0].cells).toEqual(['dev', 'Active', '10m']);
  });

  it('carries the whole object, metadata only, or nothing per includeObject', () => {
    const list = { apiVersion: 'rbac.authorization.platform.io/v1', kind: 'RoleBindingList', metadata: { resourceVersion: '3' }, items: [{ ...binding, apiVersion: undefined, kind: undefined }] };
    const rows = (includeObject: string) => (transformBody(TABLE, list, { type: roleBindingType, query: { includeObject }, now: NOW }) as any).rows;
    expect(rows('None')[0].object).toBeNull();
    expect(rows('Object')[0].object).toMatchObject({ apiVersion: 'rbac.authorization.platform.io/v1', kind: 'RoleBinding', roleRef: binding.roleRef });
    expect(rows('Metadata')[0].object).toEqual({ kind: 'PartialObjectMetadata', apiVersion: 'meta.platform.io/v1', metadata: binding.metadata });
    expect(() => parseIncludeObject({ includeObject: 'All' })).toThrow(
      expect.objectContaining({
        code: 400,
        message: `Unable to convert to Table as requested: includeObject: Invalid value: "All": must be 'Metadata', 'Object', 'None', or empty`,
      }),
    );
  });

  it('omits column definitions when asked (watch events after the first) and never transforms a Status', () => {
    const table = transformBody(TABLE, binding, { type: roleBindingType, query: {}, now: NOW }, false) as any;
    expect(table.columnDefinitions).toBeNull();
    const status = { kind: 'Status', apiVersion: 'v1', status: 'Success', metadata: {} };
    expect(transformBody(TABLE, status, { type: roleBindingType, query: {} })).toBe(status);
  });
});

describe('PartialObjectMetadata renderings', () => {
  const list = { apiVersion: 'rbac.authorization.platform.io/v1', kind: 'RoleBindingList', metadata: { resourceVersion: '3' }, items: [{ metadata: { name: 'x' } }] };

  it('reduces objects and lists to their metadata', () => {
    expect(transformBody({ kind: 'PartialObjectMetadata', group: 'meta.platform.io', version: 'v1' }, binding, { type: roleBindingType, query: {} })).toEqual({
      kind: 'PartialObjectMetadata',
      apiVersion: 'meta.platform.io/v1',
      metadata: binding.metadata,
    });
    // In the meta group the client named: kube's for kubectl and client-go.
    expect(transformBody({ kind: 'PartialObjectMetadataList', group: 'meta.k8s.io', version: 'v1beta1' }, list, { type: roleBindingType, query: {} })).toEqual({
      kind: 'PartialObjectMetadataList',
      apiVersion: 'meta.k8s.io/v1beta1',
      metadata: { resourceVersion: '3' },
      items: [{ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1beta1', metadata: { name: 'x' } }],
    });
  });

  it('answers 406 when the rendering does not fit the body', () => {
    expect(() => transformBody({ kind: 'PartialObjectMetadata', group: 'meta.platform.io', version: 'v1' }, list, { type: roleBindingType, query: {} })).toThrow(
      expect.objectContaining({ code: 406, reason: 'NotAcceptable', message: 'you requested PartialObjectMetadata, but the requested object is a list (RoleBindingList)' }),
    );
    expect(() => transformBody({ kind: 'PartialObjectMetadataList', group: 'meta.platform.io', version: 'v1' }, binding, { type: roleBindingType, query: {} })).toThrow(
      expect.objectContaining({ code: 406, message: 'you requested PartialObjectMetadataList, but the requested object is not a list (RoleBinding)' }),
    );
  });
});
